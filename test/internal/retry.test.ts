import { describe, expect, it } from 'vitest';
import { backoffMs, MAX_BACKOFF_MS, MAX_RETRY_AFTER_MS, retryAfterMs, retryDelayMs } from '../../src/internal/retry.js';

describe('retry timing', () => {
  it('reads Retry-After in seconds', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '3' }))).toBe(3000);
    expect(retryAfterMs(new Headers({ 'retry-after': '0' }))).toBe(0);
  });

  it('reads Retry-After as an HTTP date relative to now', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': 'Sun, 22 Nov 2026 10:00:07 GMT' }), now)).toBe(7000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Sun, 22 Nov 2026 09:59:00 GMT' }), now)).toBe(0);
  });

  it('prefers retry-after-ms over Retry-After', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
  });

  it('ignores waits beyond 60 s and unreadable values', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': String(MAX_RETRY_AFTER_MS / 1000 + 1) }))).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '-5' }))).toBeUndefined();
    expect(retryAfterMs(new Headers())).toBeUndefined();
  });

  it('backs off exponentially with jitter between half and all of the step, capped', () => {
    expect(backoffMs(1, () => 0)).toBe(250);
    expect(backoffMs(1, () => 1)).toBe(500);
    expect(backoffMs(3, () => 1)).toBe(2000);
    expect(backoffMs(20, () => 1)).toBe(MAX_BACKOFF_MS);
    expect(retryDelayMs(2, new Headers({ 'retry-after': '86400' }), () => 1)).toBe(1000);
  });
});
