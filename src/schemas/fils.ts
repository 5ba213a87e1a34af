/** Exact KWD amounts as integer fils (README "KWD money"): the core of `kwd`. @module */
import { decimalText } from './decimal-text.js';

const DECIMAL_TEXT = /^([+-]?)(\d+)(?:\.(\d+))?$/;

/**
 * Most digits before the decimal point (100); past it amounts are refused (`RangeError`), keeping work
 * bounded.
 */
export const KWD_MAX_DIGITS = 100;

const MAX_AMOUNT_TEXT = KWD_MAX_DIGITS + 28;

const FILS_LIMIT = 10n ** BigInt(KWD_MAX_DIGITS + 3);

const TOO_MANY_DIGITS = `KWD amount has more than ${KWD_MAX_DIGITS} digits before the decimal point`;
const LEADING_ZEROS = /^0+(?=\d)/;

/**
 * Shortest decimal text for a finite number, exponent forms expanded (`5e-324` never reads as 0); from
 * 1e21 up, the exact integer the number holds.
 */
function numberToDecimalText(value: number): string {
  return Math.abs(value) >= 1e21 ? BigInt(value).toString() : decimalText(value);
}

/** An amount as an error message shows it: text quoted and cut at 40 characters, anything else as is. */
export function describeAmount(amount: unknown): string {
  if (typeof amount === 'string')
    return JSON.stringify(amount.length > 40 ? `${amount.slice(0, 40)}…` : amount);
  return String(amount);
}

/**
 * A KWD amount (number or decimal text) → integer fils, exactly. @throws {TypeError} for a non-number
 * non-string.
 * @throws {RangeError} when not finite, not decimal text, over 3 decimals or {@link KWD_MAX_DIGITS} digits.
 */
export function parseFils(amount: number | string): bigint {
  let text: string;
  if (typeof amount === 'number') {
    if (!Number.isFinite(amount)) {
      throw new RangeError(`KWD amount must be a finite number, got ${describeAmount(amount)}`);
    }
    text = numberToDecimalText(amount);
  } else if (typeof amount === 'string') {
    if (amount.length > MAX_AMOUNT_TEXT) {
      throw new RangeError(
        `${TOO_MANY_DIGITS} (text of ${amount.length} characters, ${MAX_AMOUNT_TEXT} at most)`,
      );
    }
    text = amount.trim();
  } else {
    throw new TypeError(`KWD amount must be a number or decimal text, got ${typeof amount}`);
  }
  const match = DECIMAL_TEXT.exec(text);
  if (!match)
    throw new RangeError(`KWD amount must be decimal text like "12.500", got ${describeAmount(amount)}`);
  const [, sign = '', whole = '0', fraction = ''] = match;
  if (whole.length > KWD_MAX_DIGITS) throw new RangeError(`${TOO_MANY_DIGITS}: ${describeAmount(amount)}`);
  if (fraction.length > 3) {
    throw new RangeError(
      `KWD amount has more than 3 decimals (1 fils = 0.001 KWD): ${describeAmount(amount)}`,
    );
  }
  const fils = BigInt(whole) * 1000n + BigInt(fraction.padEnd(3, '0'));
  return sign === '-' ? -fils : fils;
}

/**
 * True when `amount` is a finite KWD amount (number or decimal text) with at most 3 decimals; never throws.
 */
export function isKwdAmount(amount: unknown): amount is number | string {
  try {
    parseFils(amount as number | string);
    return true;
  } catch {
    return false;
  }
}

/**
 * Fils → 3-decimal KWD text (`1250n` → `'1.250'`). @throws {RangeError} past {@link KWD_MAX_DIGITS} digits.
 */
export function filsToText(fils: bigint): string {
  const negative = fils < 0n;
  const magnitude = negative ? -fils : fils;
  // Compared first: writing out a bigint of a million digits takes seconds.
  if (magnitude >= FILS_LIMIT) throw new RangeError(`${TOO_MANY_DIGITS} (a result or fils value)`);
  const digits = magnitude.toString().padStart(4, '0');
  const whole = digits.slice(0, -3).replace(LEADING_ZEROS, '');
  return `${negative ? '-' : ''}${whole}.${digits.slice(-3)}`;
}
