/** `estimate_delivery` (README "Agents (MCP)"). */

import { EstimatePoint } from 'delivery-task-sdk/schemas';
import * as z from 'zod/mini';
import { kwdText, priceFils } from '../money.js';
import { defineTool } from '../tool.js';

const Point = z.object({ latitude: z.number(), longitude: z.number() });

/** `estimate_delivery`. */
export const estimateDelivery = defineTool({
  name: 'estimate_delivery',
  title: 'Estimate a delivery',
  description:
    'Quotes a delivery between two points (decimal degrees) without booking it: price (KWD), distance and time, ' +
    'and an estimateId. create_delivery needs an estimateId of this session, younger than the policy allows, ' +
    'for the same coordinates: "to" is the deliveryLocation, "from" the pickup (the pickupLocation, or the ' +
    "branch's coordinates from list_branches, or the account's default pickup point).",
  permission: 'read',
  // Creates nothing in the service: the quote lives in this session's memory only.
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({
    from: EstimatePoint.check(z.describe('Pickup point')),
    to: EstimatePoint.check(z.describe('Delivery point')),
  }),
  output: z.object({
    estimateId: z.string().check(z.describe('Name it in create_delivery')),
    priceKwd: z.optional(z.string().check(z.describe('Delivery price, KWD with 3 decimals'))),
    from: Point,
    to: Point,
    travelDetail: z.optional(
      z.object({
        totalDistance: z.optional(z.number()),
        duration: z.optional(z.number()),
        durationInTraffic: z.optional(z.number()),
      }),
    ),
    validUntil: z.string().check(z.describe('Last moment a booking may use this quote (ISO 8601)')),
    withinMaxFee: z.optional(
      z.boolean().check(z.describe("The price is within the policy's per-delivery limit")),
    ),
  }),
  async run({ from, to }, session, signal) {
    const estimate = await session.client.tasks.estimate({ from, to }, { signal });
    const price = priceFils(estimate.price);
    const quote = session.quotes.add(from, to, price);
    const travel: Record<string, number> = {};
    for (const name of ['totalDistance', 'duration', 'durationInTraffic'] as const) {
      const value = estimate.travelDetail?.[name];
      if (typeof value === 'number' && Number.isFinite(value)) travel[name] = value;
    }
    const { maxFeeFils } = session.policy;
    return {
      estimateId: quote.id,
      ...(price === undefined ? {} : { priceKwd: kwdText(price) }),
      from: quote.from,
      to: quote.to,
      ...(estimate.travelDetail === undefined ? {} : { travelDetail: travel }),
      validUntil: new Date(quote.at + session.policy.quoteMaxAgeMs).toISOString(),
      ...(maxFeeFils === undefined || price === undefined ? {} : { withinMaxFee: price <= maxFeeFils }),
    };
  },
});
