/**
 * Reading the service's timestamps (`createdAt`, `updatedAt`, …; the contract's `date-time`) the same way on
 * every machine: a time without a zone is read as UTC, never in the machine's zone, and said to be zoneless
 * so that the reader reports it as drift (docs/schema-drift.md "Times without a zone").
 * @module
 */

/**
 * How a timestamp was written: `zoned` (`Z` or an offset), `zoneless` (read as UTC), `date` (UTC midnight).
 */
export type TimeForm = 'zoned' | 'zoneless' | 'date';

/** A timestamp read: ms since the epoch, and how it was written. */
export interface ServiceTime {
  readonly ms: number;
  readonly form: TimeForm;
}

// ISO 8601 / RFC 3339: a date, then optionally `T` (or a space), hh:mm[:ss[.fraction]] and a zone.
const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;

/**
 * The instant `value` names, or `undefined` for anything but ISO 8601 text of a real calendar date and time
 * (other forms are read differently by each engine, some in the machine's zone).
 */
export function readServiceTime(value: unknown): ServiceTime | undefined {
  if (typeof value !== 'string') return undefined;
  const parts = TIMESTAMP.exec(value.trim());
  if (parts === null) return undefined;
  const [
    ,
    year,
    month,
    day,
    hour,
    minute,
    second = '0',
    fraction = '',
    utc,
    sign,
    offsetHours,
    offsetMinutes,
  ] = parts;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: years 0–99 stay themselves.
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  if (date.getUTCMonth() !== Number(month) - 1 || date.getUTCDate() !== Number(day)) return undefined;
  if (hour === undefined) return { ms: date.getTime(), form: 'date' };
  const [h, m, s] = [Number(hour), Number(minute), Number(second)];
  const [oh, om] = [Number(offsetHours ?? 0), Number(offsetMinutes ?? 0)];
  if (h > 23 || m > 59 || s > 59 || oh > 23 || om > 59) return undefined;
  date.setUTCHours(h, m, s, Number(fraction.padEnd(3, '0').slice(0, 3)));
  const zoned = utc !== undefined || sign !== undefined;
  const offsetMs = (sign === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
  return { ms: date.getTime() - offsetMs, form: zoned ? 'zoned' : 'zoneless' };
}

/** What a reader reports for a timestamp not read as the contract writes it (type names, never the value). */
export interface TimeDrift {
  /** `date-time in UTC` (coerced) or `date-time` (omitted). */
  readonly expected: string;
  /** `date-time without a zone`, `date without a time`, `text not ISO 8601`, or the type received. */
  readonly received: string;
  readonly action: 'coerced' | 'omitted';
}

/** The drift of a timestamp read as `read` from `value`; `undefined` for a zoned date-time. */
export function timeDriftOf(value: unknown, read: ServiceTime | undefined): TimeDrift | undefined {
  if (read?.form === 'zoned') return undefined;
  if (read !== undefined) {
    const received = read.form === 'zoneless' ? 'date-time without a zone' : 'date without a time';
    return { expected: 'date-time in UTC', received, action: 'coerced' };
  }
  const received = typeof value === 'string' ? 'text not ISO 8601' : value === null ? 'null' : typeof value;
  return { expected: 'date-time', received, action: 'omitted' };
}
