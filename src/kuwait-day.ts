/** The calendar day in Kuwait (Arabia Standard Time, UTC+3, no daylight saving). @module */

/** Kuwait's offset from UTC, ms: UTC+3 all year (Kuwait keeps no daylight saving time). */
const KUWAIT_OFFSET_MS = 3 * 3_600_000;
const DAY_MS = 86_400_000;

/**
 * One calendar day in Kuwait as two instants: `start` (00:00 in Kuwait, included), `end` (the next 00:00,
 * excluded).
 */
export interface KuwaitDay {
  /** 00:00 Kuwait time of the day, which is 21:00 UTC of the day before. */
  readonly start: Date;
  /** 00:00 Kuwait time of the next day: `start` plus 24 h (exclusive). */
  readonly end: Date;
}

/**
 * The Kuwait calendar day that holds `date` (default: now), for creation windows and daily totals: a shop
 * in Kuwait's "today" starts at 21:00 UTC the day before, so `setUTCHours(0, 0, 0, 0)` is the wrong day
 * from 00:00 to 03:00 Kuwait time. Use `start` and `end` as `createdAfter` / `createdBefore` of
 * `tasks.list` (README "Pagination").
 * @param date a `Date` or ms since the epoch. Default `new Date()`.
 * @throws {TypeError} when `date` is neither; `RangeError` for an invalid `Date` or a time outside
 * `Date`'s range.
 */
export function kuwaitDay(date: Date | number = new Date()): KuwaitDay {
  if (!(date instanceof Date) && typeof date !== 'number') {
    throw new TypeError(
      `date must be a Date or ms since the epoch, got ${date === null ? 'null' : typeof date}`,
    );
  }
  const ms = date instanceof Date ? date.getTime() : date;
  const start = Math.floor((ms + KUWAIT_OFFSET_MS) / DAY_MS) * DAY_MS - KUWAIT_OFFSET_MS;
  const day = { start: new Date(start), end: new Date(start + DAY_MS) };
  if (!Number.isFinite(ms) || Number.isNaN(day.start.getTime()) || Number.isNaN(day.end.getTime())) {
    throw new RangeError(`date must be a valid time within Date's range, got ${String(date)}`);
  }
  return day;
}
