/**
 * Taking an order (docs/several-instances.md): a new one by `setIfAbsent` of a `sending` record, one not
 * held by compare-and-set; the shared store's `epoch` is read beside it.
 * @module
 */
import { storeKey } from '../../core/store.js';
import type { ResourceContext } from '../../internal/context.js';
import { FRESH_STORE_MS, IN_FLIGHT_ALLOWANCE_MS, LEASE_TTL_MS, type LeaseOptions } from './lease-terms.js';
import type { OrderRecord, SendingRecord } from './order-record.js';
import type { PriorAttempt } from './prior-attempt.js';

/** A new holder's `until` allows this before its first POST, which then writes nothing first, ms. */
const FIRST_POST_ALLOWANCE_MS = 1000;

/** An order this create took. */
export interface Held {
  readonly raw: string;
  readonly record: SendingRecord;
  readonly prior: PriorAttempt | undefined;
  /** Until when the previous holder's POST may be in flight. */
  readonly inFlightUntil: number | undefined;
  /** The task the record remembered, for a repeat delivery. */
  readonly earlierTaskId: string | undefined;
}

/**
 * Takes a new order by `setIfAbsent`, one not held by compare-and-set of `raw`, reading a shared store's
 * epoch beside it; `undefined` when another process got there first. A previous holder's POST may be in
 * flight until its `until` plus `stalledMs`, the time this caller was held while waiting.
 * @throws {StoreUnavailableError} when either call fails (the order is given back).
 */
export async function takeOrder(
  context: ResourceContext,
  key: string,
  raw: string | undefined,
  record: OrderRecord | undefined,
  options: LeaseOptions,
  stalledMs: number,
): Promise<Held | undefined> {
  const { store, orderTtlMs, listingDelayMs } = context;
  const now = Date.now();
  const forgotten = record?.state === 'created' && !options.repeatDelivery;
  // Kept in a repeat delivery's records: the order's task stays known to its first deliveries.
  const earlierTaskId = options.repeatDelivery ? record?.taskId : undefined;
  const inFlightUntil = record?.state === 'sending' ? (record.until ?? now) + stalledMs : undefined;
  const recorded: PriorAttempt | undefined =
    inFlightUntil !== undefined && record?.state === 'sending'
      ? { since: record.since, decidableAt: inFlightUntil + listingDelayMs, unanswered: true }
      : record?.state === 'failed' && record.since !== undefined
        ? {
            since: record.since,
            decidableAt: Number(record.decidableAt) || record.at + listingDelayMs,
            unanswered: true,
          }
        : forgotten
          ? { since: now - orderTtlMs, decidableAt: now }
          : undefined;
  // A repeat delivery takes a first delivery's attempt as an earlier delivery's, not as its own.
  if (
    recorded !== undefined &&
    options.repeatDelivery &&
    record?.state !== 'created' &&
    record?.repeat !== true
  )
    recorded.ofEarlierDelivery = true;
  const next: SendingRecord = {
    state: 'sending',
    since: recorded?.since ?? now,
    fence: (Number(record?.fence) || 0) + 1,
    until: Math.max(
      now +
        Math.min(options.attemptTimeoutMs, options.run.remaining()) +
        IN_FLIGHT_ALLOWANCE_MS +
        FIRST_POST_ALLOWANCE_MS,
      inFlightUntil ?? 0,
    ),
    holder: crypto.randomUUID(),
    leaseUntil: now + LEASE_TTL_MS,
    ...(options.repeatDelivery ? { repeat: true } : {}),
    ...(earlierTaskId === undefined ? {} : { taskId: earlierTaskId }),
  };
  const nextRaw = JSON.stringify(next);
  // A second delivery would find the first one.
  const epoch =
    recorded === undefined && context.sharedStore && !options.repeatDelivery ? freshSince(context) : 0;
  const [taken, fresh] = await Promise.allSettled([
    raw === undefined
      ? store.setIfAbsent(key, nextRaw, orderTtlMs)
      : store.compareAndSet(key, raw, nextRaw, orderTtlMs),
    epoch,
  ]);
  if (taken.status === 'rejected') throw taken.reason;
  if (!taken.value) return undefined;
  if (fresh.status === 'rejected') {
    // Nothing was sent: give the order back (it was absent, or said nothing was created).
    await store.delete(key, nextRaw).catch(() => {});
    throw fresh.reason;
  }
  const since = fresh.value || undefined;
  return {
    raw: nextRaw,
    record: next,
    prior: recorded ?? (since === undefined ? undefined : { since, decidableAt: now }),
    inFlightUntil,
    earlierTaskId,
  };
}

/**
 * When the shared store's records began, if less than {@link FRESH_STORE_MS} ago (earlier records may be
 * lost). The first create that misses the `epoch` key writes it, for `orderTtlMs`.
 */
async function freshSince(context: ResourceContext): Promise<number | undefined> {
  const epochKey = storeKey(context.storeScope, 'epoch');
  let raw = await context.store.get(epochKey);
  if (raw === undefined) {
    const now = String(Date.now());
    raw = (await context.store.setIfAbsent(epochKey, now, context.orderTtlMs))
      ? now
      : await context.store.get(epochKey);
  }
  const began = Number(raw);
  return Number.isFinite(began) && Date.now() - began < FRESH_STORE_MS ? began : undefined;
}
