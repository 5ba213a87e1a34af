/**
 * The webhook body: the full task as the service POSTs it on each status change; OpenAPI webhook `taskStatusChanged`,
 * OpenAPI schema `WebhookTask`, OpenAPI schema `StatusHistoryEntry` (entries without `id`) and
 * OpenAPI schema `Driver` (`completed_at`).
 *
 * Loose like every response schema: documented fields are typed and optional, unknown fields (at every
 * level) are kept, and an unknown event kind is accepted. What makes a body a webhook at all, a task id
 * in `_id` (or `id`) and a `status`, is checked by `parseWebhookEvent`.
 * @module
 */
import * as z from 'zod/mini';
import { rule } from './checks.js';
import { WEBHOOK_EVENT_KINDS } from './lifecycle.js';
import { taskFields } from './task.js';

/**
 * The seven event kinds of OpenAPI webhook `taskStatusChanged` carried as the body's `status` (the
 * lifecycle: README "What the spec leaves open, and what we chose"). `inprogress` and `pickup_location_reached` exist only as
 * webhook kinds, never as a task status.
 */
export { WEBHOOK_EVENT_KINDS };

/**
 * An event kind: the body's `status`, a non-empty string. One of {@link WEBHOOK_EVENT_KINDS}, or any
 * other string the service sends (another task status such as `requested`, or a kind added later):
 * typed so editors suggest the known values, never rejected for being unknown.
 */
export const WebhookEventKind = z
  .string()
  .check(rule((kind) => kind !== '', 'Expected a non-empty event kind', { minLength: 1 })) as z.ZodMiniType<
  (typeof WEBHOOK_EVENT_KINDS)[number] | (string & {}),
  string
>;
/** An event kind: one of {@link WEBHOOK_EVENT_KINDS} or any other non-empty string. */
export type WebhookEventKind = z.infer<typeof WebhookEventKind>;

/**
 * The delivery point in a webhook body (spec: "deliveryLocation (webhook form)"). Decimal degrees; the
 * address both as Kuwaiti address lines (`kwAddress`) and as display lines (`fullAddress`).
 */
export const WebhookDeliveryLocation = z.looseObject({
  /** Latitude, decimal degrees. */
  lat: z.optional(z.number()),
  /** Longitude, decimal degrees. */
  lng: z.optional(z.number()),
  /** Kuwaiti address lines (block, street, building…), one element per line. */
  kwAddress: z.optional(z.array(z.string())),
  /** Address lines, one element per line. */
  fullAddress: z.optional(z.array(z.string())),
});
export type WebhookDeliveryLocation = z.infer<typeof WebhookDeliveryLocation>;

/** The pickup point in a webhook body (spec: "pickupLocation (webhook form)"): decimal degrees and address lines. */
export const WebhookPickupLocation = z.looseObject({
  /** Longitude, decimal degrees. */
  longitude: z.optional(z.number()),
  /** Latitude, decimal degrees. */
  latitude: z.optional(z.number()),
  /** Address lines, one element per line. */
  fullAddress: z.optional(z.array(z.string())),
});
export type WebhookPickupLocation = z.infer<typeof WebhookPickupLocation>;

/**
 * The longest task id a webhook may carry, in characters. The spec does not bound ids; this keeps a
 * forged body from filling the duplicate memory with huge keys.
 */
export const MAX_WEBHOOK_TASK_ID_LENGTH = 128;

/** True for a C0 or C1 control character or DEL (code units 0–31 and 127–159). */
function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 32 || (code >= 127 && code < 160)) return true;
  }
  return false;
}

/**
 * A task id as a webhook carries it: a string of 1 to {@link MAX_WEBHOOK_TASK_ID_LENGTH} characters
 * without control characters.
 */
export const WebhookTaskId = z.string().check(
  rule((id) => id !== '', 'Expected a non-empty task id', { minLength: 1 }),
  rule(
    (id) => id.length <= MAX_WEBHOOK_TASK_ID_LENGTH,
    `Expected a task id of at most ${MAX_WEBHOOK_TASK_ID_LENGTH} characters`,
    { maxLength: MAX_WEBHOOK_TASK_ID_LENGTH },
  ),
  z.refine((id) => !hasControlCharacter(id), 'A task id must not contain control characters'),
);

/**
 * The task as a webhook body carries it (OpenAPI webhook `taskStatusChanged`): every field of {@link Task} plus
 * the webhook extras. `status` is the event kind and is required; the task id is `_id` (else `id`).
 * Unknown fields are kept, nested ones too.
 */
export const WebhookTask = z.looseObject({
  ...taskFields,
  /** The task id in a webhook body; `parseWebhookEvent` falls back to `id` when it is absent. */
  _id: z.optional(WebhookTaskId),
  /** The event kind (OpenAPI webhook `taskStatusChanged`). */
  status: WebhookEventKind,
  /** May be an empty string in a webhook body. */
  alternateCustomerNumber: z.optional(z.string()),
  /** Vehicle type; its values are not documented. */
  vehicleType: z.optional(z.string()),
  /** Name of the pickup point. */
  pickupName: z.optional(z.string()),
  /** Contact number of the pickup point. */
  pickupNumber: z.optional(z.string()),
  /**
   * Estimated price in KWD as decimal text with 3 decimals (`"1.250"`); convert with `kwd.toFils`. Only
   * its type is checked, so a change of format never costs an event (the service does not resend).
   */
  estimatedPrice: z.optional(z.string()),
  /** The delivery fee was deducted from the wallet. */
  walletDeducted: z.optional(z.boolean()),
  /** Delivery point, webhook form. */
  deliveryLocation: z.optional(WebhookDeliveryLocation),
  /** Pickup point, webhook form. */
  pickupLocation: z.optional(WebhookPickupLocation),
});
export type WebhookTask = z.infer<typeof WebhookTask>;
