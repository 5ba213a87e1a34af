/**
 * `POST tasks`: the create request and its response; OpenAPI `createTask`, schema `TaskCreateParams`. @module
 */
import * as z from 'zod/mini';
import { nonEmptyText } from './checks.js';
import { KwdText, Latitude, Longitude, wellFormedText } from './primitives.js';
import { type Assert, type SameType, TaskWithId, taskFields } from './task.js';

/** A point of a new task: coordinates and address lines. */
export type DeliveryLocation = {
  /** Latitude, decimal degrees (−90…90). */
  latitude: number;
  /** Longitude, decimal degrees (−180…180). */
  longitude: number;
  /** Address lines, one element per line. */
  fullAddress?: string[] | undefined;
};
const locationFields = {
  latitude: Latitude,
  longitude: Longitude,
  fullAddress: z.optional(z.array(z.string())),
};
export const DeliveryLocation = z.strictObject(locationFields);

/** A custom pickup point (the spec leaves its required fields open: the SDK requires the coordinates). */
export type PickupLocation = DeliveryLocation;
export const PickupLocation = z.strictObject(locationFields);

/**
 * The fields of {@link TaskCreateParams} but `customPickup` and `selectedBranch`; none required.
 * @expand
 */
export type TaskCreateFields = {
  /** Seller id. The mock requires it to equal the `x-seller-id` header; the spec does not say. */
  sellerId?: string | undefined;
  /** Seller's name. */
  sellerName?: string | undefined;
  /** Customer's name. */
  customerName?: string | undefined;
  /** Customer's phone number. */
  customerNumber?: string | undefined;
  /** Customer's other phone number. */
  alternateCustomerNumber?: string | undefined;
  /** Delivery zone. */
  deliveryZone?: string | undefined;
  /** Address detail for the driver (floor, door…). */
  additionalAddressDetail?: string | undefined;
  /** Collect cash on delivery. */
  collectCash?: boolean | undefined;
  /** Notes for the driver. */
  specialNotes?: string | undefined;
  /** Your order number, 1 to 256 characters; strongly recommended (README "Exactly-once creation"). */
  orderNumber?: string | undefined;
  /** Amount to collect: KWD as decimal text, at most 3 decimals (`kwd.normalize(12.5)` → `"12.500"`). */
  totalAmount?: string | undefined;
  /** Custom pickup point (with `customPickup: true`). */
  pickupLocation?: PickupLocation | undefined;
  /** Where to deliver. */
  deliveryLocation?: DeliveryLocation | undefined;
  /** Name of the pickup point. */
  pickupName?: string | undefined;
  /** Phone number of the pickup point. */
  pickupNumber?: string | undefined;
  /** Notes on the pickup. */
  pickupNotes?: string | undefined;
};

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
 * Parameters of `client.tasks.create` (README "Endpoints"); unknown fields and malformed text are refused.
 */
export type TaskCreateParams = TaskCreateFields &
  (
    | {
        /** Pick up from a branch or custom point rather than the seller's default. */
        customPickup: true;
        /** Branch to pick up from: a name from `client.branches.list()`. */
        selectedBranch?: string;
      }
    | {
        /** Pick up from a branch or custom point rather than the seller's default. */
        customPickup?: boolean;
        /** Only with `customPickup: true` (refused here by the type and at run time). */
        selectedBranch?: undefined;
      }
  );
export const TaskCreateParams = z
  .strictObject({
    sellerId,
    sellerName,
    orderNumber: z.optional(nonEmptyText(256)),
    customerName,
    customerNumber,
    alternateCustomerNumber,
    deliveryZone,
    additionalAddressDetail,
    collectCash,
    totalAmount: z.optional(KwdText),
    specialNotes,
    customPickup,
    pickupLocation: z.optional(PickupLocation),
    deliveryLocation: z.optional(DeliveryLocation),
    pickupName: z.optional(z.string()),
    pickupNumber: z.optional(z.string()),
    pickupNotes: z.optional(z.string()),
    selectedBranch: z.optional(nonEmptyText()),
  })
  .check(
    z.refine((params) => params.selectedBranch === undefined || params.customPickup === true, {
      path: ['selectedBranch'],
      message: 'selectedBranch is only used with customPickup: true',
      // zod skips refinements of an object with issues otherwise; this one is reported beside them.
      when: (payload) => typeof payload.value === 'object' && payload.value !== null,
    }),
    wellFormedText,
  );

/** The create response envelope `{ data: { createTask: Task } }`; the task's `id` is load-bearing. */
export interface TaskCreateResponse {
  /** The envelope. */
  data: {
    /** The new task. */
    createTask: TaskWithId;
    [field: string]: unknown;
  };
  [field: string]: unknown;
}
export const TaskCreateResponse = z.looseObject({ data: z.looseObject({ createTask: TaskWithId }) });

export type TaskCreateSchemasMatch = Assert<
  [
    SameType<DeliveryLocation, z.infer<typeof DeliveryLocation>>,
    SameType<PickupLocation, z.infer<typeof PickupLocation>>,
    SameType<
      { [K in keyof TaskCreateFields]: TaskCreateFields[K] },
      Omit<z.input<typeof TaskCreateParams>, 'customPickup' | 'selectedBranch'>
    >,
    SameType<TaskCreateResponse, z.infer<typeof TaskCreateResponse>>,
  ]
>;
