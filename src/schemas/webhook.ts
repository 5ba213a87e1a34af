/** The webhook body (OpenAPI webhook `taskStatusChanged`, schema `WebhookTask`), read loosely. @module */
import * as z from 'zod/mini';
import { rule } from './checks.js';
import { WEBHOOK_EVENT_KINDS } from './lifecycle.js';
import { type Assert, type SameType, type TaskFields, taskFields } from './task.js';

/**
 * The event kinds a webhook's `status` carries, one per status change (docs/spec-choices.md, "webhook event
 * kinds").
 */
export { WEBHOOK_EVENT_KINDS };

/** An event kind: one of {@link WEBHOOK_EVENT_KINDS} or any other non-empty string (kept, never rejected). */
export const WebhookEventKind = z
  .string()
  .check(rule((kind) => kind !== '', 'Expected a non-empty event kind', { minLength: 1 })) as z.ZodMiniType<
  (typeof WEBHOOK_EVENT_KINDS)[number] | (string & {}),
  string
>;
export type WebhookEventKind = z.infer<typeof WebhookEventKind>;

/** The delivery point in a webhook body (spec: "deliveryLocation (webhook form)"). */
export interface WebhookDeliveryLocation {
  /** Latitude, decimal degrees. */
  lat?: number | undefined;
  /** Longitude, decimal degrees. */
  lng?: number | undefined;
  /** Kuwaiti address lines (block, street, building…), one element per line. */
  kwAddress?: string[] | undefined;
  /** Address lines, one element per line. */
  fullAddress?: string[] | undefined;
  [field: string]: unknown;
}
export const WebhookDeliveryLocation = z.looseObject({
  lat: z.optional(z.number()),
  lng: z.optional(z.number()),
  kwAddress: z.optional(z.array(z.string())),
  fullAddress: z.optional(z.array(z.string())),
});

/** The pickup point in a webhook body (spec: "pickupLocation (webhook form)"). */
export interface WebhookPickupLocation {
  /** Longitude, decimal degrees. */
  longitude?: number | undefined;
  /** Latitude, decimal degrees. */
  latitude?: number | undefined;
  /** Address lines, one element per line. */
  fullAddress?: string[] | undefined;
  [field: string]: unknown;
}
export const WebhookPickupLocation = z.looseObject({
  longitude: z.optional(z.number()),
  latitude: z.optional(z.number()),
  fullAddress: z.optional(z.array(z.string())),
});

/** The longest task id a webhook may carry, in characters (bounds the duplicate filter's keys). */
export const MAX_WEBHOOK_TASK_ID_LENGTH = 128;

/** True for a C0 or C1 control character or DEL (code units 0–31 and 127–159). */
function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 32 || (code >= 127 && code < 160)) return true;
  }
  return false;
}

/** A webhook's task id: 1 to {@link MAX_WEBHOOK_TASK_ID_LENGTH} characters, no control characters. */
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
 * The webhook body (OpenAPI webhook `taskStatusChanged`): a `Task`'s fields and its own; unknown ones kept.
 */
export interface WebhookTask extends Omit<TaskFields, 'status' | 'pickupLocation'> {
  /**
   * The task id; `parseWebhookEvent` falls back to `id` without it. 1 to 128 characters, no control
   * characters.
   */
  _id?: string | undefined;
  /** The event kind. Required. */
  status: WebhookEventKind;
  /** Vehicle type; its values are not documented. */
  vehicleType?: string | undefined;
  /** Name of the pickup point. */
  pickupName?: string | undefined;
  /** Phone number of the pickup point. */
  pickupNumber?: string | undefined;
  /**
   * Estimated price: KWD as decimal text, 3 decimals (`"1.250"`); `kwd.toFils` converts it. Format not
   * checked.
   */
  estimatedPrice?: string | undefined;
  /** The delivery fee was taken from the wallet. */
  walletDeducted?: boolean | undefined;
  /** Delivery point, webhook form. */
  deliveryLocation?: WebhookDeliveryLocation | undefined;
  /** Pickup point, webhook form. */
  pickupLocation?: WebhookPickupLocation | undefined;
  [field: string]: unknown;
}
export const WebhookTask = z.looseObject({
  ...taskFields,
  _id: z.optional(WebhookTaskId),
  status: WebhookEventKind,
  vehicleType: z.optional(z.string()),
  pickupName: z.optional(z.string()),
  pickupNumber: z.optional(z.string()),
  estimatedPrice: z.optional(z.string()),
  walletDeducted: z.optional(z.boolean()),
  deliveryLocation: z.optional(WebhookDeliveryLocation),
  pickupLocation: z.optional(WebhookPickupLocation),
});

export type WebhookSchemasMatch = Assert<
  [
    SameType<WebhookDeliveryLocation, z.infer<typeof WebhookDeliveryLocation>>,
    SameType<WebhookPickupLocation, z.infer<typeof WebhookPickupLocation>>,
    SameType<WebhookTask, z.infer<typeof WebhookTask>>,
  ]
>;
