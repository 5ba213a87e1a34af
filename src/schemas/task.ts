/**
 * The Task resource and its parts (OpenAPI schemas of the same names), read loosely; README "Endpoints".
 * @module
 */
import * as z from 'zod/mini';
import { nonEmptyText } from './checks.js';
import { TASK_STATUSES } from './lifecycle.js';

/** True when A and B are the same type: each documented interface is checked against its schema with it. */
export type SameType<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
export type Assert<T extends true[]> = T;

/**
 * The nine statuses of OpenAPI schema `TaskStatus` (README "What the spec leaves open, and what we chose").
 */
export const TaskStatus = /* @__PURE__ */ z.enum(TASK_STATUSES);
export type TaskStatus = z.infer<typeof TaskStatus>;

/**
 * A status in a response: a {@link TaskStatus} or any other string (webhook bodies also carry `inprogress`).
 */
export const AnyTaskStatus = z.string() as z.ZodMiniType<TaskStatus | (string & {}), string>;
export type AnyTaskStatus = z.infer<typeof AnyTaskStatus>;

/** One status change. */
export interface StatusHistoryEntry {
  /** Entry id; absent in webhook bodies. */
  id?: string | undefined;
  /** The status (in webhook bodies also an event kind such as `inprogress`). */
  status?: AnyTaskStatus | undefined;
  /** ISO 8601 date-time. */
  timestamp?: string | undefined;
  [field: string]: unknown;
}
export const StatusHistoryEntry = z.looseObject({
  id: z.optional(z.string()),
  status: z.optional(AnyTaskStatus),
  timestamp: z.optional(z.string()),
});

/** The assigned driver. */
export interface Driver {
  /** Driver's name. */
  name?: string | undefined;
  /** Driver's phone number. */
  phone?: string | undefined;
  /** URL of the live tracking page. */
  trackingLink?: string | undefined;
  /** ISO 8601 date-time; webhook bodies only. */
  completed_at?: string | undefined;
  [field: string]: unknown;
}
export const Driver = z.looseObject({
  name: z.optional(z.string()),
  phone: z.optional(z.string()),
  trackingLink: z.optional(z.string()),
  completed_at: z.optional(z.string()),
});

/** The seller's shop. */
export interface SellerDetail {
  /** Shop name. */
  shopName?: string | undefined;
  /** Shop phone number. */
  phone?: string | undefined;
  /** Shop address, one line. */
  address?: string | undefined;
  /** Shop location, as the service words it. */
  location?: string | undefined;
  [field: string]: unknown;
}
export const SellerDetail = z.looseObject({
  shopName: z.optional(z.string()),
  phone: z.optional(z.string()),
  address: z.optional(z.string()),
  location: z.optional(z.string()),
});

/** A point in decimal degrees. */
export interface Coordinates {
  /** Latitude, decimal degrees. */
  latitude?: number | undefined;
  /** Longitude, decimal degrees. */
  longitude?: number | undefined;
  [field: string]: unknown;
}
export const Coordinates = z.looseObject({
  latitude: z.optional(z.number()),
  longitude: z.optional(z.number()),
});

/** Structured parts of an address. */
export interface AddressParts {
  /** Street number. */
  streetNumber?: string | undefined;
  /** Street name. */
  streetName?: string | undefined;
  /** Neighbourhood (in Kuwait, the block's area). */
  neighborhood?: string | undefined;
  /** City or town. */
  locality?: string | undefined;
  /** Governorate or state. */
  administrativeArea?: string | undefined;
  /** Country. */
  country?: string | undefined;
  /** Postal code. */
  postalCode?: string | undefined;
  [field: string]: unknown;
}
export const AddressParts = z.looseObject({
  streetNumber: z.optional(z.string()),
  streetName: z.optional(z.string()),
  neighborhood: z.optional(z.string()),
  locality: z.optional(z.string()),
  administrativeArea: z.optional(z.string()),
  country: z.optional(z.string()),
  postalCode: z.optional(z.string()),
});

/** One address: a display line and its parts. */
export interface AddressEntry {
  /** The address as one line. */
  address?: string | undefined;
  /** Its structured parts. */
  moreInfo?: AddressParts | undefined;
  [field: string]: unknown;
}
export const AddressEntry = z.looseObject({
  address: z.optional(z.string()),
  moreInfo: z.optional(AddressParts),
});

/** Pickup and delivery addresses. */
export interface AddressDetails {
  /** Pickup address. */
  fromAddr?: AddressEntry | undefined;
  /** Delivery address. */
  toAddr?: AddressEntry | undefined;
  [field: string]: unknown;
}
export const AddressDetails = z.looseObject({
  fromAddr: z.optional(AddressEntry),
  toAddr: z.optional(AddressEntry),
});

/** Distance and travel time; the spec gives no units (the mock sends kilometres and minutes). */
export interface TravelDetail {
  /** Distance. */
  totalDistance?: number | undefined;
  /** Travel time. */
  duration?: number | undefined;
  /** Travel time in traffic. */
  durationInTraffic?: number | undefined;
  /** Traffic affects the trip. */
  hasTraffic?: boolean | undefined;
  /** Delay caused by traffic. */
  estimatedDelayByTraffic?: number | undefined;
  [field: string]: unknown;
}
export const TravelDetail = z.looseObject({
  totalDistance: z.optional(z.number()),
  duration: z.optional(z.number()),
  durationInTraffic: z.optional(z.number()),
  hasTraffic: z.optional(z.boolean()),
  estimatedDelayByTraffic: z.optional(z.number()),
});

/** The fields of a task shared by API responses and webhook bodies ({@link Task}, {@link WebhookTask}). */
export interface TaskFields {
  /** Task id. */
  id?: string | undefined;
  /** Seller id. */
  sellerId?: string | undefined;
  /** Seller's name. */
  sellerName?: string | undefined;
  /** The seller's order number (set on create; keys the lookups of README "Exactly-once creation"). */
  orderNumber?: string | undefined;
  /** Customer's name. */
  customerName?: string | undefined;
  /** Customer's phone number. */
  customerNumber?: string | undefined;
  /** Customer's other phone number (may be `""` in webhook bodies). */
  alternateCustomerNumber?: string | undefined;
  /** Delivery zone. */
  deliveryZone?: string | undefined;
  /** Address detail for the driver (floor, door…). */
  additionalAddressDetail?: string | undefined;
  /** Cash is collected on delivery. */
  collectCash?: boolean | undefined;
  /** Amount to collect: KWD as decimal text, up to 3 decimals (`"12.500"`); `kwd.toFils` converts it. */
  totalAmount?: string | undefined;
  /** Notes for the driver. */
  specialNotes?: string | undefined;
  /** Current status: a {@link TaskStatus}, or another string the service adds (kept, never rejected). */
  status?: AnyTaskStatus | undefined;
  /** The order comes from the service's retail partner (the interface's own name for the flag). */
  retailpartner?: boolean | undefined;
  /** The task picks up from a branch or custom point, not the seller's default. */
  customPickup?: boolean | undefined;
  /** Status changes, oldest first. */
  statusHistory?: StatusHistoryEntry[] | undefined;
  /** ISO 8601 date-time the task was created. */
  createdAt?: string | undefined;
  /** ISO 8601 date-time of the last change. */
  updatedAt?: string | undefined;
  /** Id of the delivery at the dispatch provider. */
  deliveryId?: string | undefined;
  /** Assigned driver. */
  driver?: Driver | undefined;
  /** ISO 8601 date-time of delivery. */
  deliveryTime?: string | undefined;
  /** ISO 8601 date-time the task completed. */
  completedTime?: string | undefined;
  /** The seller's shop. */
  sellerDetail?: SellerDetail | undefined;
  /** The delivery has been dispatched to a driver. */
  deliveryDispatched?: boolean | undefined;
  /** Pickup point. */
  pickupLocation?: Coordinates | undefined;
  /** Pickup and delivery addresses. */
  addressDetails?: AddressDetails | undefined;
  /** Distance and travel time. */
  travelDetail?: TravelDetail | undefined;
  /** The dispatch provider's last update as received; its fields are not documented (all kept). */
  dispatchwebhookrequest?: { [field: string]: unknown } | undefined;
}

/** The zod shape of {@link TaskFields}. */
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
  totalAmount: z.optional(z.string()),
  specialNotes: z.optional(z.string()),
  status: z.optional(AnyTaskStatus),
  retailpartner: z.optional(z.boolean()),
  customPickup: z.optional(z.boolean()),
  statusHistory: z.optional(z.array(StatusHistoryEntry)),
  createdAt: z.optional(z.string()),
  updatedAt: z.optional(z.string()),
  deliveryId: z.optional(z.string()),
  driver: z.optional(Driver),
  deliveryTime: z.optional(z.string()),
  completedTime: z.optional(z.string()),
  sellerDetail: z.optional(SellerDetail),
  deliveryDispatched: z.optional(z.boolean()),
  pickupLocation: z.optional(Coordinates),
  addressDetails: z.optional(AddressDetails),
  travelDetail: z.optional(TravelDetail),
  dispatchwebhookrequest: z.optional(z.looseObject({})),
};

/**
 * A delivery task as the service returns it (OpenAPI schema `Task`): every field optional, unknown ones kept.
 */
export interface Task extends TaskFields {
  [field: string]: unknown;
}
export const Task = z.looseObject(taskFields);

/**
 * A task whose `id` is known: what `tasks.create` and `tasks.retrieve` resolve to (README "Schema drift").
 */
export interface TaskWithId extends Task {
  /** Task id, never empty. */
  id: string;
}
export const TaskWithId = z.looseObject({ ...taskFields, id: nonEmptyText() });

export type TaskSchemasMatch = Assert<
  [
    SameType<StatusHistoryEntry, z.infer<typeof StatusHistoryEntry>>,
    SameType<Driver, z.infer<typeof Driver>>,
    SameType<SellerDetail, z.infer<typeof SellerDetail>>,
    SameType<Coordinates, z.infer<typeof Coordinates>>,
    SameType<AddressParts, z.infer<typeof AddressParts>>,
    SameType<AddressEntry, z.infer<typeof AddressEntry>>,
    SameType<AddressDetails, z.infer<typeof AddressDetails>>,
    SameType<TravelDetail, z.infer<typeof TravelDetail>>,
    SameType<Task, z.infer<typeof Task>>,
    SameType<TaskWithId, z.infer<typeof TaskWithId>>,
  ]
>;
