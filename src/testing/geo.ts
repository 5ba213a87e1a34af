/**
 * Distances and travel times between two points, as the mock computes them for `travelDetail`
 * (OpenAPI schema `TravelDetail`; its units are "not shown", the mock uses kilometres and minutes).
 * @module
 */
import type { MockPoint } from './types.js';

/** A `travelDetail` with every field set: km and minutes. */
export interface TripDetail {
  /** Distance in km, 3 decimals. */
  totalDistance: number;
  /** Travel time in minutes. */
  duration: number;
  /** Travel time with traffic in minutes (the mock has no traffic: equal to `duration`). */
  durationInTraffic: number;
  /** Always false in the mock. */
  hasTraffic: boolean;
  /** Extra minutes caused by traffic: always 0 in the mock. */
  estimatedDelayByTraffic: number;
}

/** Mean Earth radius used by {@link haversineKm}, in km (IUGG mean radius). */
export const EARTH_RADIUS_KM = 6371.0088;

/** Speed the mock assumes for a delivery, in km/h. */
export const DELIVERY_SPEED_KMH = 30;

const RADIANS_PER_DEGREE = Math.PI / 180;

/**
 * Great-circle distance between two points (haversine formula), in km, unrounded.
 * Inputs are decimal degrees; the result is 0 for identical points.
 */
export function haversineKm(from: MockPoint, to: MockPoint): number {
  const lat1 = from.latitude * RADIANS_PER_DEGREE;
  const lat2 = to.latitude * RADIANS_PER_DEGREE;
  const halfDeltaLat = (lat2 - lat1) / 2;
  const halfDeltaLng = ((to.longitude - from.longitude) * RADIANS_PER_DEGREE) / 2;
  const h = Math.sin(halfDeltaLat) ** 2 + Math.cos(lat1) * Math.cos(lat2) * Math.sin(halfDeltaLng) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * The `travelDetail` of a trip from `from` to `to`:
 * - `totalDistance`: haversine distance in km, rounded to 3 decimals (the metre);
 * - `duration`: minutes at {@link DELIVERY_SPEED_KMH}, rounded to 1 decimal;
 * - `durationInTraffic` equal to `duration`, `hasTraffic` false, `estimatedDelayByTraffic` 0 (the mock has no traffic).
 */
export function travelDetailBetween(from: MockPoint, to: MockPoint): TripDetail {
  const totalDistance = Math.round(haversineKm(from, to) * 1000) / 1000;
  const duration = Math.round((totalDistance / DELIVERY_SPEED_KMH) * 60 * 10) / 10;
  return { totalDistance, duration, durationInTraffic: duration, hasTraffic: false, estimatedDelayByTraffic: 0 };
}

/** The `travelDetail` of a task without a delivery point: every number 0. */
export function noTravel(): TripDetail {
  return { totalDistance: 0, duration: 0, durationInTraffic: 0, hasTraffic: false, estimatedDelayByTraffic: 0 };
}
