/**
 * The API form of a new task (OpenAPI schema `Task`): the request echoed plus what the service fills in.
 * @module
 */
import type * as z from 'zod';
import type { Branch } from '../schemas/branch.js';
import type { AddressEntry, SellerDetail, Task } from '../schemas/task.js';
import type { TaskCreateParams } from '../schemas/task-create.js';
import { noTravel, type TripDetail, travelDetailBetween } from './geo.js';
import type { MockPoint } from './types.js';

/** Create parameters after validation. */
export type CheckedCreateParams = z.output<typeof TaskCreateParams>;

/** Where a task is picked up. */
export interface Pickup {
  readonly point: MockPoint;
  readonly address: readonly string[];
}

/** Shop details the mock reports for the seller. */
export function sellerDetailOf(sellerName: string | undefined, origin: MockPoint): SellerDetail {
  return {
    shopName: sellerName ?? 'Mock Shop',
    phone: '+96522000000',
    address: 'Kuwait City, Kuwait',
    location: `${origin.latitude},${origin.longitude}`,
  };
}

function coordinatesOf(branch: Branch): MockPoint | undefined {
  const { latitude, longitude } = branch;
  return typeof latitude === 'number' && typeof longitude === 'number' ? { latitude, longitude } : undefined;
}

/** Pickup: `customPickup`'s `pickupLocation`, else the `selectedBranch`'s coordinates, else the origin. */
export function pickupOf(params: CheckedCreateParams, branch: Branch | undefined, origin: MockPoint): Pickup {
  const custom = params.customPickup === true ? params.pickupLocation : undefined;
  if (custom)
    return {
      point: { latitude: custom.latitude, longitude: custom.longitude },
      address: custom.fullAddress ?? [],
    };
  const branchPoint = branch && params.customPickup === true ? coordinatesOf(branch) : undefined;
  if (branch && branchPoint) {
    return {
      point: branchPoint,
      address: [typeof branch.address === 'string' ? branch.address : branch.name],
    };
  }
  return { point: origin, address: ['Kuwait City, Kuwait'] };
}

/** The distance and time from the pickup point to the delivery point; all 0 without a delivery point. */
export function tripOf(params: CheckedCreateParams, pickup: Pickup): TripDetail {
  return params.deliveryLocation ? travelDetailBetween(pickup.point, params.deliveryLocation) : noTravel();
}

function addressEntry(lines: readonly string[], zone: string | undefined): AddressEntry {
  return {
    address: lines.join(', '),
    moreInfo: {
      streetNumber: '',
      streetName: lines[0] ?? '',
      neighborhood: zone ?? '',
      locality: lines.length > 1 ? (lines.at(-1) ?? '') : '',
      administrativeArea: '',
      country: 'Kuwait',
      postalCode: '',
    },
  };
}

/** Everything about a new task that is not in the request. */
export interface NewTaskFacts {
  readonly id: string;
  readonly historyId: string;
  readonly deliveryId: string;
  readonly sellerId: string;
  /** ISO 8601. */
  readonly timestamp: string;
  readonly pickup: Pickup;
  readonly trip: TripDetail;
  readonly origin: MockPoint;
}

/** The API form of a new task. */
export function newTask(params: CheckedCreateParams, facts: NewTaskFacts): Task {
  return structuredClone({
    ...params,
    id: facts.id,
    sellerId: facts.sellerId,
    sellerName: params.sellerName ?? 'Mock Shop',
    collectCash: params.collectCash ?? false,
    customPickup: params.customPickup ?? false,
    retailpartner: false,
    status: 'pending',
    statusHistory: [{ id: facts.historyId, status: 'pending', timestamp: facts.timestamp }],
    createdAt: facts.timestamp,
    updatedAt: facts.timestamp,
    deliveryId: facts.deliveryId,
    deliveryDispatched: false,
    sellerDetail: sellerDetailOf(params.sellerName, facts.origin),
    pickupLocation: { latitude: facts.pickup.point.latitude, longitude: facts.pickup.point.longitude },
    addressDetails: {
      fromAddr: addressEntry(facts.pickup.address, undefined),
      toAddr: addressEntry(params.deliveryLocation?.fullAddress ?? [], params.deliveryZone),
    },
    travelDetail: { ...facts.trip },
  });
}
