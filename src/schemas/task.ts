/**
 * The Task resource and its parts; spec § "Resources and their fields" (Task, StatusHistoryEntry,
 * Driver, SellerDetail, Coordinates, AddressDetails, AddressEntry, TravelDetail) and § "States and
 * transitions".
 *
 * Response schemas are loose: every documented field is optional (as the spec says), unknown fields
 * are kept (the service may add fields at any time), and an unknown `status` string is accepted.
 * @module
 */
import * as z from 'zod/mini';
import { TASK_STATUSES } from '../lifecycle.js';

/** The nine task statuses of spec § "States and transitions" (their order and transitions: `src/lifecycle.ts`). */
export const TaskStatus = z.enum(TASK_STATUSES);
/** A task status the spec lists. Responses may also carry statuses it does not: see {@link AnyTaskStatus}. */
export type TaskStatus = z.infer<typeof TaskStatus>;

/**
 * A status as found in a response: one of {@link TaskStatus}, or any other string the service may
 * add later (webhook bodies also use `inprogress`). Typed so editors still suggest the known values.
 */
export const AnyTaskStatus = z.string() as z.ZodMiniType<TaskStatus | (string & {}), string>;
/** A status as found in a response: a known {@link TaskStatus} or any other string. */
export type AnyTaskStatus = z.infer<typeof AnyTaskStatus>;

/** One status change; `id` is present in API responses and absent in webhook bodies. */
export const StatusHistoryEntry = z.looseObject({
  id: z.optional(z.string()),
  status: z.optional(AnyTaskStatus),
  /** ISO 8601 date-time. */
  timestamp: z.optional(z.string()),
});
export type StatusHistoryEntry = z.infer<typeof StatusHistoryEntry>;

/** The assigned driver. `completed_at` appears in webhook bodies. */
export const Driver = z.looseObject({
  name: z.optional(z.string()),
  phone: z.optional(z.string()),
  /** URL of the live tracking page. */
  trackingLink: z.optional(z.string()),
  /** ISO 8601 date-time; webhook bodies only. */
  completed_at: z.optional(z.string()),
});
export type Driver = z.infer<typeof Driver>;

/** The seller's shop details. */
export const SellerDetail = z.looseObject({
  shopName: z.optional(z.string()),
  phone: z.optional(z.string()),
  address: z.optional(z.string()),
  location: z.optional(z.string()),
});
export type SellerDetail = z.infer<typeof SellerDetail>;

/** A point in decimal degrees (the `pickupLocation` of a task in responses). */
export const Coordinates = z.looseObject({
  latitude: z.optional(z.number()),
  longitude: z.optional(z.number()),
});
export type Coordinates = z.infer<typeof Coordinates>;

/** Structured parts of an address. */
export const AddressParts = z.looseObject({
  streetNumber: z.optional(z.string()),
  streetName: z.optional(z.string()),
  neighborhood: z.optional(z.string()),
  locality: z.optional(z.string()),
  administrativeArea: z.optional(z.string()),
  country: z.optional(z.string()),
  postalCode: z.optional(z.string()),
});
export type AddressParts = z.infer<typeof AddressParts>;

/** One address: a display line and its structured parts. */
export const AddressEntry = z.looseObject({
  address: z.optional(z.string()),
  moreInfo: z.optional(AddressParts),
});
export type AddressEntry = z.infer<typeof AddressEntry>;

/** Pickup (`fromAddr`) and delivery (`toAddr`) addresses. */
export const AddressDetails = z.looseObject({
  fromAddr: z.optional(AddressEntry),
  toAddr: z.optional(AddressEntry),
});
export type AddressDetails = z.infer<typeof AddressDetails>;

/**
 * Distance and travel time. The spec does not give units ("not shown"); the mock sends kilometres
 * and minutes.
 */
export const TravelDetail = z.looseObject({
  totalDistance: z.optional(z.number()),
  duration: z.optional(z.number()),
  durationInTraffic: z.optional(z.number()),
  hasTraffic: z.optional(z.boolean()),
  estimatedDelayByTraffic: z.optional(z.number()),
});
export type TravelDetail = z.infer<typeof TravelDetail>;

/** Fields of a task common to API responses and webhook bodies. */
export const taskFields = {
  id: z.optional(z.string()),
  sellerId: z.optional(z.string()),
  sellerName: z.optional(z.string()),
  orderNumber: z.optional(z.string()),
  customerName: z.optional(z.string()),
  customerNumber: z.optional(z.string()),
  alternateCustomerNumber: z.optional(z.string()),
  deliveryZone: z.optional(z.string()),
  additionalAddressDetail: z.optional(z.string()),
  collectCash: z.optional(z.boolean()),
  /** Amount to collect, KWD decimal text (up to 3 decimals). */
  totalAmount: z.optional(z.string()),
  specialNotes: z.optional(z.string()),
  status: z.optional(AnyTaskStatus),
  retailpartner: z.optional(z.boolean()),
  customPickup: z.optional(z.boolean()),
  statusHistory: z.optional(z.array(StatusHistoryEntry)),
  /** ISO 8601 date-time. */
  createdAt: z.optional(z.string()),
  /** ISO 8601 date-time. */
  updatedAt: z.optional(z.string()),
  deliveryId: z.optional(z.string()),
  driver: z.optional(Driver),
  /** ISO 8601 date-time. */
  deliveryTime: z.optional(z.string()),
  /** ISO 8601 date-time. */
  completedTime: z.optional(z.string()),
  sellerDetail: z.optional(SellerDetail),
  deliveryDispatched: z.optional(z.boolean()),
  pickupLocation: z.optional(Coordinates),
  addressDetails: z.optional(AddressDetails),
  travelDetail: z.optional(TravelDetail),
  /** Raw update from the dispatch provider; its fields are not documented. */
  dispatchwebhookrequest: z.optional(z.record(z.string(), z.unknown())),
};

/** A delivery task as the service returns it (spec § Task). Every field is optional; unknown ones are kept. */
export const Task = z.looseObject(taskFields);
export type Task = z.infer<typeof Task>;
