import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, parseJsonBody, UNSCANNED_JSON_CHARS } from '../../src/internal/json.js';

describe('response JSON parsing', () => {
  it('treats null members as absent but keeps nulls inside arrays', () => {
    expect(parseJsonBody('{"a":null,"b":{"c":null,"d":1},"e":[null,2]}')).toEqual({
      ok: true,
      value: { b: { d: 1 }, e: [null, 2] },
    });
  });

  it('drops __proto__ keys so no body can change a prototype', () => {
    const result = parseJsonBody('{"__proto__":{"polluted":true},"a":{"__proto__":{"x":1}}}');
    expect(result.ok).toBe(true);
    const value = (result as { value: Record<string, unknown> }).value;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(value.a)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reports text that is not JSON and reads an empty body as undefined', () => {
    expect(parseJsonBody('<html>').ok).toBe(false);
    expect(parseJsonBody('   ')).toEqual({ ok: true, value: undefined });
  });

  it('parses any JSON text without throwing', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(parseJsonBody(text).ok).toBe(true);
      }),
    );
  });

  it('parses JSON nested exactly 64 levels deep and refuses 65, brackets inside strings not counted', () => {
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    expect(parseJsonBody(nested(MAX_JSON_DEPTH)).ok).toBe(true);
    expect(parseJsonBody(nested(MAX_JSON_DEPTH + 1))).toEqual({
      ok: false,
      reason: 'nested deeper than 64 levels',
      tooDeep: true,
    });
    expect(parseJsonBody(JSON.stringify({ text: '['.repeat(500) })).ok).toBe(true);
    expect(parseJsonBody(JSON.stringify({ text: '\\"['.repeat(100) })).ok).toBe(true);
  });
});

describe('response JSON parsing, hostile shapes', () => {
  it('drops a __proto__ key written with \\u escapes', () => {
    const result = parseJsonBody('{"\\u005f_proto__":{"polluted":true},"a":1}');
    expect(result).toEqual({ ok: true, value: { a: 1 } });
    const value = (result as { value: object }).value;
    expect(Object.hasOwn(value, '__proto__')).toBe(false);
    expect(({ ...value } as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses a too-deep body the same on both sides of the length that is scanned before parsing', () => {
    const refused = { ok: false, reason: `nested deeper than ${MAX_JSON_DEPTH} levels`, tooDeep: true };
    for (const length of [UNSCANNED_JSON_CHARS - 2, UNSCANNED_JSON_CHARS, UNSCANNED_JSON_CHARS + 2]) {
      const brackets = length / 2;
      expect(parseJsonBody(`${'['.repeat(brackets)}${']'.repeat(brackets)}`), String(length)).toEqual(
        refused,
      );
      const deepInAnObject = `{"a":${'['.repeat(brackets - 4)}${']'.repeat(brackets - 4)}}`;
      expect(parseJsonBody(deepInAnObject), String(length)).toEqual(refused);
    }
  });

  it('refuses a body nested a million levels without overflowing the stack', () => {
    const depth = 1_000_000;
    expect(parseJsonBody(`${'['.repeat(depth)}${']'.repeat(depth)}`)).toMatchObject({
      ok: false,
      tooDeep: true,
    });
    expect(parseJsonBody(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`)).toMatchObject({
      ok: false,
      tooDeep: true,
    });
  });

  it('removes null members at any depth and keeps text that reads "null"', () => {
    expect(parseJsonBody('{"text":"null","n":null}')).toEqual({ ok: true, value: { text: 'null' } });
    expect(parseJsonBody('{"a":[{"b":null,"c":[null]}]}')).toEqual({
      ok: true,
      value: { a: [{ c: [null] }] },
    });
  });
});
