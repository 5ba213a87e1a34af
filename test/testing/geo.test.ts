import { describe, expect, it } from 'vitest';
import {
  DELIVERY_SPEED_KMH,
  EARTH_RADIUS_KM,
  haversineKm,
  noTravel,
  travelDetailBetween,
} from '../../src/testing/geo.js';

const kuwaitCity = { latitude: 29.3759, longitude: 47.9774 };
const salmiya = { latitude: 29.3339, longitude: 48.0761 };

/** Great-circle distance by the spherical law of cosines: a different formula from the haversine. */
function lawOfCosinesKm(a: typeof kuwaitCity, b: typeof kuwaitCity): number {
  const rad = Math.PI / 180;
  const cosine =
    Math.sin(a.latitude * rad) * Math.sin(b.latitude * rad) +
    Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.cos((b.longitude - a.longitude) * rad);
  return EARTH_RADIUS_KM * Math.acos(Math.min(1, cosine));
}

describe('haversineKm', () => {
  it('agrees with the spherical law of cosines for Kuwait City to Salmiya', () => {
    expect(haversineKm(kuwaitCity, salmiya)).toBeCloseTo(lawOfCosinesKm(kuwaitCity, salmiya), 6);
  });

  it('puts Kuwait City about 10.6 km from Salmiya, as the crow flies', () => {
    const km = haversineKm(kuwaitCity, salmiya);
    expect(km).toBeGreaterThan(10);
    expect(km).toBeLessThan(11.5);
  });

  it('is symmetric and zero for the same point', () => {
    expect(haversineKm(salmiya, kuwaitCity)).toBe(haversineKm(kuwaitCity, salmiya));
    expect(haversineKm(salmiya, salmiya)).toBe(0);
  });

  it('measures a quarter of the meridian as a quarter of the circumference', () => {
    const km = haversineKm({ latitude: 0, longitude: 0 }, { latitude: 90, longitude: 0 });
    expect(km).toBeCloseTo((2 * Math.PI * EARTH_RADIUS_KM) / 4, 6);
  });
});

describe('travelDetailBetween', () => {
  it('rounds the distance to the metre and derives minutes from 30 km/h', () => {
    const detail = travelDetailBetween(kuwaitCity, salmiya);
    const km = lawOfCosinesKm(kuwaitCity, salmiya);
    expect(Math.abs(detail.totalDistance - km)).toBeLessThanOrEqual(0.0005 + 1e-9);
    expect(detail.totalDistance).toBe(Math.round(detail.totalDistance * 1000) / 1000);
    expect(detail.duration).toBeCloseTo((km / DELIVERY_SPEED_KMH) * 60, 1);
    expect(detail).toMatchObject({
      durationInTraffic: detail.duration,
      hasTraffic: false,
      estimatedDelayByTraffic: 0,
    });
  });

  it('reports nothing to travel for a task without a delivery point', () => {
    expect(noTravel()).toEqual({
      totalDistance: 0,
      duration: 0,
      durationInTraffic: 0,
      hasTraffic: false,
      estimatedDelayByTraffic: 0,
    });
  });
});
