/**
 * `POST tasks`: the create request and its response; OpenAPI `createTask` and
 * OpenAPI schema `TaskCreateParams`.
 * @module
 */
import * as z from 'zod/mini';
import { nonEmptyText } from './checks.js';
import { KwdText, Latitude, Longitude, wellFormedText } from './primitives.js';
import { TaskWithId, taskFields } from './task.js';

const locationFields = {
  /** Latitude, decimal degrees (−90…90). */
  latitude: Latitude,
  /** Longitude, decimal degrees (−180…180). */
  longitude: Longitude,
  /** Address lines, one element per line. */
  fullAddress: z.optional(z.array(z.string())),
};

/** The delivery point of a new task: coordinates and the address, one element per line. */
export const DeliveryLocation = z.strictObject(locationFields);
export type DeliveryLocation = z.infer<typeof DeliveryLocation>;

/** A custom pickup point (the spec leaves its required fields open: the SDK requires the coordinates). */
export const PickupLocation = z.strictObject(locationFields);
export type PickupLocation = z.infer<typeof PickupLocation>;

// Fields a create shares, unchanged, with the Task resource (OpenAPI `createTask` and OpenAPI schema `Task`).
const {
  sellerId,
  sellerName,
  customerName,
  customerNumber,
  alternateCustomerNumber,
  deliveryZone,
  additionalAddressDetail,
  collectCash,
  specialNotes,
  customPickup,
} = taskFields;

/**
 * Parameters of `client.tasks.create`. The spec marks no field required; unknown fields are
 * rejected so that a misspelt field fails before anything is sent, and so is text with unpaired
 * surrogates (the `wellFormedText` check).
 */
export const TaskCreateParams = z
  .strictObject({
    /**
     * Seller identifier. Whether it must equal the x-seller-id header is not shown by the spec; the mock requires it
     * (400 otherwise).
     */
    sellerId,
    /** Seller name. */
    sellerName,
    /**
     * Your order number, 1 to 256 characters. Strongly recommended: it is what makes a create safe to
     * reconcile after a failure (it keys the lookups and the shared store, so its length is bounded).
     */
    orderNumber: z.optional(nonEmptyText(256)),
    /** Customer name. */
    customerName,
    /** Customer contact number. */
    customerNumber,
    /** Alternate contact number. */
    alternateCustomerNumber,
    /** Delivery zone. */
    deliveryZone,
    /** Extra address detail. */
    additionalAddressDetail,
    /** Cash is to be collected on delivery. */
    collectCash,
    /** Amount to collect, KWD decimal text with at most 3 decimals (`kwd.normalize(12.5)` → `"12.500"`). */
    totalAmount: z.optional(KwdText),
    /** Delivery notes. */
    specialNotes,
    /** A custom pickup location is used; required for `selectedBranch`. */
    customPickup,
    /** Pickup coordinates (used with customPickup true). */
    pickupLocation: z.optional(PickupLocation),
    /** Where to deliver. */
    deliveryLocation: z.optional(DeliveryLocation),
    /** Name of the pickup point. */
    pickupName: z.optional(z.string()),
    /** Contact number of the pickup point. */
    pickupNumber: z.optional(z.string()),
    /** Notes on the pickup. */
    pickupNotes: z.optional(z.string()),
    /** Branch to pick up from, a name from `client.branches.list()`; only with `customPickup: true`. */
    selectedBranch: z.optional(nonEmptyText()),
  })
  .check(
    z.refine((params) => params.selectedBranch === undefined || params.customPickup === true, {
      path: ['selectedBranch'],
      message: 'selectedBranch is only used with customPickup: true',
      // Report it alongside other field issues (zod skips refinements of an object that has issues otherwise).
      when: (payload) => typeof payload.value === 'object' && payload.value !== null,
    }),
    wellFormedText,
  );
export type TaskCreateParams = Omit<z.input<typeof TaskCreateParams>, 'customPickup' | 'selectedBranch'> &
  (
    | {
        /** Pick up from a branch or custom coordinates rather than the seller's default. */
        customPickup: true;
        /** Branch to pick up from, a name from `client.branches.list()`. */
        selectedBranch?: string;
      }
    | {
        /** Pick up from a branch or custom coordinates rather than the seller's default. */
        customPickup?: boolean;
        /** Only with `customPickup: true`: the type refuses it here, as the run-time check does. */
        selectedBranch?: undefined;
      }
  );

/** The create response envelope `{ data: { createTask: Task } }`; the task's `id` is load-bearing. */
export const TaskCreateResponse = z.looseObject({
  /** The envelope; `createTask` holds the new task. */
  data: z.looseObject({ createTask: TaskWithId }),
});
export type TaskCreateResponse = z.infer<typeof TaskCreateResponse>;
