/**
 * The Task resource and its parts; the OpenAPI document's schemas (Task, StatusHistoryEntry,
 * Driver, SellerDetail, Coordinates, AddressDetails, AddressEntry, TravelDetail); README "Endpoints".
 *
 * Response schemas are loose: every documented field is optional (as the spec says), unknown fields
 * are kept (the service may add fields at any time), and an unknown `status` string is accepted.
 * @module
 */
import * as z from 'zod/mini';
import { nonEmptyText } from './checks.js';
import { TASK_STATUSES } from './lifecycle.js';

/**
 * The nine task statuses of OpenAPI schema `TaskStatus` (their order and transitions: README
 * "What the spec leaves open, and what we chose").
 * Marked pure: responses are read with {@link AnyTaskStatus}, so a bundle that does not use this schema
 * (the client's) leaves it, and zod's enum type, out.
 */
export const TaskStatus = /* @__PURE__ */ z.enum(TASK_STATUSES);
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
  /** Entry identifier: present in API responses, absent in webhook bodies. */
  id: z.optional(z.string()),
  /** A status value (in webhook bodies also an event kind such as `inprogress`). */
  status: z.optional(AnyTaskStatus),
  /** ISO 8601 date-time. */
  timestamp: z.optional(z.string()),
});
export type StatusHistoryEntry = z.infer<typeof StatusHistoryEntry>;

/** The assigned driver. `completed_at` appears in webhook bodies. */
export const Driver = z.looseObject({
  /** Driver name. */
  name: z.optional(z.string()),
  /** Driver phone number. */
  phone: z.optional(z.string()),
  /** URL of the live tracking page. */
  trackingLink: z.optional(z.string()),
  /** ISO 8601 date-time; webhook bodies only. */
  completed_at: z.optional(z.string()),
});
export type Driver = z.infer<typeof Driver>;

/** The seller's shop details. */
export const SellerDetail = z.looseObject({
  /** Shop name. */
  shopName: z.optional(z.string()),
  /** Shop phone number. */
  phone: z.optional(z.string()),
  /** Shop address. */
  address: z.optional(z.string()),
  /** Shop location. */
  location: z.optional(z.string()),
});
export type SellerDetail = z.infer<typeof SellerDetail>;

/** A point in decimal degrees (the `pickupLocation` of a task in responses). */
export const Coordinates = z.looseObject({
  /** Latitude, decimal degrees. */
  latitude: z.optional(z.number()),
  /** Longitude, decimal degrees. */
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
  /** The address as one line. */
  address: z.optional(z.string()),
  /** Structured parts of the address. */
  moreInfo: z.optional(AddressParts),
});
export type AddressEntry = z.infer<typeof AddressEntry>;

/** Pickup (`fromAddr`) and delivery (`toAddr`) addresses. */
export const AddressDetails = z.looseObject({
  /** Pickup address. */
  fromAddr: z.optional(AddressEntry),
  /** Delivery address. */
  toAddr: z.optional(AddressEntry),
});
export type AddressDetails = z.infer<typeof AddressDetails>;

/**
 * Distance and travel time. The spec does not give units ("not shown"); the mock sends kilometres
 * and minutes.
 */
export const TravelDetail = z.looseObject({
  /** Distance. */
  totalDistance: z.optional(z.number()),
  /** Travel time. */
  duration: z.optional(z.number()),
  /** Travel time in traffic. */
  durationInTraffic: z.optional(z.number()),
  /** Traffic affects the trip. */
  hasTraffic: z.optional(z.boolean()),
  /** Delay caused by traffic. */
  estimatedDelayByTraffic: z.optional(z.number()),
});
export type TravelDetail = z.infer<typeof TravelDetail>;

/** Fields of a task common to API responses and webhook bodies. */
export const taskFields = {
  /** Task identifier. */
  id: z.optional(z.string()),
  /** Seller identifier. */
  sellerId: z.optional(z.string()),
  /** Seller name. */
  sellerName: z.optional(z.string()),
  /** Seller's order number. */
  orderNumber: z.optional(z.string()),
  /** Customer name. */
  customerName: z.optional(z.string()),
  /** Customer contact number. */
  customerNumber: z.optional(z.string()),
  /** Alternate customer contact number. */
  alternateCustomerNumber: z.optional(z.string()),
  /** Delivery zone. */
  deliveryZone: z.optional(z.string()),
  /** Extra address detail. */
  additionalAddressDetail: z.optional(z.string()),
  /** Cash is to be collected on delivery. */
  collectCash: z.optional(z.boolean()),
  /** Amount to collect, KWD decimal text (up to 3 decimals). */
  totalAmount: z.optional(z.string()),
  /** Notes for the delivery. */
  specialNotes: z.optional(z.string()),
  /**
   * Current status: one of TaskStatus. Other strings may appear (webhook bodies carry `inprogress`); receivers tolerate
   * them.
   */
  status: z.optional(AnyTaskStatus),
  /**
   * Flags an order from a particular retail partner (the interface's own field name holds that partner's brand; a
   * neutral word is used here).
   */
  retailpartner: z.optional(z.boolean()),
  /** A custom pickup was requested. */
  customPickup: z.optional(z.boolean()),
  /** History of status changes, one entry per change. */
  statusHistory: z.optional(z.array(StatusHistoryEntry)),
  /** ISO 8601 date-time. */
  createdAt: z.optional(z.string()),
  /** ISO 8601 date-time. */
  updatedAt: z.optional(z.string()),
  /** Identifier of the delivery. */
  deliveryId: z.optional(z.string()),
  /** Assigned driver. */
  driver: z.optional(Driver),
  /** ISO 8601 date-time. */
  deliveryTime: z.optional(z.string()),
  /** ISO 8601 date-time. */
  completedTime: z.optional(z.string()),
  /** Seller details. */
  sellerDetail: z.optional(SellerDetail),
  /** The delivery has been dispatched. */
  deliveryDispatched: z.optional(z.boolean()),
  /** Pickup coordinates. */
  pickupLocation: z.optional(Coordinates),
  /** Detailed addresses. */
  addressDetails: z.optional(AddressDetails),
  /** Distance and time. */
  travelDetail: z.optional(TravelDetail),
  /** Raw update from the dispatch provider: an object whose fields are not documented (all kept). */
  dispatchwebhookrequest: z.optional(z.looseObject({})),
};

/** A delivery task as the service returns it (OpenAPI schema `Task`). Every field is optional; unknown ones are kept. */
export const Task = z.looseObject(taskFields);
export type Task = z.infer<typeof Task>;

/**
 * A task whose `id` is known: what `tasks.create` and `tasks.retrieve` resolve to. A created task's id is
 * load-bearing (README "Schema drift"); a retrieved task's must be the id asked for.
 */
export const TaskWithId = z.looseObject({
  ...taskFields,
  /** Task identifier, never empty. */
  id: nonEmptyText(),
});
export type TaskWithId = z.infer<typeof TaskWithId>;
