/** `POST tasks/estimate`: distance, travel time and price between two points. @module */
import * as z from 'zod/mini';
import { Latitude, Longitude, wellFormedText } from './primitives.js';
import { TravelDetail } from './task.js';

/** A point for an estimate, decimal degrees: what `POST tasks/estimate` carries. */
export const EstimatePoint = /* @__PURE__ */ z.strictObject({ latitude: Latitude, longitude: Longitude });
export type EstimatePoint = z.infer<typeof EstimatePoint>;

/** The body of `POST tasks/estimate`: both points required. */
export const EstimateParams = /* @__PURE__ */ z.strictObject({ from: EstimatePoint, to: EstimatePoint });

/** Location fields an estimate point does not carry: accepted, checked, and not sent. */
export const LOCATION_ONLY_FIELDS = ['fullAddress'] as const;

/** A point as `tasks.estimate` accepts it: an {@link EstimatePoint}, or a delivery or pickup location. */
const EstimatePointParam = z.strictObject({
  latitude: Latitude,
  longitude: Longitude,
  fullAddress: z.optional(z.array(z.string())),
});

/**
 * What `tasks.estimate` accepts: an {@link EstimatePoint}, or a delivery or pickup location, for each point.
 */
export const EstimateRequestParams = z
  .strictObject({ from: EstimatePointParam, to: EstimatePointParam })
  .check(wellFormedText);

/** Parameters of `client.tasks.estimate`: two points, each an {@link EstimatePoint} or a location. */
export type EstimateParams = z.input<typeof EstimateRequestParams>;

/**
 * The body for checked parameters: coordinates only; `dropped` names the fields left out, for the debug log.
 */
export function estimateBody(params: z.output<typeof EstimateRequestParams>): {
  body: z.output<typeof EstimateParams>;
  dropped: string[];
} {
  const dropped: string[] = [];
  const point = (name: 'from' | 'to'): EstimatePoint => {
    const { latitude, longitude, ...rest } = params[name];
    for (const field of Object.keys(rest)) dropped.push(`${name}.${field}`);
    return { latitude, longitude };
  };
  return { body: { from: point('from'), to: point('to') }, dropped };
}

/** An estimate: `travelDetail` and `price` (KWD number), both optional. */
export const Estimate = z.looseObject({
  /** Distance and time between the points. */
  travelDetail: z.optional(TravelDetail),
  /** Delivery price in KWD. */
  price: z.optional(z.number()),
});
export type Estimate = z.infer<typeof Estimate>;
