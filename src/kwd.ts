/**
 * Kuwaiti dinar (KWD) money helpers.
 *
 * The dinar has three decimals: 1 KWD = 1000 fils. The service sends money as KWD, either as a
 * JSON number (`walletAmount`, `price`, top-up `amount`) or as decimal text (`totalAmount`,
 * `estimatedPrice`); spec § "Resources and their fields", § "Limits". These helpers convert exactly
 * between KWD and integer fils, so sums never pick up binary floating-point error
 * (`0.1 + 0.2 !== 0.3`, but `kwd.add('0.1', '0.2') === '0.300'`).
 *
 * @module
 */

/** An amount in KWD: a finite number or decimal text (`"12.5"`, `"0.250"`), at most 3 decimals. */
export type KwdAmount = number | string;

/** Fils in one KWD. */
export const FILS_PER_KWD = 1000;

const DECIMAL_TEXT = /^([+-]?)(\d+)(?:\.(\d+))?$/;
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

function describe(amount: unknown): string {
  if (typeof amount === 'string') return JSON.stringify(amount.length > 40 ? `${amount.slice(0, 40)}…` : amount);
  return String(amount);
}

/**
 * Parses a KWD amount into integer fils as a bigint, exactly.
 * @throws {TypeError} when `amount` is neither a number nor a string.
 * @throws {RangeError} when it is not finite, not decimal text, or has more than 3 decimals.
 */
function parseFils(amount: KwdAmount): bigint {
  let text: string;
  if (typeof amount === 'number') {
    if (!Number.isFinite(amount)) throw new RangeError(`KWD amount must be a finite number, got ${describe(amount)}`);
    text = numberToDecimalText(amount);
  } else if (typeof amount === 'string') {
    text = amount.trim();
  } else {
    throw new TypeError(`KWD amount must be a number or decimal text, got ${typeof amount}`);
  }
  const match = DECIMAL_TEXT.exec(text);
  if (!match) throw new RangeError(`KWD amount must be decimal text like "12.500", got ${describe(amount)}`);
  const [, sign = '', whole = '0', fraction = ''] = match;
  if (fraction.length > 3) {
    throw new RangeError(`KWD amount has more than 3 decimals (1 fils = 0.001 KWD): ${describe(amount)}`);
  }
  const fils = BigInt(whole) * 1000n + BigInt(fraction.padEnd(3, '0'));
  return sign === '-' ? -fils : fils;
}

function toSafeNumber(fils: bigint, what: string): number {
  if (fils > BigInt(Number.MAX_SAFE_INTEGER) || fils < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new RangeError(`${what} is outside the safe integer range of fils`);
  }
  return Number(fils);
}

function filsToText(fils: bigint): string {
  const negative = fils < 0n;
  const digits = (negative ? -fils : fils).toString().padStart(4, '0');
  const whole = digits.slice(0, -3).replace(LEADING_ZEROS, '');
  return `${negative ? '-' : ''}${whole}.${digits.slice(-3)}`;
}

function checkFils(fils: number | bigint): bigint {
  if (typeof fils === 'bigint') return fils;
  if (!Number.isSafeInteger(fils)) throw new RangeError(`fils must be a safe integer, got ${describe(fils)}`);
  return BigInt(fils);
}

/** Options of {@link kwd.format}. */
export interface KwdFormatOptions {
  /** BCP 47 locale. Default `'en-KW'`; `'ar-KW'` gives Arabic-Indic digits and the Arabic symbol. */
  locale?: string;
  /** How the currency is shown, as `Intl.NumberFormat`'s `currencyDisplay`. Default `'code'` (`KWD 1.250`). */
  currencyDisplay?: 'code' | 'symbol' | 'narrowSymbol' | 'name';
}

const formatters = new Map<string, Intl.NumberFormat>();

/**
 * KWD money helpers. Every function is exact: amounts are handled as integer fils internally.
 *
 * Amounts are accepted as numbers or decimal text with at most 3 decimals; results that are amounts
 * are decimal text with exactly 3 decimals (`"12.500"`), which is the form the service uses for
 * `totalAmount` and never loses a fils, whatever the size.
 */
export const kwd = {
  /**
   * KWD → integer fils. `kwd.toFils(1.25) === 1250`, `kwd.toFils('0.005') === 5`.
   * @throws {RangeError} for a non-finite amount, more than 3 decimals, or a result beyond ±2^53−1 fils.
   * @throws {TypeError} for a value that is neither number nor string.
   */
  toFils(amount: KwdAmount): number {
    return toSafeNumber(parseFils(amount), `KWD amount ${describe(amount)}`);
  },

  /**
   * Integer fils → KWD decimal text with 3 decimals. `kwd.fromFils(1250) === '1.250'`.
   * Exact for every safe integer (and any bigint): `kwd.toFils(kwd.fromFils(n)) === n`.
   * @throws {RangeError} when `fils` is not a safe integer.
   */
  fromFils(fils: number | bigint): string {
    return filsToText(checkFils(fils));
  },

  /**
   * KWD amount → JS number, for wire fields typed as numbers (top-up `amount`).
   * `kwd.toNumber('5.125') === 5.125`.
   * @throws {RangeError} / {TypeError} as {@link kwd.toFils}.
   */
  toNumber(amount: KwdAmount): number {
    return Number(filsToText(parseFils(amount)));
  },

  /** Normalises an amount to decimal text with 3 decimals: `kwd.normalize(2.5) === '2.500'`. @throws as {@link kwd.toFils}. */
  normalize(amount: KwdAmount): string {
    return filsToText(parseFils(amount));
  },

  /** True when `amount` is a finite KWD amount with at most 3 decimals (never throws). */
  isValid(amount: unknown): amount is KwdAmount {
    try {
      parseFils(amount as KwdAmount);
      return true;
    } catch {
      return false;
    }
  },

  /** Exact sum of KWD amounts, as 3-decimal text. `kwd.add('0.1', 0.2) === '0.300'`. @throws as {@link kwd.toFils}. */
  add(...amounts: KwdAmount[]): string {
    let total = 0n;
    for (const amount of amounts) total += parseFils(amount);
    return filsToText(total);
  },

  /** Exact difference `a − b`, as 3-decimal text (may be negative). @throws as {@link kwd.toFils}. */
  subtract(a: KwdAmount, b: KwdAmount): string {
    return filsToText(parseFils(a) - parseFils(b));
  },

  /** Exact product of an amount and an integer count (e.g. fee × tasks), as 3-decimal text. @throws {RangeError} for a non-integer count. */
  multiply(amount: KwdAmount, count: number): string {
    if (!Number.isSafeInteger(count)) throw new RangeError(`count must be a safe integer, got ${describe(count)}`);
    return filsToText(parseFils(amount) * BigInt(count));
  },

  /** Compares two amounts exactly: −1 when `a < b`, 0 when equal, 1 when `a > b`. @throws as {@link kwd.toFils}. */
  compare(a: KwdAmount, b: KwdAmount): -1 | 0 | 1 {
    const difference = parseFils(a) - parseFils(b);
    return difference < 0n ? -1 : difference > 0n ? 1 : 0;
  },

  /**
   * Formats an amount with `Intl.NumberFormat`, always 3 decimals.
   * `kwd.format(1.25) === 'KWD 1.250'`; `kwd.format(1.25, { locale: 'ar-KW' })` → `'‏١٫٢٥٠ د.ك.‏'`
   * (exact digits and symbol depend on the runtime's ICU data).
   * @throws as {@link kwd.toFils}.
   */
  format(amount: KwdAmount, options: KwdFormatOptions = {}): string {
    const locale = options.locale ?? 'en-KW';
    const currencyDisplay = options.currencyDisplay ?? 'code';
    const key = `${locale}\u0000${currencyDisplay}`;
    let formatter = formatters.get(key);
    if (!formatter) {
      formatter = new Intl.NumberFormat(locale, {
        style: 'currency',
        currency: 'KWD',
        currencyDisplay,
        minimumFractionDigits: 3,
        maximumFractionDigits: 3,
      });
      formatters.set(key, formatter);
    }
    // A decimal string keeps every fils exact, even beyond 2^53 (Intl.NumberFormat v3).
    return formatter.format(filsToText(parseFils(amount)) as `${number}`);
  },
} as const;
