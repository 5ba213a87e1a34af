/**
 * One create per order across processes (README "Running several instances"; docs/several-instances.md):
 * the order's record in the shared store is also its lease. A create takes a new order with one
 * `setIfAbsent` of a `sending` record (its random `holder`, `leaseUntil` renewed every third of
 * {@link LEASE_TTL_MS}, and `until`, the end of its first POST's possible flight); after the POST one
 * compare-and-set writes the outcome and lets the order go. A create that finds a record returns the
 * remembered task (`created`), rethrows a recorded failure it waited for (`failed`), waits on a live
 * lease, or takes over an ended one (fenced: every write is a compare-and-set on the record as its holder
 * last wrote it) and looks the order up first. An unknown outcome keeps `since`, so the next create looks
 * first; for {@link FRESH_STORE_MS} after a shared store's records begin (its `epoch` key) every holder
 * looks first. A store failure before sending throws `StoreUnavailableError`; after the POST it is logged.
 * @module
 */
import {
  DuplicateTaskError,
  NotFoundError,
  StoreUnavailableError,
  TaskCreationOutcomeUnknownError,
} from '../core/errors.js';
import { type StoreScope, type StoreWriteOptions, storeKey } from '../core/store.js';
import { type ResourceContext, retrieveTask } from '../internal/context.js';
import type { CreateDeadline } from '../internal/create-deadline.js';
import { failureOutcome } from '../internal/failure.js';
import type { TaskWithId } from '../schemas/task.js';
import { type FailedRecord, type OrderRecord, readRecord, revive, type SendingRecord, share } from './order-record.js';
import type { PriorAttempt, SendGuard } from './prior-attempt.js';

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
/** Reads and compare-and-sets of the record in a row without a pause (each lost a race with another process). */
const MAX_STEPS = 4;
/** Allowance added to an attempt's timeout for `until`: the POST's own setup and clock drift, ms. */
const IN_FLIGHT_ALLOWANCE_MS = 250;
/**
 * Time a new holder's `until` allows before its first POST begins (the fresh-store check and lookup, the
 * connection), ms: a first POST that begins within it writes nothing before it is sent.
 */
const FIRST_POST_ALLOWANCE_MS = 1000;

/** Why a create gave up waiting on another process's create of the order. */
const waitedTooLong = (waitMs: number) => `another process has been creating this order for over ${waitMs} ms`;
const ABORTED_WAITING = 'the caller aborted while another process was creating this order';
const TAKEN_OVER = 'the lease expired and was taken over';

/** A create whose failure proves nothing was created: a rejection (4xx), not duplicates found. */
function createdNothing(error: unknown): boolean {
  return failureOutcome(error) === 'rejected' && !(error instanceof DuplicateTaskError);
}

/**
 * The remembered order's task, read back by `GET tasks/{id}` (retried when safe, within the deadline), or
 * `undefined` when the service answers 404 for it: the task is gone (a
 * mock that was reset, a sandbox that restarted while the app kept running). The caller then forgets it
 * and looks the order up before sending.
 */
async function rememberedTask(
  context: ResourceContext,
  orderNumber: string,
  taskId: string,
  options: LeaseOptions,
): Promise<TaskWithId | undefined> {
  options.run.stage = 'reading back the task of this order';
  try {
    const { data } = await retrieveTask(
      context,
      taskId,
      'tasks.create',
      options.run.requestOptions(options.signal === undefined ? {} : { signal: options.signal }),
    );
    return data;
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
  /** The attempt timeout of this create's POSTs, ms: the first POST's `until` is written with the order. */
  attemptTimeoutMs: number;
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
 * or takes the order and calls `send(priorAttemptAt, guard)`, where `priorAttemptAt` is when an earlier
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
  const orderKey = storeKey(storeScopeOf(context), 'order', orderNumber);
  const calledAt = Date.now();
  // A failure already recorded when this call began is an earlier attempt's: this call sends again. One
  // recorded while it waited on another process's lease is the outcome it waited for.
  let waited = false;
  let storeFailures = 0;
  const { run } = options;
  // The id of a remembered task that answered 404: forgotten, the order is looked up under the lease.
  let gone: string | undefined;
  // A new order is taken in one call; a record found there is read, then decided on.
  let absent = true;
  for (let pause = 20; ; pause = Math.min(pause * 2, MAX_POLL_MS)) {
    let held: Held | undefined;
    run.stage = waited ? 'waiting for another process creating this order' : 'reading the order record in the store';
    try {
      for (let step = 0; held === undefined && step < MAX_STEPS; step++) {
        if (absent) {
          held = await take(context, orderKey, undefined, undefined, options);
          if (held !== undefined) break;
        }
        const raw = await context.store.get(orderKey);
        absent = raw === undefined;
        if (absent) continue;
        const record = readRecord(raw);
        if (record?.state === 'created' && !options.repeatDelivery && record.taskId !== gone) {
          const task = await rememberedTask(context, orderNumber, record.taskId, options);
          if (task !== undefined) return task;
          gone = record.taskId;
        }
        if (record?.state === 'failed' && waited && record.at >= calledAt) throw revive(record.failure, orderNumber);
        // Another process holds the order (its lease has not ended): its POST may reach the service. A record
        // of the previous layout has no `leaseUntil`: not held.
        if (record?.state === 'sending' && (record.leaseUntil ?? 0) > Date.now()) break;
        held = await take(context, orderKey, raw, record, options);
      }
      storeFailures = 0;
    } catch (error) {
      // Waiting on another process, this caller sends nothing: a slow store call only delays it, a few times.
      if (!(error instanceof StoreUnavailableError) || !waited || ++storeFailures > MAX_STORE_FAILURES_WHILE_WAITING) {
        throw error;
      }
    }
    if (held !== undefined) return holdLease(context, orderNumber, orderKey, held, options, send);
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
    await run.sleep(pause, ABORTED_WAITING);
  }
}

/** An order this create took: its record as written, and what to do before the first POST. */
interface Held {
  readonly raw: string;
  readonly record: SendingRecord;
  /** When an earlier attempt (or one lost with the store's records) may have created the task. */
  readonly prior: PriorAttempt | undefined;
  /** Until when the previous holder's POST may be in flight, ms since the epoch. */
  readonly inFlightUntil: number | undefined;
}

/** Options of a write whose loss is safe. */
const LAZY: StoreWriteOptions = { durable: false };

/**
 * Takes the order: a new one (`raw` undefined) by `setIfAbsent`, one whose record is not held (an earlier
 * attempt's outcome, a holder whose lease ended, a remembered task that is gone, a deliberate second
 * delivery) by compare-and-set of `raw`. Without an earlier attempt to look up, a shared store's epoch is
 * read beside it (see {@link freshSince}). The new record holds a random holder id, its lease and `until`
 * covering its first POST. `undefined` when another process got there first.
 * @throws {StoreUnavailableError} when either call fails (the order is given back when it was taken).
 */
async function take(
  context: ResourceContext,
  key: string,
  raw: string | undefined,
  record: OrderRecord | undefined,
  options: LeaseOptions,
): Promise<Held | undefined> {
  const { store, orderTtlMs, listingDelayMs } = context;
  const now = Date.now();
  // A remembered task that answered 404 is forgotten: the order is looked up over the record's lifetime.
  const forgotten = record?.state === 'created' && !options.repeatDelivery;
  // When a lookup can decide: the earlier attempt's last POST may have reached the service until
  // `until` (a holder that died) or the failure's time; a forgotten task has no POST in flight.
  const recorded: PriorAttempt | undefined =
    record?.state === 'sending'
      ? { since: record.since, decidableAt: (record.until ?? now) + listingDelayMs }
      : record?.state === 'failed' && record.since !== undefined
        ? { since: record.since, decidableAt: Number(record.decidableAt) || record.at + listingDelayMs }
        : forgotten
          ? { since: now - orderTtlMs, decidableAt: now }
          : undefined;
  // The previous holder's POST may still be in flight: the record keeps saying so for the next holder.
  const inFlightUntil = record?.state === 'sending' ? record.until : undefined;
  const next: SendingRecord = {
    state: 'sending',
    since: recorded?.since ?? now,
    // The next fence; 0 for a record without one (written by an older version, or damaged).
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
  };
  const nextRaw = JSON.stringify(next);
  // A deliberate second delivery would find the first one: it only looks up a recorded attempt of its own kind.
  const epoch = recorded === undefined && context.sharedStore && !options.repeatDelivery ? freshSince(context) : 0;
  const [taken, fresh] = await Promise.allSettled([
    raw === undefined
      ? store.setIfAbsent(key, nextRaw, orderTtlMs)
      : store.compareAndSet(key, raw, nextRaw, orderTtlMs),
    epoch,
  ]);
  if (taken.status === 'rejected') throw taken.reason;
  if (!taken.value) return undefined;
  if (fresh.status === 'rejected') {
    // Nothing was sent: the order is given back (or its lease ends by itself). The epoch is read only when
    // the record was absent or says nothing was created (a rejection, a damaged record): absent again.
    await store.delete(key, nextRaw).catch(() => {});
    throw fresh.reason;
  }
  const since = fresh.value || undefined;
  return {
    raw: nextRaw,
    record: next,
    prior: recorded ?? (since === undefined ? undefined : { since, decidableAt: now }),
    inFlightUntil,
  };
}

async function holdLease(
  context: ResourceContext,
  orderNumber: string,
  key: string,
  held: Held,
  options: LeaseOptions,
  send: LeasedSend,
): Promise<TaskWithId> {
  const { store, orderTtlMs, logger } = context;
  const { run } = options;
  const { prior } = held;
  const { fence } = held.record;
  // The record as this holder last wrote it; every write is a compare-and-set on it, one at a time. A
  // write whose answer was lost (a store timeout) may have landed: the next one compares with it too.
  let { raw, record } = held;
  let uncertain: string | undefined;
  // `lost`: a write found the record changed (taken over after the lease ended); `done`: an outcome was
  // written or the order let go, nothing more is written.
  let lost = false;
  let done = false;
  let writes: Promise<unknown> = Promise.resolve();
  /**
   * Replaces the record with `next` unless it changed (then resolves `false`). `lazily`: a write whose
   * loss is safe (an outcome, a release), which the store need not wait for its disk to keep.
   */
  const write = (next: OrderRecord, ttlMs = orderTtlMs, lazily = false): Promise<boolean> => {
    const attempt = async (): Promise<boolean> => {
      const nextRaw = JSON.stringify(next);
      const cas = (expected: string) => store.compareAndSet(key, expected, nextRaw, ttlMs, lazily ? LAZY : undefined);
      try {
        lost ||= !((await cas(raw)) || (uncertain !== undefined && (await cas(uncertain))));
      } catch (error) {
        uncertain = nextRaw;
        throw error;
      }
      if (lost) return false;
      raw = nextRaw;
      uncertain = undefined;
      if (next.state === 'sending') record = next;
      return true;
    };
    const written = writes.then(attempt, attempt);
    writes = written.catch(() => {});
    return written;
  };
  /** Writes the outcome; when the record changed, only if the store lost it. A failure is logged: the outcome stands. */
  const finish = async (outcome: OrderRecord, ttlMs: number): Promise<void> => {
    done = true;
    try {
      // Lost in a crash of the store, the outcome leaves the claim's `sending`: the next create looks first.
      if ((await write(outcome, ttlMs, true)) || (await store.setIfAbsent(key, JSON.stringify(outcome), ttlMs))) return;
      logger.warn(`Create outcome not recorded: ${TAKEN_OVER}`);
    } catch (error) {
      logger.warn(`Create outcome not recorded: ${(error as Error).message}`);
    }
  };
  const renew = setInterval(() => {
    if (done || lost) return;
    write({ ...record, leaseUntil: Date.now() + LEASE_TTL_MS }).catch((error: unknown) => {
      logger.warn(`Could not renew the lease of order ${orderNumber}: ${(error as Error).message}`);
    });
  }, LEASE_TTL_MS / 3);
  (renew as { unref?: () => void }).unref?.();
  try {
    // An earlier attempt (or one lost with the store's records) may have created the task.
    if (prior !== undefined) run.mayHaveCreated = true;
    // The previous holder's POST may still be on its way to the service: look it up only once it cannot be.
    if (held.inFlightUntil !== undefined && held.inFlightUntil > Date.now()) {
      await waitForPreviousHolder(orderNumber, held.inFlightUntil, options);
    }
    const guard: SendGuard = {
      beforeAttempt: async (resend, timeoutMs) => {
        const now = Date.now();
        const until = now + (timeoutMs ?? context.attemptTimeoutMs) + IN_FLIGHT_ALLOWANCE_MS;
        // A first POST soon after the order was taken: the record written then covers its flight.
        if (!resend && !lost && until <= (record.until ?? 0) && now < (record.leaseUntil ?? 0)) return;
        if (!(await write({ ...record, until, leaseUntil: now + LEASE_TTL_MS }))) {
          if (resend) throw new TaskCreationOutcomeUnknownError({ orderNumber, reason: TAKEN_OVER });
          throw new StoreUnavailableError({ operation: 'compareAndSet', reason: TAKEN_OVER });
        }
      },
    };
    let task: TaskWithId;
    try {
      task = await send(prior, guard);
    } catch (error) {
      // A rejection created nothing, nor did a holder that sent no POST after no earlier attempt; other
      // failures may have: keep `since`, so the next holder looks first.
      const failed: FailedRecord = {
        state: 'failed',
        at: Date.now(),
        failure: share(error),
        fence,
        ...(createdNothing(error) || (run.posts === 0 && prior === undefined)
          ? {}
          : { since: prior?.since ?? record.since, decidableAt: run.decidableAt }),
      };
      await finish(failed, failed.since === undefined ? FAILED_RECORD_TTL_MS : orderTtlMs);
      throw error;
    }
    // The task exists: a store slow to take its record delays the caller at most to the deadline.
    run.created = task;
    await finish({ state: 'created', taskId: task.id, fence }, orderTtlMs);
    return task;
  } finally {
    clearInterval(renew);
    if (!done) {
      // Let go without an outcome (it ended before sending, or at its deadline while waiting): the record
      // stays `sending` with its `since` and `until`, no longer held, so the next create takes it over at
      // once and looks first.
      done = true;
      const { holder: _holder, leaseUntil: _leaseUntil, ...rest } = record;
      write(rest, orderTtlMs, true).catch(() => {});
    }
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
  await run.sleep(ms, ABORTED_WAITING);
}

/**
 * When the shared store's records began, if that was less than {@link FRESH_STORE_MS} ago: records from
 * before (a restart that emptied it) may be lost, so the caller looks the order up from then. The
 * `epoch` key is written by the first create that finds it missing and lives `orderTtlMs`. One call
 * when it is there; two (or three, losing a race to write it) when it is not.
 */
async function freshSince(context: ResourceContext): Promise<number | undefined> {
  const epochKey = storeKey(storeScopeOf(context), 'epoch');
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
