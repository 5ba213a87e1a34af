/** Distances (km) and travel times (minutes) for `travelDetail` (OpenAPI schema `TravelDetail`). @module */
import type { MockPoint } from './types.js';

/** A `travelDetail` with every field set: km and minutes. */
export interface TripDetail {
  /** 3 decimals. */
  totalDistance: number;
  duration: number;
  durationInTraffic: number;
  hasTraffic: boolean;
  estimatedDelayByTraffic: number;
}

/** IUGG mean Earth radius, km. */
export const EARTH_RADIUS_KM = 6371.0088;

/** Speed the mock assumes for a delivery, in km/h. */
export const DELIVERY_SPEED_KMH = 30;

const RADIANS_PER_DEGREE = Math.PI / 180;

/** Great-circle distance in km, unrounded (haversine; decimal degrees in). */
export function haversineKm(from: MockPoint, to: MockPoint): number {
  const lat1 = from.latitude * RADIANS_PER_DEGREE;
  const lat2 = to.latitude * RADIANS_PER_DEGREE;
  const halfDeltaLat = (lat2 - lat1) / 2;
  const halfDeltaLng = ((to.longitude - from.longitude) * RADIANS_PER_DEGREE) / 2;
  const h = Math.sin(halfDeltaLat) ** 2 + Math.cos(lat1) * Math.cos(lat2) * Math.sin(halfDeltaLng) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Distance to the metre, minutes at {@link DELIVERY_SPEED_KMH} to 0.1; no traffic. */
export function travelDetailBetween(from: MockPoint, to: MockPoint): TripDetail {
  const totalDistance = Math.round(haversineKm(from, to) * 1000) / 1000;
  const duration = Math.round((totalDistance / DELIVERY_SPEED_KMH) * 60 * 10) / 10;
  return {
    totalDistance,
    duration,
    durationInTraffic: duration,
    hasTraffic: false,
    estimatedDelayByTraffic: 0,
  };
}

/** The `travelDetail` of a task without a delivery point: every number 0. */
export function noTravel(): TripDetail {
  return {
    totalDistance: 0,
    duration: 0,
    durationInTraffic: 0,
    hasTraffic: false,
    estimatedDelayByTraffic: 0,
  };
}
