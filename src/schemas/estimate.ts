/**
 * `POST tasks/estimate`: distance, travel time and price between two points; the OpenAPI document's paths →
 * "POST /tasks/estimate".
 * @module
 */
import * as z from 'zod/mini';
import { Latitude, Longitude } from './primitives.js';
import { TravelDetail } from './task.js';

/** A point for an estimate, decimal degrees. */
export const EstimatePoint = z.strictObject({ latitude: Latitude, longitude: Longitude });
export type EstimatePoint = z.infer<typeof EstimatePoint>;

/** Parameters of `client.tasks.estimate`: both points required. */
export const EstimateParams = z.strictObject({ from: EstimatePoint, to: EstimatePoint });
export type EstimateParams = z.input<typeof EstimateParams>;

/** An estimate: `travelDetail` and `price` (KWD number), both optional. */
export const Estimate = z.looseObject({
  /** Distance and time between the points. */
  travelDetail: z.optional(TravelDetail),
  /** Delivery price in KWD. */
  price: z.optional(z.number()),
});
export type Estimate = z.infer<typeof Estimate>;
