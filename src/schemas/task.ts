/**
 * The Task resource and its parts; spec § "Resources and their fields" (Task, StatusHistoryEntry,
 * Driver, SellerDetail, Coordinates, AddressDetails, AddressEntry, TravelDetail) and § "States and
 * transitions".
 *
 * Response schemas are loose: every documented field is optional (as the spec says), unknown fields
 * are kept (the service may add fields at any time), and an unknown `status` string is accepted.
 * @module
 */
import * as z from 'zod';
import { TASK_STATUSES } from '../lifecycle.js';

/** The nine task statuses of spec § "States and transitions" (their order and transitions: `src/lifecycle.ts`). */
export const TaskStatus = z.enum(TASK_STATUSES);
/** A task status the spec lists. Responses may also carry statuses it does not: see {@link AnyTaskStatus}. */
export type TaskStatus = z.infer<typeof TaskStatus>;

/**
 * A status as found in a response: one of {@link TaskStatus}, or any other string the service may
 * add later (webhook bodies also use `inprogress`). Typed so editors still suggest the known values.
 */
export const AnyTaskStatus = z.string() as z.ZodType<TaskStatus | (string & {}), string>;
/** A status as found in a response: a known {@link TaskStatus} or any other string. */
export type AnyTaskStatus = z.infer<typeof AnyTaskStatus>;

/** One status change; `id` is present in API responses and absent in webhook bodies. */
export const StatusHistoryEntry = z.looseObject({
  id: z.string().optional(),
  status: AnyTaskStatus.optional(),
  /** ISO 8601 date-time. */
  timestamp: z.string().optional(),
});
export type StatusHistoryEntry = z.infer<typeof StatusHistoryEntry>;

/** The assigned driver. `completed_at` appears in webhook bodies. */
export const Driver = z.looseObject({
  name: z.string().optional(),
  phone: z.string().optional(),
  /** URL of the live tracking page. */
  trackingLink: z.string().optional(),
  /** ISO 8601 date-time; webhook bodies only. */
  completed_at: z.string().optional(),
});
export type Driver = z.infer<typeof Driver>;

/** The seller's shop details. */
export const SellerDetail = z.looseObject({
  shopName: z.string().optional(),
  phone: z.string().optional(),
  address: z.string().optional(),
  location: z.string().optional(),
});
export type SellerDetail = z.infer<typeof SellerDetail>;

/** A point in decimal degrees (the `pickupLocation` of a task in responses). */
export const Coordinates = z.looseObject({
  latitude: z.number().optional(),
  longitude: z.number().optional(),
});
export type Coordinates = z.infer<typeof Coordinates>;

/** Structured parts of an address. */
export const AddressParts = z.looseObject({
  streetNumber: z.string().optional(),
  streetName: z.string().optional(),
  neighborhood: z.string().optional(),
  locality: z.string().optional(),
  administrativeArea: z.string().optional(),
  country: z.string().optional(),
  postalCode: z.string().optional(),
});
export type AddressParts = z.infer<typeof AddressParts>;

/** One address: a display line and its structured parts. */
export const AddressEntry = z.looseObject({
  address: z.string().optional(),
  moreInfo: AddressParts.optional(),
});
export type AddressEntry = z.infer<typeof AddressEntry>;

/** Pickup (`fromAddr`) and delivery (`toAddr`) addresses. */
export const AddressDetails = z.looseObject({
  fromAddr: AddressEntry.optional(),
  toAddr: AddressEntry.optional(),
});
export type AddressDetails = z.infer<typeof AddressDetails>;

/**
 * Distance and travel time. The spec does not give units ("not shown"); the mock sends kilometres
 * and minutes.
 */
export const TravelDetail = z.looseObject({
  totalDistance: z.number().optional(),
  duration: z.number().optional(),
  durationInTraffic: z.number().optional(),
  hasTraffic: z.boolean().optional(),
  estimatedDelayByTraffic: z.number().optional(),
});
export type TravelDetail = z.infer<typeof TravelDetail>;

/** Fields of a task common to API responses and webhook bodies. */
export const taskFields = {
  id: z.string().optional(),
  sellerId: z.string().optional(),
  sellerName: z.string().optional(),
  orderNumber: z.string().optional(),
  customerName: z.string().optional(),
  customerNumber: z.string().optional(),
  alternateCustomerNumber: z.string().optional(),
  deliveryZone: z.string().optional(),
  additionalAddressDetail: z.string().optional(),
  collectCash: z.boolean().optional(),
  /** Amount to collect, KWD decimal text (up to 3 decimals). */
  totalAmount: z.string().optional(),
  specialNotes: z.string().optional(),
  status: AnyTaskStatus.optional(),
  retailpartner: z.boolean().optional(),
  customPickup: z.boolean().optional(),
  statusHistory: z.array(StatusHistoryEntry).optional(),
  /** ISO 8601 date-time. */
  createdAt: z.string().optional(),
  /** ISO 8601 date-time. */
  updatedAt: z.string().optional(),
  deliveryId: z.string().optional(),
  driver: Driver.optional(),
  /** ISO 8601 date-time. */
  deliveryTime: z.string().optional(),
  /** ISO 8601 date-time. */
  completedTime: z.string().optional(),
  sellerDetail: SellerDetail.optional(),
  deliveryDispatched: z.boolean().optional(),
  pickupLocation: Coordinates.optional(),
  addressDetails: AddressDetails.optional(),
  travelDetail: TravelDetail.optional(),
  /** Raw update from the dispatch provider; its fields are not documented. */
  dispatchwebhookrequest: z.record(z.string(), z.unknown()).optional(),
};

/** A delivery task as the service returns it (spec § Task). Every field is optional; unknown ones are kept. */
export const Task = z.looseObject(taskFields);
export type Task = z.infer<typeof Task>;
