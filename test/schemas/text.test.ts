import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { isWellFormedText } from '../../src/schemas/text.js';

const native = Object.getOwnPropertyDescriptor(String.prototype, 'isWellFormed');

describe('isWellFormedText', () => {
  afterEach(() => {
    if (native) Object.defineProperty(String.prototype, 'isWellFormed', native);
  });

  it('is false exactly when the text has an unpaired surrogate', () => {
    expect(isWellFormedText('')).toBe(true);
    expect(isWellFormedText('abc 😀 دينار')).toBe(true);
    expect(isWellFormedText('a\uD800')).toBe(false);
    expect(isWellFormedText('\uDC00a')).toBe(false);
    expect(isWellFormedText('\uDE00\uD83D')).toBe(false);
  });

  it('agrees with String.prototype.isWellFormed on runtimes without it', () => {
    const texts: string[] = [];
    // UTF-16 code units, half of them surrogates (fc.string's 'binary' unit costs 1.3 s to set up, 20 s
    // with both cores busy).
    const unit = fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.integer({ min: 0xd800, max: 0xdfff }));
    const text = fc.array(unit, { maxLength: 12 }).map((units) => String.fromCharCode(...units));
    fc.assert(
      fc.property(text, (sample) => {
        texts.push(sample);
      }),
      { numRuns: 1000 },
    );
    texts.push('a\uD800', '\uDC00', '\uD83D\uDE00', '\uDE00\uD83D');
    const expected = texts.map((text) => text.isWellFormed());
    delete (String.prototype as { isWellFormed?: unknown }).isWellFormed;
    expect(texts.map((text) => isWellFormedText(text))).toEqual(expected);
  });
});
