/**
 * When and how long to wait before trying a request again (design § Reliability).
 *
 * - Retried: no response (network error, timeout), and statuses 408, 429, 500, 502, 503, 504.
 * - The wait: `retry-after-ms` (ms) wins, else `Retry-After` (seconds or an HTTP date), when it is
 *   between 0 and {@link MAX_RETRY_AFTER_MS}; otherwise exponential backoff with jitter:
 *   `min(500 ms × 2^(retry−1), 8 s)`, scaled by a random factor in [0.5, 1].
 */

/** Statuses worth another attempt for an operation that is safe to repeat. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/** The longest server-requested wait honoured, in ms; a longer one falls back to the normal backoff. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** First backoff step in ms. */
export const INITIAL_BACKOFF_MS = 500;
/** Largest backoff step in ms (before jitter). */
export const MAX_BACKOFF_MS = 8_000;

/** The server-requested wait in ms from `retry-after-ms` or `Retry-After`, when present and within bounds. */
export function retryAfterMs(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const inRange = (ms: number) => (Number.isFinite(ms) && ms >= 0 && ms <= MAX_RETRY_AFTER_MS ? ms : undefined);
  const milliseconds = headers.get('retry-after-ms');
  if (milliseconds !== null && milliseconds.trim() !== '') {
    const parsed = inRange(Number(milliseconds));
    if (parsed !== undefined) return parsed;
  }
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return inRange(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : inRange(Math.max(0, date - now));
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
