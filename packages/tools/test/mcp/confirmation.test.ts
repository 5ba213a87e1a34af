/** Confirmation tokens: bound to the exact arguments, single use, spent by a mismatch, expiring. */
import { expect, it } from 'vitest';
import { CONFIRMATION_TTL_MS, ConfirmationBook, canonicalJson } from '../../src/mcp/confirmation.js';

it('writes the same arguments as the same text whatever the key order', () => {
  expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: 3 }], c: undefined } })).toBe(
    '{"a":{"d":[1,{"e":3,"f":2}]},"b":1}',
  );
  expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }));
});

it('accepts a token once, for its arguments only, before it expires', () => {
  let now = 0;
  const book = new ConfirmationBook(() => now);
  const { token } = book.issue('{"a":1}');
  expect(book.take(token, '{"a":1}')).toBe('ok');
  expect(book.take(token, '{"a":1}')).toBe('used');
  const second = book.issue('{"a":1}').token;
  expect(book.take(second, '{"a":2}')).toBe('mismatch');
  expect(book.take(second, '{"a":1}')).toBe('used');
  const third = book.issue('{"a":1}').token;
  now += CONFIRMATION_TTL_MS + 1;
  expect(book.take(third, '{"a":1}')).toBe('expired');
  expect(book.take('cfm_unknown', '{"a":1}')).toBe('unknown');
});
