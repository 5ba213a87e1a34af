/**
 * How long to wait before another attempt (what is retried: `failure.ts`): `retry-after-ms`, else
 * `Retry-After` (whole seconds or an HTTP date), within 0…{@link MAX_RETRY_AFTER_MS}; otherwise
 * `min(500 ms × 2^(retry−1), 8 s)` scaled by a random factor in [0.5, 1]. Unreadable values are ignored.
 * {@link RetryRules} is the one policy of the transport (through ky, {@link KY_RETRY}), a create's resends
 * and an order lookup's page requests.
 */
import type { RetryOptions } from 'ky';
import { APIError } from '../core/errors.js';
import { isRetryable } from './failure.js';

/** How a request is retried: how many times, which failures, the wait before each retry. */
export interface RetryRules {
  /** Retries after the first attempt (`maxRetries`, 0…10). */
  readonly limit: number;
  /** Whether a failure is worth another attempt: not sent, not processed or ambiguous (`failure.ts`). */
  readonly retries: (failure: unknown) => boolean;
  /**
   * The wait in ms before retry `retry` (1 for the first) after `failure`: an `APIError`'s `retry-after-ms`
   * or `Retry-After` when usable, else {@link backoffMs}.
   */
  readonly delayMs: (retry: number, failure: unknown) => number;
}

/** The retry rules allowing `limit` retries. */
export function retryRules(limit: number): RetryRules {
  return { limit, retries: isRetryable, delayMs: failureDelayMs };
}

function failureDelayMs(retry: number, failure: unknown): number {
  return retryAfterMs(failure instanceof APIError ? failure.headers : undefined) ?? backoffMs(retry);
}

/**
 * {@link RetryRules} as ky's `retry` for the transport, the `limit` given per call: each failure the rules
 * retry, of a GET or a POST (whether an operation retries at all is its limit). ky does not wait: ky waits on
 * its own `signal` only, so the transport waits `delayMs` in `beforeRetry`, on the call's signal.
 */
export const KY_RETRY: RetryOptions = {
  methods: ['get', 'post'],
  shouldRetry: ({ error }) => isRetryable(error),
  delay: () => 0,
};

/** The longest server-requested wait honoured, in ms; a longer one falls back to the normal backoff. */
export const MAX_RETRY_AFTER_MS = 60_000;

export const INITIAL_BACKOFF_MS = 500;
export const MAX_BACKOFF_MS = 8_000;

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(?<month>${MONTHS.join('|')})`;
const TIME = '(?<hours>\\d{2}):(?<minutes>\\d{2}):(?<seconds>\\d{2})';
/** IMF-fixdate, RFC 850 and asctime (RFC 9110 § 5.6.7). */
const HTTP_DATES = [
  new RegExp(`^${DAY}, (?<day>\\d{2}) ${MONTH} (?<year>\\d{4}) ${TIME} GMT$`),
  new RegExp(`^${LONG_DAY}, (?<day>\\d{2})-${MONTH}-(?<year>\\d{2}) ${TIME} GMT$`),
  new RegExp(`^${DAY} ${MONTH} (?<day> \\d|\\d{2}) ${TIME} (?<year>\\d{4})$`),
];

/** An HTTP date in ms since the epoch, or `undefined` (not a date, or one that does not exist). */
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
  const ms = Date.UTC(year, month, day, hours, minutes, Math.min(seconds, 59));
  // Date.UTC rolls over (31 Feb → 3 Mar): a date that changed is one that does not exist.
  const check = new Date(ms);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month || check.getUTCDate() !== day)
    return undefined;
  return ms;
}

/** The server-requested wait in ms, within 0…{@link MAX_RETRY_AFTER_MS}; `undefined`: use the backoff. */
export function retryAfterMs(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const inRange = (ms: number) =>
    Number.isFinite(ms) && ms >= 0 && ms <= MAX_RETRY_AFTER_MS ? ms : undefined;
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
