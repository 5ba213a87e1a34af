/**
 * Exact Kuwaiti dinar (KWD) helpers through integer fils (1 KWD = 1000 fils). @module delivery-task-sdk/kwd
 */
import { describeAmount, filsToText, isKwdAmount, KWD_MAX_DIGITS, parseFils } from './schemas/fils.js';

export { KWD_MAX_DIGITS };

/** An amount in KWD: a finite number or decimal text (`"12.5"`, `"0.250"`), at most 3 decimals. */
export type KwdAmount = number | string;

export const FILS_PER_KWD = 1000;

function toSafeNumber(fils: bigint, what: string): number {
  if (fils > BigInt(Number.MAX_SAFE_INTEGER) || fils < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new RangeError(`${what} is outside the safe integer range of fils`);
  }
  return Number(fils);
}

function checkFils(fils: number | bigint): bigint {
  if (typeof fils === 'bigint') return fils;
  if (!Number.isSafeInteger(fils))
    throw new RangeError(`fils must be a safe integer, got ${describeAmount(fils)}`);
  return BigInt(fils);
}

/** Options of {@link kwd.format}. */
export interface KwdFormatOptions {
  /** BCP 47 locale. Default `'en-KW'`; `'ar-KW'` gives Arabic-Indic digits and the Arabic symbol. */
  locale?: string;
  /**
   * How the currency is shown, as `Intl.NumberFormat`'s `currencyDisplay`. Default `'code'` (`KWD 1.250`).
   */
  currencyDisplay?: 'code' | 'symbol' | 'narrowSymbol' | 'name';
}

const MAX_FORMATTERS = 16;
const MAX_LOCALE_LENGTH = 100;

const formatters = new Map<string, Intl.NumberFormat>();

/** `Intl`'s no-break spaces (U+00A0, U+202F), shown as the normal space a reader expects (`KWD 1.250`). */
const NO_BREAK_SPACE = /[\u00a0\u202f]/g;

/** Exact KWD money (README "KWD money"): in, numbers or text of ≤ 3 decimals; out, 3-decimal text. */
export const kwd = {
  /**
   * KWD → integer fils. `kwd.toFils('0.005') === 5`.
   * @throws {RangeError} for a non-finite amount, over 3 decimals or {@link KWD_MAX_DIGITS} digits, or beyond
   * ±2^53−1 fils.
   * @throws {TypeError} for a value that is neither number nor string.
   */
  toFils(amount: KwdAmount): number {
    return toSafeNumber(parseFils(amount), `KWD amount ${describeAmount(amount)}`);
  },

  /**
   * Integer fils → KWD text: `kwd.fromFils(1250) === '1.250'`. @throws {RangeError} for an unsafe integer or
   * too long a bigint.
   */
  fromFils(fils: number | bigint): string {
    return filsToText(checkFils(fils));
  },

  /**
   * KWD amount → number, for wire fields typed as numbers (top-up `amount`). @throws as {@link kwd.toFils}.
   */
  toNumber(amount: KwdAmount): number {
    return Number(filsToText(parseFils(amount)));
  },

  /**
   * Normalises an amount to decimal text with 3 decimals: `kwd.normalize(2.5) === '2.500'`. @throws as {@link
   * kwd.toFils}.
   */
  normalize(amount: KwdAmount): string {
    return filsToText(parseFils(amount));
  },

  /** True when `amount` is a finite KWD amount with at most 3 decimals (never throws). */
  isValid(amount: unknown): amount is KwdAmount {
    return isKwdAmount(amount);
  },

  /**
   * Exact sum of KWD amounts, as 3-decimal text. `kwd.add('0.1', 0.2) === '0.300'`. @throws as {@link
   * kwd.toFils}.
   */
  add(...amounts: KwdAmount[]): string {
    let total = 0n;
    for (const amount of amounts) total += parseFils(amount);
    return filsToText(total);
  },

  /** Exact difference `a − b`, as 3-decimal text (may be negative). @throws as {@link kwd.toFils}. */
  subtract(a: KwdAmount, b: KwdAmount): string {
    return filsToText(parseFils(a) - parseFils(b));
  },

  /**
   * Exact product of an amount and an integer count (e.g. fee × tasks), as 3-decimal text. @throws
   * {RangeError} for a non-integer count.
   */
  multiply(amount: KwdAmount, count: number): string {
    if (!Number.isSafeInteger(count))
      throw new RangeError(`count must be a safe integer, got ${describeAmount(count)}`);
    return filsToText(parseFils(amount) * BigInt(count));
  },

  /**
   * Compares two amounts exactly: −1 when `a < b`, 0 when equal, 1 when `a > b`. @throws as {@link
   * kwd.toFils}.
   */
  compare(a: KwdAmount, b: KwdAmount): -1 | 0 | 1 {
    const difference = parseFils(a) - parseFils(b);
    return difference < 0n ? -1 : difference > 0n ? 1 : 0;
  },

  /**
   * Formats exactly with `Intl.NumberFormat`, 3 decimals: `kwd.format(1.25) === 'KWD 1.250'`.
   * @throws as {@link kwd.toFils}; `RangeError` for an unknown locale or one over 100 characters; `TypeError`
   * for a non-text locale.
   */
  format(amount: KwdAmount, options: KwdFormatOptions = {}): string {
    const locale = options.locale ?? 'en-KW';
    const currencyDisplay = options.currencyDisplay ?? 'code';
    if (typeof locale !== 'string') throw new TypeError(`locale must be text, got ${typeof locale}`);
    if (locale.length > MAX_LOCALE_LENGTH) {
      throw new RangeError(`locale is longer than ${MAX_LOCALE_LENGTH} characters (${locale.length})`);
    }
    const key = `${locale}\u0000${currencyDisplay}`;
    let formatter = formatters.get(key);
    if (!formatter) {
      if (formatters.size >= MAX_FORMATTERS) formatters.delete(formatters.keys().next().value ?? '');
      formatter = new Intl.NumberFormat(locale, {
        style: 'currency',
        currency: 'KWD',
        currencyDisplay,
        minimumFractionDigits: 3,
        maximumFractionDigits: 3,
      });
      formatters.set(key, formatter);
    }
    return formatter.format(filsToText(parseFils(amount)) as `${number}`).replace(NO_BREAK_SPACE, ' ');
  },
} as const;
export { type KuwaitDay, kuwaitDay } from './kuwait-day.js';
