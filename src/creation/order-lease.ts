/**
 * One create per order across processes (README "Running several instances"):
 * a lease per (seller, orderNumber) in the shared store, and the order's record there.
 *
 * - The process that takes the lease sends; the others wait (polling the record, within their own
 *   deadline) and get the same `Task`, or the same typed error, without a POST of their own.
 * - The record says `sending` (since when) while the holder works, `created` (with the task id) for
 *   `orderTtlMs` after a success, so creating a recent order again returns its task (read back by
 *   `GET tasks/{id}`) without a POST (a task that answers 404 there is forgotten: the order is looked up
 *   from `orderTtlMs` ago, once, and sent only if absent), or
 *   `failed` (with the error) for a short while after a failure, so the waiters get that error.
 * - A holder that dies leaves `sending` behind; its lease expires ({@link LEASE_TTL_MS}) and the next
 *   holder reconciles (looks the order up) before it sends.
 * - Fenced: each grant of an order's lease takes the next number of the order's fence (a counter in the
 *   store that only grows) and writes it into the record. Before each POST the holder rewrites its
 *   `sending` record by compare-and-set, stating until when that POST may be in flight (now plus the
 *   attempt timeout): a holder whose lease expired and was taken over finds the record changed and sends
 *   nothing more, and never writes the record again (its outcome is only logged). A new holder that finds
 *   another holder's POST possibly still in flight waits until then before looking the order up.
 * - An outcome that is not known (a timeout, an abort during reconciliation, a failed lookup:
 *   `TaskCreationOutcomeUnknownError`) keeps `since` in the record, so the next create of the order,
 *   from this client or another, looks it up before sending. Only a rejection (a 4xx: nothing created)
 *   drops it.
 * - A shared store that lost its keys (Redis restarted empty) cannot say an order was not being sent:
 *   for {@link FRESH_STORE_MS} after the store's records begin (an `epoch` key), every holder looks the
 *   order up before sending. (The default per-client memory store is not shared and skips this.)
 * - Before anything is sent, a store failure throws `StoreUnavailableError` (fail closed: never risk a
 *   second fee); after the POST, a store failure is logged and the task returned all the same.
 * @module
 */
import {
  APIError,
  type DeliveryError,
  DuplicateTaskError,
  NotFoundError,
  StoreUnavailableError,
  TaskCreationOutcomeUnknownError,
} from '../core/errors.js';
import { type StoreScope, storeKey } from '../core/store.js';
import { sleep } from '../internal/abort.js';
import { type ResourceContext, retrieveTask } from '../internal/context.js';
import type { CreateDeadline } from '../internal/create-deadline.js';
import { failureOutcome } from '../internal/failure.js';
import type { TaskWithId } from '../schemas/task.js';
import type { PriorAttempt } from './exactly-once-creation.js';

/** The scope of the client's keys: its base URL and seller id. */
const storeScopeOf = (context: ResourceContext): StoreScope => ({
  baseUrl: context.transport.baseUrl,
  sellerId: context.sellerId,
});

/** Lifetime of a lease, ms; the holder renews it every third of that while it works. */
export const LEASE_TTL_MS = 10_000;
/** How long a failure stays readable for the processes that waited on it, ms. */
export const FAILED_RECORD_TTL_MS = 60_000;
/** How long after a shared store's records begin (first use, or a restart that emptied it) creates look first, ms. */
export const FRESH_STORE_MS = 120_000;
/** Store calls that may fail in a row while a create waits on another process, before it gives up. */
const MAX_STORE_FAILURES_WHILE_WAITING = 3;
/** Longest pause between two reads of the record by a waiting process, ms. */
const MAX_POLL_MS = 250;

/** A failure as other processes read it back: enough to rebuild the same typed error. */
interface SharedFailure {
  name: string;
  message: string;
  status?: number;
  body?: unknown;
  taskIds?: readonly string[];
}

/**
 * The order's record in the store. `since`: when sending began, ms since the epoch; `fence`: the grant
 * of the lease that wrote it; `until`: the end of the holder's current POST's attempt timeout, ms since
 * the epoch (it may be in flight until then).
 */
type OrderRecord =
  | { state: 'sending'; since: number; fence?: number; until?: number }
  | { state: 'created'; taskId: string; fence?: number }
  | { state: 'failed'; at: number; failure: SharedFailure; since?: number; decidableAt?: number; fence?: number };

/** What the holder of an order's lease checks before each POST (see {@link createUnderLease}). */
export interface SendGuard {
  /**
   * Before a POST: throws when the lease was lost (taken over after it expired): before the first POST
   * a `StoreUnavailableError` (nothing sent), before a resend a `TaskCreationOutcomeUnknownError`. Else
   * records until when this POST may be in flight (`timeoutMs`, default the client's attempt timeout).
   */
  beforeAttempt(resend: boolean, timeoutMs?: number): Promise<void>;
}

/** Why a create gave up waiting on another process's create of the order. */
const waitedTooLong = (waitMs: number) => `another process has been creating this order for over ${waitMs} ms`;
const ABORTED_WAITING = 'the caller aborted while another process was creating this order';

/** Compare-and-set rounds taking the next fence before giving up (each means another grant raced this one). */
const MAX_FENCE_ROUNDS = 8;
/** Allowance added to an attempt's timeout for `until`: the POST's own setup and clock drift, ms. */
const IN_FLIGHT_ALLOWANCE_MS = 250;

/** A create whose failure proves nothing was created: a rejection (4xx), not duplicates found. */
function createdNothing(error: unknown): boolean {
  return failureOutcome(error) === 'rejected' && !(error instanceof DuplicateTaskError);
}

/** The fence of a record, 0 when it has none (written by an older version, or damaged). */
const fenceOf = (record: OrderRecord | undefined): number => Number(record?.fence) || 0;

/** Takes the order's next fence number, above `floor`: a counter in the store that only grows. */
async function nextFence(context: ResourceContext, key: string, floor: number): Promise<number> {
  for (let round = 0; round < MAX_FENCE_ROUNDS; round++) {
    const raw = await context.store.get(key);
    const current = Number(raw);
    const next = Math.max(Number.isSafeInteger(current) ? current : 0, floor) + 1;
    if (await context.store.compareAndSet(key, raw, String(next), context.orderTtlMs)) return next;
  }
  throw new StoreUnavailableError({ operation: 'compareAndSet', reason: 'fence contention' });
}

function readRecord(raw: string | undefined): OrderRecord | undefined {
  if (raw === undefined) return undefined;
  try {
    const record = JSON.parse(raw) as OrderRecord;
    if (typeof record !== 'object' || record === null) return undefined;
    // A record written by another version, or damaged, counts as absent rather than as an outcome.
    if (record.state === 'created')
      return typeof record.taskId === 'string' && record.taskId !== '' ? record : undefined;
    if (record.state === 'sending') return typeof record.since === 'number' ? record : undefined;
    return record.state === 'failed' &&
      typeof record.at === 'number' &&
      typeof record.failure === 'object' &&
      record.failure !== null
      ? record
      : undefined;
  } catch {
    return undefined;
  }
}

function share(error: unknown): SharedFailure {
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
function revive(failure: SharedFailure, orderNumber: string): DeliveryError {
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
  // Its own words only: the other process's message (and its advice) stays in that process's error.
  return new TaskCreationOutcomeUnknownError({
    orderNumber,
    reason: `the process that was creating this order ended with ${failure.name}`,
    retryAfterMs: 0,
  });
}

/** The remembered order's task, read back by `GET tasks/{id}` (retried when safe, within the deadline). */
async function readTask(context: ResourceContext, taskId: string, options: LeaseOptions): Promise<TaskWithId> {
  options.run.stage = 'reading back the task of this order';
  const { data } = await retrieveTask(
    context,
    taskId,
    'tasks.create',
    options.run.requestOptions(options.signal === undefined ? {} : { signal: options.signal }),
  );
  return data;
}

/**
 * The remembered order's task, or `undefined` when the service answers 404 for it: the task is gone (a
 * mock that was reset, a sandbox that restarted while the app kept running). The caller then forgets it
 * and looks the order up before sending.
 */
async function rememberedTask(
  context: ResourceContext,
  orderNumber: string,
  taskId: string,
  options: LeaseOptions,
): Promise<TaskWithId | undefined> {
  try {
    return await readTask(context, taskId, options);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    context.logger.warn(`The task remembered for order ${orderNumber} is gone (404); looking the order up`);
    return undefined;
  }
}

/**
 * How `send` is called: `prior` says when an earlier attempt may have created the order (look it up
 * before sending), `undefined` when none may have.
 */
export type LeasedSend = (prior: PriorAttempt | undefined, guard: SendGuard) => Promise<TaskWithId>;

/** Options of {@link createUnderLease}. */
export interface LeaseOptions {
  /** Send even when the order was created recently (a deliberate second delivery). */
  repeatDelivery: boolean;
  /** How long to wait for another process's create, ms. */
  waitMs: number;
  /** The flight's own signal (aborted when every caller has left): requests follow it. */
  signal: AbortSignal | undefined;
  /**
   * The create's deadline (`totalTimeout`) and progress: every wait here ends with its signal, and at
   * the deadline the create ends with its error.
   */
  run: CreateDeadline;
}

/**
 * Creates the order under its lease: returns the remembered task, waits for another process's outcome,
 * or takes the lease and calls `send(priorAttemptAt, guard)`, where `priorAttemptAt` is when an earlier
 * holder began sending without recording an outcome (the order must then be looked up before sending)
 * and `guard.beforeAttempt` must run before each POST.
 * @throws {StoreUnavailableError} when the store fails before anything was sent.
 * @throws {TaskCreationOutcomeUnknownError} when another process holds the lease past `waitMs` or the
 * create's deadline, or the caller aborts while waiting; the error another process's create ended with;
 * `send`'s own errors.
 */
export async function createUnderLease(
  context: ResourceContext,
  orderNumber: string,
  options: LeaseOptions,
  send: LeasedSend,
): Promise<TaskWithId> {
  const { store } = context;
  const scope = storeScopeOf(context);
  const orderKey = storeKey(scope, 'order', orderNumber);
  const leaseKey = storeKey(scope, 'order-lease', orderNumber);
  const calledAt = Date.now();
  // A failure already recorded when this call began is an earlier attempt's: this call sends again. One
  // recorded while it waited on another process's lease is the outcome it waited for.
  let waited = false;
  let storeFailures = 0;
  const { run } = options;
  // The id of a remembered task that answered 404: forgotten, the order is looked up under the lease.
  let gone: string | undefined;
  for (let pause = 20; ; pause = Math.min(pause * 2, MAX_POLL_MS)) {
    let token: string | undefined;
    run.stage = waited ? 'waiting for another process creating this order' : 'reading the order record in the store';
    try {
      const record = readRecord(await store.get(orderKey));
      if (record?.state === 'created' && !options.repeatDelivery && record.taskId !== gone) {
        const task = await rememberedTask(context, orderNumber, record.taskId, options);
        if (task !== undefined) return task;
        gone = record.taskId;
      }
      if (record?.state === 'failed' && waited && record.at >= calledAt) throw revive(record.failure, orderNumber);
      const candidate = crypto.randomUUID();
      if (await store.setIfAbsent(leaseKey, candidate, LEASE_TTL_MS)) token = candidate;
      storeFailures = 0;
    } catch (error) {
      // Waiting on another process, this caller sends nothing: a slow store call only delays it, a few times.
      if (!(error instanceof StoreUnavailableError) || !waited || ++storeFailures > MAX_STORE_FAILURES_WHILE_WAITING) {
        throw error;
      }
    }
    if (token !== undefined) return holdLease(context, { orderNumber, orderKey, leaseKey, token, gone }, options, send);
    // Another process holds the lease: its POST may reach the service.
    waited = true;
    run.mayHaveCreated = true;
    run.stage = 'waiting for another process creating this order';
    if (run.expired) throw run.error();
    if (Date.now() - calledAt >= options.waitMs) {
      throw new TaskCreationOutcomeUnknownError({
        orderNumber,
        reason: waitedTooLong(options.waitMs),
      });
    }
    try {
      await sleep(pause, run.signal);
    } catch (reason) {
      if (run.expired) throw run.error();
      throw new TaskCreationOutcomeUnknownError({
        orderNumber,
        reason: ABORTED_WAITING,
        cause: reason,
      });
    }
  }
}

async function holdLease(
  context: ResourceContext,
  keys: { orderNumber: string; orderKey: string; leaseKey: string; token: string; gone: string | undefined },
  options: LeaseOptions,
  send: LeasedSend,
): Promise<TaskWithId> {
  const { store, logger, orderTtlMs } = context;
  const { orderNumber, orderKey, leaseKey, token } = keys;
  let lost = false;
  const renew = setInterval(() => {
    store.compareAndSet(leaseKey, token, token, LEASE_TTL_MS).then(
      (held) => {
        // Taken over after it expired: the next attempt's guard says so.
        if (!held) lost = true;
      },
      (error: unknown) => {
        logger.warn(`Could not renew the lease of order ${orderNumber}: ${(error as Error).message}`);
      },
    );
  }, LEASE_TTL_MS / 3);
  (renew as { unref?: () => void }).unref?.();
  const { run } = options;
  try {
    // Read again under the lease: an outcome may have been recorded since the first read.
    run.stage = 'reading the order record in the store';
    const raw = await store.get(orderKey);
    const record = readRecord(raw);
    // A remembered task that answers 404 is forgotten: the order is looked up over the record's lifetime.
    const forgotten = record?.state === 'created' && !options.repeatDelivery;
    if (forgotten && record.taskId !== keys.gone) {
      const task = await rememberedTask(context, orderNumber, record.taskId, options);
      if (task !== undefined) return task;
    }
    const fence = await nextFence(
      context,
      storeKey(storeScopeOf(context), 'order-fence', orderNumber),
      fenceOf(record),
    );
    const now = Date.now();
    // When a lookup can decide: the earlier attempt's last POST may have reached the service until
    // `until` (a holder that died) or the failure's time; a forgotten task has no POST in flight.
    const recorded: PriorAttempt | undefined =
      record?.state === 'sending'
        ? { since: record.since, decidableAt: (record.until ?? now) + context.listingDelayMs }
        : record?.state === 'failed' && record.since !== undefined
          ? { since: record.since, decidableAt: Number(record.decidableAt) || record.at + context.listingDelayMs }
          : forgotten
            ? { since: now - orderTtlMs, decidableAt: now }
            : undefined;
    // A deliberate second delivery would find the first one: it only looks up a recorded attempt of its own kind.
    const freshFrom =
      recorded === undefined && context.sharedStore && !options.repeatDelivery ? await freshSince(context) : undefined;
    const prior = recorded ?? (freshFrom === undefined ? undefined : { since: freshFrom, decidableAt: now });
    // An earlier attempt (or one lost with the store's records) may have created the task.
    if (prior !== undefined) run.mayHaveCreated = true;
    let current: OrderRecord = { state: 'sending', since: prior?.since ?? Date.now(), fence };
    let currentRaw = JSON.stringify(current);
    if (!(await store.compareAndSet(orderKey, raw, currentRaw, orderTtlMs))) {
      throw new StoreUnavailableError({
        operation: 'compareAndSet',
        reason: 'the order record changed under the lease',
      });
    }
    // The previous holder's POST may still be on its way to the service: look it up only once it cannot be.
    const inFlightUntil = record?.state === 'sending' ? record.until : undefined;
    if (inFlightUntil !== undefined && inFlightUntil > Date.now()) {
      await waitForPreviousHolder(orderNumber, inFlightUntil, options);
    }
    const guard: SendGuard = {
      beforeAttempt: async (resend, timeoutMs) => {
        const next: OrderRecord = {
          ...current,
          until: Date.now() + (timeoutMs ?? context.attemptTimeoutMs) + IN_FLIGHT_ALLOWANCE_MS,
        } as OrderRecord;
        const nextRaw = JSON.stringify(next);
        if (lost || !(await store.compareAndSet(orderKey, currentRaw, nextRaw, orderTtlMs))) {
          lost = true;
          const reason = 'the lease expired and was taken over';
          if (resend) throw new TaskCreationOutcomeUnknownError({ orderNumber, reason });
          throw new StoreUnavailableError({ operation: 'compareAndSet', reason });
        }
        current = next;
        currentRaw = nextRaw;
      },
    };
    let task: TaskWithId;
    try {
      task = await send(prior, guard);
    } catch (error) {
      // A rejection created nothing, nor did a holder that sent no POST after no earlier attempt; other
      // failures may have: keep `since`, so the next holder looks first.
      const since = current.state === 'sending' ? current.since : undefined;
      const sentNothing = run.posts === 0 && prior === undefined;
      const failed: OrderRecord = {
        state: 'failed',
        at: Date.now(),
        failure: share(error),
        fence,
        ...(createdNothing(error) || sentNothing || since === undefined
          ? {}
          : { since, ...(run.decidableAt === undefined ? {} : { decidableAt: run.decidableAt }) }),
      };
      await recordOutcome(
        context,
        orderKey,
        currentRaw,
        failed,
        failed.since === undefined ? FAILED_RECORD_TTL_MS : orderTtlMs,
      );
      throw error;
    }
    await recordOutcome(context, orderKey, currentRaw, { state: 'created', taskId: task.id, fence }, orderTtlMs);
    return task;
  } finally {
    clearInterval(renew);
    store.delete(leaseKey, token).catch(() => {
      // The lease expires by itself.
    });
  }
}

/**
 * Waits until `until` (ms since the epoch), when another holder's POST of the order can no longer be in
 * flight, within the caller's wait deadline and signal.
 * @throws {TaskCreationOutcomeUnknownError} at once when that is past `waitMs` or the create's
 * deadline (`totalTimeout`), or when the caller aborts.
 */
async function waitForPreviousHolder(orderNumber: string, until: number, options: LeaseOptions): Promise<void> {
  const { run } = options;
  run.stage = 'waiting until an earlier POST of this order cannot be in flight';
  const ms = until - Date.now();
  if (ms > options.waitMs) {
    throw new TaskCreationOutcomeUnknownError({ orderNumber, reason: waitedTooLong(options.waitMs) });
  }
  if (ms > run.remaining()) {
    throw new TaskCreationOutcomeUnknownError({
      orderNumber,
      reason: `an earlier POST of this order may be in flight for ${ms} ms more, past the totalTimeout of ${run.totalTimeoutMs} ms`,
    });
  }
  try {
    await sleep(ms, run.signal);
  } catch (reason) {
    if (run.expired) throw run.error();
    throw new TaskCreationOutcomeUnknownError({ orderNumber, reason: ABORTED_WAITING, cause: reason });
  }
}

/**
 * When the shared store's records began, if that was less than {@link FRESH_STORE_MS} ago: records from
 * before (a restart that emptied it) may be lost, so the caller looks the order up from then. The
 * `epoch` key is written by the first create that finds it missing and lives `orderTtlMs`.
 */
async function freshSince(context: ResourceContext): Promise<number | undefined> {
  const epochKey = storeKey(storeScopeOf(context), 'epoch');
  let raw = await context.store.get(epochKey);
  if (raw === undefined) {
    await context.store.setIfAbsent(epochKey, String(Date.now()), context.orderTtlMs);
    raw = await context.store.get(epochKey);
  }
  const began = Number(raw);
  return Number.isFinite(began) && Date.now() - began < FRESH_STORE_MS ? began : undefined;
}

/**
 * Writes the outcome over this holder's own `sending` record (compare-and-set). When the record changed,
 * it is written only if the store lost it (absent); a record of a later grant (a larger fence) is left
 * as it is: this holder's lease expired and another took over. A store failure here is logged: the
 * outcome stands.
 */
async function recordOutcome(
  context: ResourceContext,
  orderKey: string,
  sendingRaw: string,
  outcome: OrderRecord,
  ttlMs: number,
): Promise<void> {
  try {
    const raw = JSON.stringify(outcome);
    if (await context.store.compareAndSet(orderKey, sendingRaw, raw, ttlMs)) return;
    if (await context.store.setIfAbsent(orderKey, raw, ttlMs)) return;
    context.logger.warn('Create outcome not recorded: the lease was taken over');
  } catch (error) {
    context.logger.warn(`Could not record the outcome of a create in the store: ${(error as Error).message}`);
  }
}
