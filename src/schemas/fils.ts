/**
 * Exact KWD amounts as integer fils (1 KWD = 1000 fils): parsing an amount and writing fils back as
 * decimal text. The core of the public `kwd` helpers (README "KWD money"), in a module of its own so the schemas'
 * `KwdNumber` check imports the parser alone: an app that only uses the client does not carry the
 * whole `kwd` object.
 * @module
 */

const DECIMAL_TEXT = /^([+-]?)(\d+)(?:\.(\d+))?$/;

/**
 * The most digits a KWD amount may have before the decimal point (100). Beyond it every `kwd` function,
 * and the check of KWD wire fields, refuses the amount (`RangeError`), so the work an amount causes stays
 * bounded and `kwd.format` stays exact (`Intl.NumberFormat` turns 309 digits or more into `∞`).
 */
export const KWD_MAX_DIGITS = 100;

/** Longest amount text read, surrounding whitespace included: the digits, a sign, a point, 3 decimals and some spaces. */
const MAX_AMOUNT_TEXT = KWD_MAX_DIGITS + 28;

/** The first amount in fils past {@link KWD_MAX_DIGITS} digits before the point. */
const FILS_LIMIT = 10n ** BigInt(KWD_MAX_DIGITS + 3);

const TOO_MANY_DIGITS = `KWD amount has more than ${KWD_MAX_DIGITS} digits before the decimal point`;
const LEADING_ZEROS = /^0+(?=\d)/;

/**
 * Shortest decimal text for a finite number, expanding exponent forms such as `1e-7` or `1e21`. Small
 * exponent forms are expanded digit by digit from the shortest text (`5e-324` → `0.000…005`), so a
 * tiny non-zero amount never reads as 0 (`toFixed` stops at 20 decimals).
 */
function numberToDecimalText(value: number): string {
  const text = String(value);
  if (!/e/i.test(text)) return text;
  // Above 1e21 no fractional part can exist: the exact integer value.
  if (Math.abs(value) >= 1e21) return BigInt(value).toString();
  const [mantissa = '', exponent = '0'] = text.toLowerCase().split('e');
  const sign = mantissa.startsWith('-') ? '-' : '';
  const [whole = '', fraction = ''] = mantissa.replace('-', '').split('.');
  const digits = whole + fraction;
  const point = whole.length + Number(exponent);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** An amount as an error message shows it: text quoted and cut at 40 characters, anything else as is. */
export function describeAmount(amount: unknown): string {
  if (typeof amount === 'string') return JSON.stringify(amount.length > 40 ? `${amount.slice(0, 40)}…` : amount);
  return String(amount);
}

/**
 * Parses a KWD amount (a number, or decimal text) into integer fils as a bigint, exactly.
 * @throws {TypeError} when `amount` is neither a number nor a string.
 * @throws {RangeError} when it is not finite, not decimal text, has more than 3 decimals, or more than
 * {@link KWD_MAX_DIGITS} digits before the point (text: over 128 characters).
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
      throw new RangeError(`${TOO_MANY_DIGITS} (text of ${amount.length} characters, ${MAX_AMOUNT_TEXT} at most)`);
    }
    text = amount.trim();
  } else {
    throw new TypeError(`KWD amount must be a number or decimal text, got ${typeof amount}`);
  }
  const match = DECIMAL_TEXT.exec(text);
  if (!match) throw new RangeError(`KWD amount must be decimal text like "12.500", got ${describeAmount(amount)}`);
  const [, sign = '', whole = '0', fraction = ''] = match;
  if (whole.length > KWD_MAX_DIGITS) throw new RangeError(`${TOO_MANY_DIGITS}: ${describeAmount(amount)}`);
  if (fraction.length > 3) {
    throw new RangeError(`KWD amount has more than 3 decimals (1 fils = 0.001 KWD): ${describeAmount(amount)}`);
  }
  const fils = BigInt(whole) * 1000n + BigInt(fraction.padEnd(3, '0'));
  return sign === '-' ? -fils : fils;
}

/** True when `amount` is a finite KWD amount (number or decimal text) with at most 3 decimals; never throws. */
export function isKwdAmount(amount: unknown): amount is number | string {
  try {
    parseFils(amount as number | string);
    return true;
  } catch {
    return false;
  }
}

/**
 * Integer fils → KWD decimal text with exactly 3 decimals (`1250n` → `'1.250'`).
 * @throws {RangeError} when the amount has more than {@link KWD_MAX_DIGITS} digits before the point.
 */
export function filsToText(fils: bigint): string {
  const negative = fils < 0n;
  const magnitude = negative ? -fils : fils;
  // Compared before writing it out: turning a bigint of a million digits into text alone takes seconds.
  if (magnitude >= FILS_LIMIT) throw new RangeError(`${TOO_MANY_DIGITS} (a result or fils value)`);
  const digits = magnitude.toString().padStart(4, '0');
  const whole = digits.slice(0, -3).replace(LEADING_ZEROS, '');
  return `${negative ? '-' : ''}${whole}.${digits.slice(-3)}`;
}
