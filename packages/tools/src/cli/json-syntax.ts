/** Where a JSON text first breaks the grammar (RFC 8259), as line and column. */

/** The first place a JSON text is malformed. */
export interface JsonSyntaxError {
  /** 1-based line. */
  readonly line: number;
  /** 1-based column, in UTF-16 code units. */
  readonly column: number;
  /** What was found there, in words (`unexpected "F"`, `unexpected end of file`). */
  readonly reason: string;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;
/** Whitespace between tokens (zero or more, so `lastIndex` moves past it). */
const WHITESPACE = /[ \t\n\r]*/y;
/** The characters of a string up to its end, an escape or a control character. */
// A JSON string may not hold a raw control character, so a run stops at one.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are the point
const STRING_RUN = /[^"\\\u0000-\u001f]*/y;
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

/** What the scanner expects next. */
const VALUE = 0;
const VALUE_OR_END = 1;
const KEY = 2;
const KEY_OR_END = 3;
const COLON = 4;
const COMMA_OR_END = 5;

/** Deepest nesting scanned: an order file nests 3 levels; past this the answer is the nesting itself. */
const MAX_SCANNED_DEPTH = 64;

/** Line and column of `offset` in `text`. */
function positionOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let index = text.indexOf('\n'); index >= 0 && index < offset; index = text.indexOf('\n', index + 1)) {
    line++;
    lineStart = index + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * The first syntax error of `text`, or `undefined` when it is well-formed JSON.
 * @param text the whole document, without a byte-order mark.
 */
export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const length = text.length;
  const closers: number[] = [];
  let expected = VALUE;
  let index = 0;
  const fail = (offset: number, reason?: string): JsonSyntaxError => ({
    ...positionOf(text, offset),
    reason:
      reason ??
      (offset >= length
        ? 'unexpected end of file'
        : `unexpected ${JSON.stringify(text[offset])}${expected === KEY || expected === KEY_OR_END ? ', expected a property name in double quotes' : ''}`),
  });
  /** The end of the string starting at `start` (a `"`), or the error inside it. */
  const scanString = (start: number): number | JsonSyntaxError => {
    // The runs between escapes are searched by the regular-expression engine, not character by character.
    for (let at = start + 1; ; ) {
      STRING_RUN.lastIndex = at;
      STRING_RUN.test(text);
      at = STRING_RUN.lastIndex;
      if (at >= length) return fail(length, 'unexpected end of file inside a string');
      const code = text.charCodeAt(at);
      if (code === 0x22) return at + 1;
      if (code < 0x20) return fail(at, 'a control character inside a string (escape it, as \\n or \\u0001)');
      const escaped = text[at + 1] ?? '';
      if (escaped === 'u') {
        if (!HEX4.test(text.slice(at + 2, at + 6))) return fail(at, 'a \\u escape without 4 hex digits');
        at += 6;
      } else if (ESCAPES.has(escaped)) {
        at += 2;
      } else {
        return fail(at, `an invalid escape \\${escaped}`);
      }
    }
  };
  for (;;) {
    WHITESPACE.lastIndex = index;
    WHITESPACE.test(text);
    index = WHITESPACE.lastIndex;
    const code = text.charCodeAt(index);
    if (index >= length) return closers.length === 0 && expected === COMMA_OR_END ? undefined : fail(length);
    if (expected === VALUE || expected === VALUE_OR_END) {
      if (expected === VALUE_OR_END && code === 0x5d) {
        closers.pop();
        index++;
        expected = COMMA_OR_END;
      } else if (code === 0x7b || code === 0x5b) {
        if (closers.length >= MAX_SCANNED_DEPTH)
          return fail(index, `nested deeper than ${MAX_SCANNED_DEPTH} levels`);
        closers.push(code === 0x7b ? 0x7d : 0x5d);
        index++;
        expected = code === 0x7b ? KEY_OR_END : VALUE_OR_END;
      } else {
        if (code === 0x22) {
          const end = scanString(index);
          if (typeof end !== 'number') return end;
          index = end;
        } else if (text.startsWith('true', index) || text.startsWith('null', index)) {
          index += 4;
        } else if (text.startsWith('false', index)) {
          index += 5;
        } else {
          NUMBER.lastIndex = index;
          if (!NUMBER.test(text)) return fail(index);
          index = NUMBER.lastIndex;
        }
        expected = COMMA_OR_END;
      }
    } else if (expected === KEY || expected === KEY_OR_END) {
      if (expected === KEY_OR_END && code === 0x7d) {
        closers.pop();
        index++;
        expected = COMMA_OR_END;
      } else {
        if (code !== 0x22) return fail(index);
        const end = scanString(index);
        if (typeof end !== 'number') return end;
        index = end;
        expected = COLON;
      }
    } else if (expected === COLON) {
      if (code !== 0x3a) return fail(index, `unexpected ${JSON.stringify(text[index])}, expected ":"`);
      index++;
      expected = VALUE;
    } else {
      const closer = closers[closers.length - 1];
      if (closer === undefined) {
        return fail(index, `unexpected ${JSON.stringify(text[index])} after the end of the JSON value`);
      }
      if (code === 0x2c) {
        index++;
        expected = closer === 0x7d ? KEY : VALUE;
      } else if (code === closer) {
        closers.pop();
        index++;
      } else {
        return fail(
          index,
          `unexpected ${JSON.stringify(text[index])}, expected "," or "${String.fromCharCode(closer)}"`,
        );
      }
    }
  }
}
