/**
 * The grammar of the mock's regex search (docs/testing.md): a pattern read into a tree of character tests,
 * anchors, sequences, alternatives and repetitions, case folded as `RegExp`'s `i` flag without `u`.
 * @module
 */

/** Largest count of a `{n,m}` quantifier. */
export const MAX_PATTERN_REPEAT = 100;

/** Why a pattern is refused; the message says what the mock supports. */
export class UnsupportedPatternError extends Error {
  override name = 'UnsupportedPatternError';
}

/** A test of one UTF-16 code unit. */
export type CharTest = (code: number) => boolean;

/** A pattern read into a tree. */
export type Node =
  | { readonly kind: 'char'; readonly test: CharTest }
  | { readonly kind: 'bol' }
  | { readonly kind: 'eol' }
  | { readonly kind: 'seq'; readonly items: readonly Node[] }
  | { readonly kind: 'alt'; readonly options: readonly Node[] }
  | { readonly kind: 'repeat'; readonly node: Node; readonly min: number; readonly max: number };

/** Case-folded code units already worked out (−1: not yet), as `toUpperCase` is slow per character. */
const CANONICAL = new Int32Array(0x10000).fill(-1);

/** `String.prototype.toUpperCase` of one code unit, as `RegExp`'s `i` flag folds case without `u`. */
function canonical(code: number): number {
  const known = CANONICAL[code] ?? -1;
  if (known >= 0) return known;
  const folded = foldCase(code);
  CANONICAL[code] = folded;
  return folded;
}

function foldCase(code: number): number {
  const upper = String.fromCharCode(code).toUpperCase();
  if (upper.length !== 1) return code;
  const folded = upper.charCodeAt(0);
  return code >= 128 && folded < 128 ? code : folded;
}

function caseless(test: CharTest): CharTest {
  return (code) => {
    if (test(code)) return true;
    const text = String.fromCharCode(code);
    const lower = text.toLowerCase();
    const upper = text.toUpperCase();
    return (
      (lower.length === 1 && test(lower.charCodeAt(0))) || (upper.length === 1 && test(upper.charCodeAt(0)))
    );
  };
}

/** A literal code unit (compared case-insensitively), or a set's test as it is. */
function literalOrTest(member: number | CharTest): CharTest {
  if (typeof member !== 'number') return member; // \d \w \s and their negations: no case to fold
  const target = canonical(member);
  return (code) => canonical(code) === target;
}

const isDigit: CharTest = (code) => code >= 48 && code <= 57;
const isWord: CharTest = (code) =>
  isDigit(code) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
const SPACES = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff,
]);
const isSpace: CharTest = (code) => SPACES.has(code) || (code >= 0x2000 && code <= 0x200a);
const isLineEnd: CharTest = (code) => code === 0x0a || code === 0x0d || code === 0x2028 || code === 0x2029;
const not =
  (test: CharTest): CharTest =>
  (code) =>
    !test(code);

const CONTROL_ESCAPES: Record<string, number> = { t: 9, n: 10, v: 11, f: 12, r: 13, '0': 0 };

/** Reads a pattern of the grammar; refuses the rest with {@link UnsupportedPatternError}. */
export class Parser {
  #position = 0;
  readonly #source: string;

  constructor(source: string) {
    this.#source = source;
  }

  parse(): Node {
    const node = this.#alternation();
    if (this.#position < this.#source.length) throw this.#refuse(`unmatched ")" at ${this.#position}`);
    return node;
  }

  #refuse(what: string): UnsupportedPatternError {
    return new UnsupportedPatternError(what);
  }

  #peek(offset = 0): string | undefined {
    return this.#source[this.#position + offset];
  }

  #alternation(): Node {
    const options = [this.#sequence()];
    while (this.#peek() === '|') {
      this.#position++;
      options.push(this.#sequence());
    }
    return options.length === 1 && options[0] ? options[0] : { kind: 'alt', options };
  }

  #sequence(): Node {
    const items: Node[] = [];
    for (let next = this.#peek(); next !== undefined && next !== '|' && next !== ')'; next = this.#peek()) {
      const atom = this.#atom();
      items.push(this.#quantified(atom));
    }
    return { kind: 'seq', items };
  }

  #quantified(atom: Node): Node {
    const next = this.#peek();
    let min: number;
    let max: number;
    if (next === '*' || next === '+' || next === '?') {
      this.#position++;
      [min, max] = next === '*' ? [0, Infinity] : next === '+' ? [1, Infinity] : [0, 1];
    } else if (next === '{') {
      const counted = /^\{(\d+)(,(\d*))?\}/.exec(this.#source.slice(this.#position, this.#position + 16));
      if (!counted) return atom; // a `{` that opens no quantifier is a literal (as in RegExp without `u`)
      this.#position += counted[0].length;
      min = Number(counted[1]);
      max = counted[2] === undefined ? min : counted[3] === '' ? Infinity : Number(counted[3]);
      if (min > MAX_PATTERN_REPEAT || (max !== Infinity && max > MAX_PATTERN_REPEAT)) {
        throw this.#refuse(`a counted repetition above ${MAX_PATTERN_REPEAT}`);
      }
    } else {
      return atom;
    }
    if (atom.kind === 'bol' || atom.kind === 'eol') throw this.#refuse('a quantified anchor');
    if (this.#peek() === '?') this.#position++; // lazy: the same texts match
    const after = this.#peek();
    if (after === '*' || after === '+' || after === '?' || after === '{') {
      if (after !== '{' || /^\{\d+(,\d*)?\}/.test(this.#source.slice(this.#position, this.#position + 16))) {
        throw this.#refuse('a quantifier on a quantifier');
      }
    }
    return { kind: 'repeat', node: atom, min, max };
  }

  #atom(): Node {
    const char = this.#peek() ?? '';
    this.#position++;
    switch (char) {
      case '^':
        return { kind: 'bol' };
      case '$':
        return { kind: 'eol' };
      case '.':
        return { kind: 'char', test: not(isLineEnd) };
      case '(':
        return this.#group();
      case '[':
        return { kind: 'char', test: caseless(this.#charClass()) };
      case '\\':
        return { kind: 'char', test: literalOrTest(this.#escape(false)) };
      case '*':
      case '+':
      case '?':
        throw this.#refuse('nothing to repeat');
      default:
        return { kind: 'char', test: literalOrTest(char.charCodeAt(0)) };
    }
  }

  #group(): Node {
    if (this.#peek() === '?') {
      const kind = this.#source.slice(this.#position, this.#position + 3);
      if (kind.startsWith('?:')) {
        this.#position += 2;
      } else if (/^\?<[A-Za-z_$]/.test(kind)) {
        const close = this.#source.indexOf('>', this.#position);
        if (close < 0) throw this.#refuse('an unterminated group name');
        this.#position = close + 1;
      } else {
        throw this.#refuse('lookarounds ((?=…), (?!…), (?<=…), (?<!…))');
      }
    }
    const inner = this.#alternation();
    if (this.#peek() !== ')') throw this.#refuse('an unterminated group');
    this.#position++;
    return inner;
  }

  /** One escape after `\`: the code unit it stands for, or a test for a set (`\d`, `\w`, `\s`, …). */
  #escape(inClass: boolean): number | CharTest {
    const char = this.#peek();
    if (char === undefined) throw this.#refuse('a trailing backslash');
    this.#position++;
    switch (char) {
      case 'd':
        return isDigit;
      case 'D':
        return not(isDigit);
      case 'w':
        return isWord;
      case 'W':
        return not(isWord);
      case 's':
        return isSpace;
      case 'S':
        return not(isSpace);
      case 'x':
      case 'u': {
        const length = char === 'x' ? 2 : 4;
        const digits = this.#source.slice(this.#position, this.#position + length);
        if (!new RegExp(`^[0-9a-fA-F]{${length}}$`).test(digits))
          throw this.#refuse(`\\${char} without ${length} hex digits`);
        this.#position += length;
        return Number.parseInt(digits, 16);
      }
      default: {
        const control = CONTROL_ESCAPES[char];
        if (control !== undefined && !(char === '0' && isDigit(this.#source.charCodeAt(this.#position)))) {
          return control;
        }
        if (/[A-Za-z0-9]/.test(char)) {
          throw this.#refuse(
            /[1-9]/.test(char) || char === 'k'
              ? 'backreferences'
              : `the escape \\${char}${inClass ? ' in a class' : ''} (word boundaries, \\p{…} and \\c are not supported)`,
          );
        }
        return char.charCodeAt(0);
      }
    }
  }

  /** A class after `[`, up to its `]`, as a test of one code unit (case folding is added by the caller). */
  #charClass(): CharTest {
    const negated = this.#peek() === '^';
    if (negated) this.#position++;
    const tests: CharTest[] = [];
    const ranges: [number, number][] = [];
    let first = true;
    for (;;) {
      const char = this.#peek();
      if (char === undefined) throw this.#refuse('an unterminated class');
      if (char === ']' && !first) break;
      first = false;
      const start = this.#classMember();
      if (
        typeof start === 'number' &&
        this.#peek() === '-' &&
        this.#peek(1) !== ']' &&
        this.#peek(1) !== undefined
      ) {
        this.#position++;
        const end = this.#classMember();
        if (typeof end !== 'number') throw this.#refuse('a range ending in a class escape');
        if (end < start) throw this.#refuse('a range out of order');
        ranges.push([start, end]);
      } else if (typeof start === 'number') {
        ranges.push([start, start]);
      } else {
        tests.push(start);
      }
    }
    this.#position++;
    const inClass: CharTest = (code) =>
      ranges.some(([low, high]) => code >= low && code <= high) || tests.some((test) => test(code));
    return negated ? (code) => !caseless(inClass)(code) : inClass;
  }

  /** One member of a class: a code unit, or a test for an escape such as `\d`. */
  #classMember(): number | CharTest {
    const char = this.#peek() ?? '';
    this.#position++;
    if (char !== '\\') return char.charCodeAt(0);
    const next = this.#peek();
    if (next === 'b') {
      this.#position++;
      return 8; // backspace inside a class
    }
    if (next === '-') {
      this.#position++;
      return 45;
    }
    return this.#escape(true);
  }
}
