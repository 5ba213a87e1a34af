import fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { FILS_PER_KWD, KWD_MAX_DIGITS, type KwdAmount, kwd } from '../src/kwd.js';

/** Decimal text of an integer number of fils, built independently of the module under test. */
function textOf(fils: bigint): string {
  const sign = fils < 0n ? '-' : '';
  const magnitude = fils < 0n ? -fils : fils;
  return `${sign}${magnitude / 1000n}.${(magnitude % 1000n).toString().padStart(3, '0')}`;
}

describe('kwd', () => {
  it('converts KWD numbers and text to fils exactly', () => {
    expect(kwd.toFils(1.25)).toBe(1250);
    expect(kwd.toFils('0.005')).toBe(5);
    expect(kwd.toFils('12')).toBe(12_000);
    expect(kwd.toFils('-3.5')).toBe(-3500);
    expect(kwd.toFils(' 7.1 ')).toBe(7100);
    expect(FILS_PER_KWD).toBe(1000);
  });

  it('round-trips every safe integer of fils through KWD text', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (fils) => {
        expect(kwd.toFils(kwd.fromFils(fils))).toBe(fils);
      }),
      { numRuns: 2000 },
    );
  });

  it('formats fils as text with exactly three decimals', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (fils) => {
        expect(kwd.fromFils(fils)).toBe(textOf(BigInt(fils)));
      }),
    );
  });

  it('sums amounts to the sum of their fils, with no float error', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1e12, max: 1e12 }), { maxLength: 30 }), (filsList) => {
        const amounts = filsList.map((fils) => kwd.fromFils(fils));
        const expected = filsList.reduce((sum, fils) => sum + BigInt(fils), 0n);
        expect(kwd.add(...amounts)).toBe(textOf(expected));
      }),
    );
    expect(kwd.add('0.1', 0.2)).toBe('0.300');
    expect(0.1 + 0.2).not.toBe(0.3);
  });

  it('subtracts and compares exactly', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), fc.maxSafeInteger(), (a, b) => {
        expect(kwd.subtract(kwd.fromFils(a), kwd.fromFils(b))).toBe(textOf(BigInt(a) - BigInt(b)));
        expect(kwd.compare(kwd.fromFils(a), kwd.fromFils(b))).toBe(Math.sign(a - b) || 0);
      }),
    );
    expect(kwd.compare('1.000', 1)).toBe(0);
    expect(kwd.multiply('0.750', 3)).toBe('2.250');
  });

  it('accepts numbers with up to three decimals and rejects more', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e9, max: 1e9 }), (fils) => {
        expect(kwd.toFils(fils / 1000)).toBe(fils);
      }),
    );
    expect(() => kwd.toFils(0.1 + 0.2)).toThrow(RangeError);
    expect(() => kwd.toFils('1.2345')).toThrow(/more than 3 decimals/);
    expect(() => kwd.toFils(1e-7)).toThrow(RangeError);
  });

  it('rejects non-zero amounts too small for toFixed (1e-21, 5e-324) like any other extra decimals', () => {
    for (const tiny of [1e-21, -1e-21, 5e-324, 2.5e-100, 1.5e-7]) {
      expect(() => kwd.toFils(tiny)).toThrow(/more than 3 decimals/);
      expect(kwd.isValid(tiny)).toBe(false);
    }
    expect(kwd.toFils(1.5e-3 * 2)).toBe(3);
    expect(kwd.toFils(-0)).toBe(0);
    // Any non-zero d × 10^-n with n ≥ 21 is refused, however many zeros come first.
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 21, max: 300 }), (digit, places) => {
        expect(kwd.isValid(Number(`${digit}e-${places}`))).toBe(false);
      }),
    );
  });

  it('rejects non-finite numbers, non-decimal text and other types', () => {
    for (const bad of [
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      '',
      'abc',
      '1,5',
      '1e3',
      '0x10',
      '.5.',
    ]) {
      expect(() => kwd.toFils(bad), String(bad)).toThrow(RangeError);
      expect(kwd.isValid(bad)).toBe(false);
    }
    expect(() => kwd.toFils(null as unknown as KwdAmount)).toThrow(TypeError);
    expect(() => kwd.fromFils(1.5)).toThrow(RangeError);
    expect(() => kwd.toFils('9007199254740992')).toThrow(/safe integer/);
  });

  it('converts amounts to numbers for numeric wire fields', () => {
    expect(kwd.toNumber('5.125')).toBe(5.125);
    expect(kwd.normalize(2.5)).toBe('2.500');
  });

  it('formats with Intl for en-KW and ar-KW with three decimals', () => {
    const english = kwd.format(1234.5);
    expect(english).toContain('1,234.500');
    expect(english).toContain('KWD');
    const arabic = kwd.format('1.25', { locale: 'ar-KW', currencyDisplay: 'symbol' });
    expect(arabic).toContain('١٫٢٥٠');
    expect(arabic).toContain('د.ك');
    // Exact beyond 2^53 fils: no rounding to the nearest double.
    expect(kwd.format('9007199254740.991')).toContain('9,007,199,254,740.991');
  });

  it('puts a normal space between the code and the number, as the README shows', () => {
    expect(kwd.format(1.25)).toBe('KWD 1.250');
    expect(kwd.format(1234.5)).toBe('KWD 1,234.500');
    expect(kwd.format('1.25', { locale: 'ar-KW', currencyDisplay: 'symbol' })).not.toContain('\u00a0');
  });

  it(`accepts up to ${KWD_MAX_DIGITS} digits before the point and refuses more, in every function`, () => {
    const largest = `${'9'.repeat(KWD_MAX_DIGITS)}.999`;
    expect(kwd.normalize(largest)).toBe(largest);
    expect(kwd.isValid(largest)).toBe(true);
    const over = `1${'0'.repeat(KWD_MAX_DIGITS)}`;
    const calls: [string, () => unknown][] = [
      ['toFils', () => kwd.toFils(over)],
      ['toNumber', () => kwd.toNumber(over)],
      ['normalize', () => kwd.normalize(over)],
      ['add', () => kwd.add('1', over)],
      ['subtract', () => kwd.subtract(over, '1')],
      ['multiply', () => kwd.multiply(over, 1)],
      ['compare', () => kwd.compare('1', over)],
      ['format', () => kwd.format(over)],
      ['fromFils', () => kwd.fromFils(10n ** BigInt(KWD_MAX_DIGITS + 3))],
      ['number', () => kwd.normalize(1e300)],
      ['huge text', () => kwd.normalize('1'.repeat(1_000_000))],
      ['padded text', () => kwd.normalize(`${' '.repeat(1_000_000)}1`)],
    ];
    for (const [name, call] of calls) expect(call, name).toThrow(new RegExp(`${KWD_MAX_DIGITS}`));
    expect(kwd.isValid(over)).toBe(false);
    expect(kwd.isValid(Number.MAX_VALUE)).toBe(false);
    // A result past the maximum is refused too, so every result can be read back.
    expect(() => kwd.add(largest, '0.001')).toThrow(RangeError);
    expect(() => kwd.multiply(largest, 2)).toThrow(RangeError);
  });

  it('formats every accepted amount exactly, the largest included', () => {
    fc.assert(
      fc.property(
        fc.bigInt({
          min: -(10n ** BigInt(KWD_MAX_DIGITS + 3)) + 1n,
          max: 10n ** BigInt(KWD_MAX_DIGITS + 3) - 1n,
        }),
        (fils) => {
          const text = textOf(fils);
          const formatted = kwd.format(text);
          expect(formatted.replace(/[^0-9.-]/g, '')).toBe(text);
        },
      ),
      { numRuns: 300 },
    );
    expect(kwd.format(`${'9'.repeat(KWD_MAX_DIGITS)}.999`)).not.toContain('∞');
  });

  it('refuses a locale that is not text or is longer than a language tag can be', () => {
    expect(() => kwd.format(1, { locale: 'x'.repeat(1_000_000) })).toThrow(RangeError);
    expect(() => kwd.format(1, { locale: 42 as unknown as string })).toThrow(TypeError);
  });

  it('types amounts as numbers or text', () => {
    expectTypeOf(kwd.toFils).parameter(0).toEqualTypeOf<KwdAmount>();
    expectTypeOf(kwd.add).returns.toEqualTypeOf<string>();
  });
});
