/**
 * The terms of an order's lease (docs/several-instances.md): how long it lives, the allowances around a
 * POST's flight, and what a create under it is given.
 * @module
 */
import type { CreateRun } from './create-run.js';

/** Lifetime of a lease, ms; renewed every third of it. */
export const LEASE_TTL_MS = 10_000;
/** How long a failure stays readable for the processes that waited on it, ms. */
export const FAILED_RECORD_TTL_MS = 60_000;
/** How long after a shared store's records begin creates look first, ms. */
export const FRESH_STORE_MS = 120_000;
/** Reads and compare-and-sets in a row without a pause (each lost a race). */
export const MAX_STEPS = 4;
/**
 * Added to an attempt's timeout for `until`: a late abort timer and clock differences between processes, ms.
 */
export const IN_FLIGHT_ALLOWANCE_MS = 250;

/** The reason an error gives after waiting `waitMs` for another process creating the order. */
export const waitedTooLong = (waitMs: number) =>
  `another process has been creating this order for over ${waitMs} ms`;
/** The reason an error gives when the caller aborts while another process creates the order. */
export const ABORTED_WAITING = 'the caller aborted while another process was creating this order';

/** Options of `createUnderLease` (`order-lease.ts`). */
export interface LeaseOptions {
  /** A deliberate second delivery. */
  repeatDelivery: boolean;
  /** How long to wait for another process's create, ms. */
  waitMs: number;
  /** The attempt timeout of this create's POSTs, ms. */
  attemptTimeoutMs: number;
  /** Aborted when every caller has left. */
  signal: AbortSignal | undefined;
  /** The create's deadline and progress: every wait ends with it. */
  run: CreateRun;
}
