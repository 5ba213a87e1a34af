/**
 * Where a JSON text first breaks the grammar (RFC 8259), as line and column: `JSON.parse`'s own messages
 * often give no position (`Unexpected token 'F', …`). Run only after `JSON.parse` has refused the text;
 * one pass with an explicit stack, so a deeply nested file costs no call depth.
 * @module
 */

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
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

type Expected = 'value' | 'value-or-end' | 'key' | 'key-or-end' | 'colon' | 'comma-or-end';

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
  const closers: string[] = [];
  let expected: Expected = 'value';
  let index = 0;
  const fail = (offset: number, reason?: string): JsonSyntaxError => ({
    ...positionOf(text, offset),
    reason:
      reason ??
      (offset >= length
        ? 'unexpected end of file'
        : `unexpected ${JSON.stringify(text[offset])}${expected === 'key' || expected === 'key-or-end' ? ', expected a property name in double quotes' : ''}`),
  });
  /** The end of the string starting at `start` (a `"`), or the error inside it. */
  const scanString = (start: number): number | JsonSyntaxError => {
    for (let at = start + 1; at < length; at++) {
      const code = text.charCodeAt(at);
      if (code === 0x22) return at + 1;
      if (code < 0x20) return fail(at, 'a control character inside a string (escape it, as \\n or \\u0001)');
      if (code === 0x5c) {
        const escaped = text[at + 1] ?? '';
        if (escaped === 'u') {
          if (!HEX4.test(text.slice(at + 2, at + 6))) return fail(at, 'a \\u escape without 4 hex digits');
          at += 5;
        } else if (ESCAPES.has(escaped)) {
          at++;
        } else {
          return fail(at, `an invalid escape \\${escaped}`);
        }
      }
    }
    return fail(length, 'unexpected end of file inside a string');
  };
  for (;;) {
    while (index < length && /[ \t\n\r]/.test(text[index] ?? '')) index++;
    if (index >= length) return closers.length === 0 && expected === 'comma-or-end' ? undefined : fail(length);
    const char = text[index];
    switch (expected) {
      case 'value-or-end':
      case 'value': {
        if (expected === 'value-or-end' && char === ']') {
          closers.pop();
          index++;
          expected = 'comma-or-end';
          break;
        }
        if (char === '{' || char === '[') {
          closers.push(char === '{' ? '}' : ']');
          index++;
          expected = char === '{' ? 'key-or-end' : 'value-or-end';
          break;
        }
        if (char === '"') {
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
        expected = 'comma-or-end';
        break;
      }
      case 'key-or-end':
      case 'key': {
        if (expected === 'key-or-end' && char === '}') {
          closers.pop();
          index++;
          expected = 'comma-or-end';
          break;
        }
        if (char !== '"') return fail(index);
        const end = scanString(index);
        if (typeof end !== 'number') return end;
        index = end;
        expected = 'colon';
        break;
      }
      case 'colon':
        if (char !== ':') return fail(index, `unexpected ${JSON.stringify(char)}, expected ":"`);
        index++;
        expected = 'value';
        break;
      default: {
        const closer = closers.at(-1);
        if (closer === undefined)
          return fail(index, `unexpected ${JSON.stringify(char)} after the end of the JSON value`);
        if (char === ',') {
          index++;
          expected = closer === '}' ? 'key' : 'value';
        } else if (char === closer) {
          closers.pop();
          index++;
        } else {
          return fail(index, `unexpected ${JSON.stringify(char)}, expected "," or "${closer}"`);
        }
      }
    }
  }
}
