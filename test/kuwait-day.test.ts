import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kuwaitDay } from '../src/kwd.js';

/** The independent oracle: the calendar date and wall time in Asia/Kuwait from the time-zone database. */
const kuwaitWall = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Asia/Kuwait',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});
const dateIn = (ms: number) => kuwaitWall.format(ms).slice(0, 10);
const wallTimeIn = (ms: number) => kuwaitWall.format(ms).slice(12);

describe('kuwaitDay', () => {
  it('starts at 21:00 UTC of the day before and ends 24 h later', () => {
    expect(kuwaitDay(new Date('2026-11-29T00:30:00Z'))).toEqual({
      start: new Date('2026-11-28T21:00:00Z'),
      end: new Date('2026-11-29T21:00:00Z'),
    });
    // 23:59:59.999 in Kuwait is still the day before; 00:00 is the new day.
    expect(kuwaitDay(Date.parse('2026-11-28T20:59:59.999Z')).start).toEqual(new Date('2026-11-27T21:00:00Z'));
    expect(kuwaitDay(Date.parse('2026-11-28T21:00:00Z')).start).toEqual(new Date('2026-11-28T21:00:00Z'));
  });

  it("agrees with the time-zone database's Asia/Kuwait for any instant", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.parse('1970-01-02T00:00:00Z'), max: Date.parse('2200-01-01T00:00:00Z') }),
        (ms) => {
          const { start, end } = kuwaitDay(ms);
          expect(dateIn(start.getTime())).toBe(dateIn(ms));
          expect(wallTimeIn(start.getTime())).toBe('00:00:00');
          expect(end.getTime() - start.getTime()).toBe(86_400_000);
          expect(start.getTime() <= ms && ms < end.getTime()).toBe(true);
        },
      ),
      { seed: 20261129, numRuns: 2000 },
    );
  });

  it('refuses what is not a time, naming date', () => {
    expect(() => kuwaitDay(new Date('not a date'))).toThrow(RangeError);
    expect(() => kuwaitDay(Number.NaN)).toThrow(/date must be a valid time/);
    expect(() => kuwaitDay(8.64e15)).toThrow(RangeError);
    expect(() => kuwaitDay('2026-11-29' as never)).toThrow(TypeError);
  });
});
