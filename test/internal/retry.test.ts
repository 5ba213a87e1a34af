import { describe, expect, it } from 'vitest';
import {
  backoffMs,
  MAX_BACKOFF_MS,
  MAX_RETRY_AFTER_MS,
  retryAfterMs,
  retryDelayMs,
} from '../../src/internal/retry.js';

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
    expect(
      retryAfterMs(new Headers({ 'retry-after': String(MAX_RETRY_AFTER_MS / 1000 + 1) })),
    ).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '-5' }))).toBeUndefined();
    expect(retryAfterMs(new Headers())).toBeUndefined();
  });

  it.each([
    ['-1', 'a negative number'],
    ['1.5', 'a fraction of seconds'],
    ['  ', 'blank'],
    ['soon', 'a word'],
    ['0x10', 'hexadecimal'],
    ['1e3', 'an exponent'],
    ['+5', 'a signed number'],
    ['2026-11-22T10:00:07Z', 'an ISO date rather than an HTTP date'],
    ['Sun, 31 Feb 2026 10:00:07 GMT', 'a date that does not exist'],
  ])('falls back to the normal backoff for Retry-After %j (%s)', (value) => {
    const headers = new Headers({ 'retry-after': value });
    expect(retryAfterMs(headers, Date.parse('2026-11-22T10:00:00Z'))).toBeUndefined();
    expect(retryDelayMs(1, headers, () => 1)).toBe(500);
  });

  it.each([['-1'], ['0x10'], ['Infinity'], ['1e3'], ['soon']])(
    'falls back to the normal backoff for retry-after-ms %j',
    (value) => {
      expect(retryAfterMs(new Headers({ 'retry-after-ms': value }))).toBeUndefined();
    },
  );

  it('reads retry-after-ms with a fraction', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '12.5' }))).toBe(12.5);
  });

  it('reads all three HTTP date formats as GMT', () => {
    const now = Date.parse('1994-11-06T08:49:30Z');
    for (const value of [
      'Sun, 06 Nov 1994 08:49:37 GMT',
      'Sunday, 06-Nov-94 08:49:37 GMT',
      'Sun Nov  6 08:49:37 1994',
    ]) {
      expect(retryAfterMs(new Headers({ 'retry-after': value }), now), value).toBe(7000);
    }
  });

  it('reads a past HTTP date as no wait and a date beyond 60 s as unusable', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': 'Sat, 21 Nov 2026 10:00:00 GMT' }), now)).toBe(0);
    expect(
      retryAfterMs(new Headers({ 'retry-after': 'Sun, 22 Nov 2026 10:01:01 GMT' }), now),
    ).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after': 'Sun, 22 Nov 2026 10:01:00 GMT' }), now)).toBe(60_000);
  });

  it('backs off exponentially with jitter between half and all of the step, capped', () => {
    expect(backoffMs(1, () => 0)).toBe(250);
    expect(backoffMs(1, () => 1)).toBe(500);
    expect(backoffMs(3, () => 1)).toBe(2000);
    expect(backoffMs(20, () => 1)).toBe(MAX_BACKOFF_MS);
    expect(retryDelayMs(2, new Headers({ 'retry-after': '86400' }), () => 1)).toBe(1000);
  });
});
