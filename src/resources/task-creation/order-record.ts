/** The order's record in the store (one key per base URL, seller and `orderNumber`), also its lease. */
import {
  APIError,
  type DeliveryError,
  DuplicateTaskError,
  TaskCreationOutcomeUnknownError,
} from '../../core/errors.js';

/** A failure as other processes read it back: enough to rebuild the same typed error. */
export interface SharedFailure {
  name: string;
  message: string;
  status?: number;
  body?: unknown;
  taskIds?: readonly string[];
}

/**
 * An order being sent (ms since the epoch): `since` sending began, `until` its POST may be in flight,
 * `holder` holds it until `leaseUntil` (not held without one); `fence` counts the grants.
 */
export interface SendingRecord {
  state: 'sending';
  since: number;
  fence?: number | undefined;
  until?: number;
  holder?: string;
  leaseUntil?: number;
  /** Written by a repeat delivery (`repeatDelivery`); absent for a first delivery. */
  repeat?: true;
  /** A repeat delivery's: the order's task it found recorded (an earlier delivery). */
  taskId?: string;
}

export type OrderRecord =
  | SendingRecord
  | { state: 'created'; taskId: string; fence?: number | undefined }
  | FailedRecord;

/**
 * An attempt's failure; `since` kept when it may have created the task. Fields `undefined` are not written.
 */
export interface FailedRecord {
  state: 'failed';
  /**
   * When the create's callers were given the failure, ms since the epoch (before it was written, at a
   * deadline).
   */
  at: number;
  failure: SharedFailure;
  since?: number;
  decidableAt?: number | undefined;
  fence?: number | undefined;
  /** Written by a repeat delivery. */
  repeat?: true | undefined;
  /** A repeat delivery's: the order's task it found recorded (an earlier delivery). */
  taskId?: string | undefined;
}

export function readRecord(raw: string | undefined): OrderRecord | undefined {
  try {
    const record = JSON.parse(raw ?? 'null') as OrderRecord | null;
    // Another version's or a damaged record counts as absent.
    const usable =
      record?.taskId !== undefined && (typeof record.taskId !== 'string' || record.taskId === '')
        ? false
        : record?.state === 'created'
          ? typeof record.taskId === 'string' && record.taskId !== ''
          : record?.state === 'sending'
            ? typeof record.since === 'number'
            : record?.state === 'failed' &&
              typeof record.at === 'number' &&
              typeof record.failure === 'object' &&
              record.failure !== null;
    return usable ? (record as OrderRecord) : undefined;
  } catch {
    return undefined;
  }
}

export function share(error: unknown): SharedFailure {
  const failure: SharedFailure = {
    name: error instanceof Error ? error.name : 'Error',
    message: error instanceof Error ? error.message : String(error),
  };
  if (error instanceof APIError) {
    failure.status = error.status;
    failure.body = error.body;
  }
  if (error instanceof DuplicateTaskError) failure.taskIds = error.taskIds;
  return failure;
}

/** The typed error another process ended with, rebuilt from the record (same class, same status). */
export function revive(failure: SharedFailure, orderNumber: string): DeliveryError {
  if (failure.status !== undefined) {
    return APIError.generate({
      status: failure.status,
      headers: new Headers(),
      body: failure.body,
      method: 'POST',
      url: 'tasks',
      operation: 'tasks.create',
      urlTemplate: '/tasks',
    });
  }
  if (failure.name === 'DuplicateTaskError')
    return new DuplicateTaskError({ orderNumber, taskIds: failure.taskIds ?? [] });
  return new TaskCreationOutcomeUnknownError({
    orderNumber,
    reason: `the process that was creating this order ended with ${failure.name}`,
    retryAfterMs: 0,
  });
}
