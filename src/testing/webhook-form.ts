/**
 * The webhook form of a task: the body the service POSTs on a status change (OpenAPI webhook `taskStatusChanged`
 * and OpenAPI schema `WebhookTask`).
 *
 * Differences from the API form: `_id` carries the task id (there is no `id`); `status` is the event
 * (which may be `inprogress` or `pickup_location_reached`); `statusHistory` entries have no `id` and
 * include the webhook-only events; `deliveryLocation` is `{ lat, lng, kwAddress, fullAddress }`;
 * `pickupLocation` is `{ longitude, latitude, fullAddress }`; and it adds `estimatedPrice` (the fee as
 * 3-decimal KWD text), `walletDeducted`, `vehicleType` (`'bike'`), `pickupName`, `pickupNumber`,
 * `alternateCustomerNumber` (`''` when absent) and, once delivered, `driver.completed_at`.
 * @module
 */
import { kwd } from '../kwd.js';
import type { TaskRecord } from './state.js';

/** The vehicle type every mock delivery uses. */
export const MOCK_VEHICLE_TYPE = 'bike';

interface EchoedLocation {
  latitude: number;
  longitude: number;
  fullAddress?: unknown;
}

function isLocation(value: unknown): value is EchoedLocation {
  if (typeof value !== 'object' || value === null) return false;
  const { latitude, longitude } = value as Record<string, unknown>;
  return typeof latitude === 'number' && typeof longitude === 'number';
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function linesOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((line): line is string => typeof line === 'string') : [];
}

/**
 * The webhook body for `event` of a stored task, as of now (call it right after the event was applied
 * so that `statusHistory` ends with it). A fresh object, safe to keep.
 */
export function webhookFormOf(record: TaskRecord, event: string): Record<string, unknown> {
  const {
    id,
    statusHistory: _apiHistory,
    deliveryLocation,
    pickupLocation,
    driver,
    ...fields
  } = structuredClone(record.task);
  const body: Record<string, unknown> = {
    _id: id,
    ...fields,
    status: event,
    statusHistory: record.events.map(({ status, timestamp }) => ({ status, timestamp })),
    estimatedPrice: kwd.fromFils(record.feeFils),
    walletDeducted: record.walletDeducted,
    vehicleType: MOCK_VEHICLE_TYPE,
    pickupName: textOf(record.task.pickupName) ?? record.task.sellerDetail?.shopName ?? '',
    pickupNumber: textOf(record.task.pickupNumber) ?? record.task.sellerDetail?.phone ?? '',
    alternateCustomerNumber: record.task.alternateCustomerNumber ?? '',
  };
  if (isLocation(deliveryLocation)) {
    const lines = linesOf(deliveryLocation.fullAddress);
    body.deliveryLocation = {
      lat: deliveryLocation.latitude,
      lng: deliveryLocation.longitude,
      kwAddress: [...lines],
      fullAddress: lines,
    };
  }
  if (pickupLocation) {
    body.pickupLocation = {
      longitude: pickupLocation.longitude,
      latitude: pickupLocation.latitude,
      fullAddress: [...record.pickupAddress],
    };
  }
  if (driver) body.driver = record.completedAt ? { ...driver, completed_at: record.completedAt } : driver;
  return body;
}
