/** The order file's JSON syntax check: it finds an error exactly when `JSON.parse` refuses the text. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findJsonSyntaxError } from '../../src/cli/json-syntax.js';

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** JSON texts, then the same with one character changed, dropped or added: mostly malformed. */
const nearJson = fc
  .tuple(
    fc.json(),
    fc.nat(),
    fc.constantFrom('drop', 'insert', 'replace', 'keep'),
    fc.constantFrom(...'{}[],:"\\ \n\tx0-.eEtfn\u0001'),
  )
  .map(([text, at, edit, char]) => {
    const position = text.length === 0 ? 0 : at % text.length;
    if (edit === 'drop') return text.slice(0, position) + text.slice(position + 1);
    if (edit === 'insert') return text.slice(0, position) + char + text.slice(position);
    if (edit === 'replace') return text.slice(0, position) + char + text.slice(position + 1);
    return text;
  });

describe('findJsonSyntaxError', () => {
  it('finds an error exactly when JSON.parse refuses the text', () => {
    fc.assert(
      fc.property(fc.oneof(nearJson, fc.string()), (text) => {
        expect(findJsonSyntaxError(text) === undefined, JSON.stringify(text)).toBe(parses(text));
      }),
      { numRuns: 5000 },
    );
  });

  it('stops at the 65th level of a deeply nested file, naming where', () => {
    const deep = `${'['.repeat(500_000)}1${']'.repeat(499_999)}`;
    expect(findJsonSyntaxError(deep)).toEqual({
      line: 1,
      column: 65,
      reason: 'nested deeper than 64 levels',
    });
  });
});
