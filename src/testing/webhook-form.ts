/** A task's webhook body (OpenAPI schema `WebhookTask`). @module */
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

/** A fresh webhook body for `event` of a stored task; call it right after applying the event. */
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
