import { describe, expect, it } from 'vitest';
import { kwd } from '../../src/kwd.js';
import { deliveryFeeFils } from '../../src/testing/pricing.js';

const schedule = { baseFeeFils: kwd.toFils('0.750'), perKmFils: kwd.toFils('0.100') };

describe('deliveryFeeFils', () => {
  it('charges only the base fee for no distance', () => {
    expect(deliveryFeeFils(schedule, 0)).toBe(schedule.baseFeeFils);
  });

  it('adds the per-km price for whole kilometres exactly', () => {
    expect(deliveryFeeFils(schedule, 12)).toBe(schedule.baseFeeFils + 12 * schedule.perKmFils);
  });

  it('rounds half a fils up, where floating point would round 100.49999… down', () => {
    // 1.005 km × 100 fils/km = 100.5 fils exactly, which rounds half-up to 101 fils; 100 * 1.005 in
    // floating point is 100.49999999999999.
    expect(100 * 1.005).toBeLessThan(100.5);
    expect(deliveryFeeFils(schedule, 1.005)).toBe(schedule.baseFeeFils + 101);
  });

  it('rounds below half a fils down', () => {
    // 1.004 km × 100 fils/km = 100.4 fils → 100 fils.
    expect(deliveryFeeFils(schedule, 1.004)).toBe(schedule.baseFeeFils + 100);
  });

  it('refuses a negative or non-finite distance', () => {
    expect(() => deliveryFeeFils(schedule, -1)).toThrow(RangeError);
    expect(() => deliveryFeeFils(schedule, Number.NaN)).toThrow(RangeError);
  });
});
