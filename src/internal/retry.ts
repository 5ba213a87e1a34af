/**
 * When and how long to wait before trying a request again.
 *
 * - What is retried is decided in `failure.ts`; this module only says how long to wait.
 * - The wait: `retry-after-ms` (ms) wins, else `Retry-After`, when it is between 0 and
 *   {@link MAX_RETRY_AFTER_MS}; otherwise exponential backoff with jitter:
 *   `min(500 ms × 2^(retry−1), 8 s)`, scaled by a random factor in [0.5, 1].
 * - Readable values only: `retry-after-ms` as a non-negative decimal number (`250`, `12.5`);
 *   `Retry-After` as a whole number of seconds (`/^\d+$/`) or an HTTP date in one of the three forms of
 *   RFC 9110 § 5.6.7, read as GMT. Anything else (`-1`, `1.5`, `1e3`, `0x10`, an ISO date, a date
 *   that does not exist) is ignored and the normal backoff applies.
 */

/** The longest server-requested wait honoured, in ms; a longer one falls back to the normal backoff. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** First backoff step in ms. */
export const INITIAL_BACKOFF_MS = 500;
/** Largest backoff step in ms (before jitter). */
export const MAX_BACKOFF_MS = 8_000;

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(?<month>${MONTHS.join('|')})`;
const TIME = '(?<hours>\\d{2}):(?<minutes>\\d{2}):(?<seconds>\\d{2})';
/**
 * The three forms of an HTTP date: IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT` (the preferred one),
 * RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT` and asctime `Sun Nov  6 08:49:37 1994` (GMT implied).
 */
const HTTP_DATES = [
  new RegExp(`^${DAY}, (?<day>\\d{2}) ${MONTH} (?<year>\\d{4}) ${TIME} GMT$`),
  new RegExp(`^${LONG_DAY}, (?<day>\\d{2})-${MONTH}-(?<year>\\d{2}) ${TIME} GMT$`),
  new RegExp(`^${DAY} ${MONTH} (?<day> \\d|\\d{2}) ${TIME} (?<year>\\d{4})$`),
];

/**
 * An HTTP date (RFC 9110 § 5.6.7) in ms since the epoch, or `undefined` when the text is not in one of
 * its three forms or names a moment that does not exist (31 Feb, 25:00). `now` places a two-digit year.
 */
export function parseHttpDate(text: string, now: number = Date.now()): number | undefined {
  const parts = HTTP_DATES.map((format) => format.exec(text)?.groups).find((groups) => groups !== undefined);
  if (parts === undefined) return undefined;
  const [day, month, hours, minutes, seconds] = [
    Number(parts.day),
    MONTHS.indexOf(parts.month ?? ''),
    Number(parts.hours),
    Number(parts.minutes),
    Number(parts.seconds),
  ];
  let year = Number(parts.year);
  if (parts.year?.length === 2) {
    // A two-digit year more than 50 years ahead means the most recent past year ending so (RFC 9110).
    const thisYear = new Date(now).getUTCFullYear();
    year += Math.floor(thisYear / 100) * 100;
    if (year > thisYear + 50) year -= 100;
  }
  if (hours > 23 || minutes > 59 || seconds > 60) return undefined;
  // A leap second (:60) reads as :59.
  const ms = Date.UTC(year, month, day, hours, minutes, Math.min(seconds, 59));
  // Date.UTC rolls over (31 Feb → 3 Mar): a date that changed is one that does not exist.
  const check = new Date(ms);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month || check.getUTCDate() !== day) return undefined;
  return ms;
}

/**
 * The server-requested wait in ms from `retry-after-ms` or `Retry-After`, when present, readable (see
 * the module notes) and within 0…{@link MAX_RETRY_AFTER_MS}; `undefined` means "use the normal backoff".
 * A date in the past reads as 0.
 */
export function retryAfterMs(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const inRange = (ms: number) => (Number.isFinite(ms) && ms >= 0 && ms <= MAX_RETRY_AFTER_MS ? ms : undefined);
  const milliseconds = headers.get('retry-after-ms')?.trim();
  if (milliseconds !== undefined && /^\d+(\.\d+)?$/.test(milliseconds)) {
    const parsed = inRange(Number(milliseconds));
    if (parsed !== undefined) return parsed;
  }
  const value = headers.get('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return inRange(Number(value) * 1000);
  const date = parseHttpDate(value, now);
  return date === undefined ? undefined : inRange(Math.max(0, date - now));
}

/** Exponential backoff with jitter for the given retry (1 for the first retry), in ms. */
export function backoffMs(retry: number, random: () => number = Math.random): number {
  const base = Math.min(INITIAL_BACKOFF_MS * 2 ** Math.max(0, retry - 1), MAX_BACKOFF_MS);
  return Math.round(base * (0.5 + random() * 0.5));
}

/** The wait before the given retry: the server's request when usable, else {@link backoffMs}. */
export function retryDelayMs(retry: number, headers?: Headers, random?: () => number): number {
  return retryAfterMs(headers) ?? backoffMs(retry, random);
}
