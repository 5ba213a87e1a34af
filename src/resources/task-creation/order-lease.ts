/**
 * One create per order across processes (README "Running several instances"; docs/several-instances.md):
 * the order's record in the shared store is also its lease. A create takes a new order with one
 * `setIfAbsent` of a `sending` record (its random `holder`, `leaseUntil` renewed every third of
 * {@link LEASE_TTL_MS}, and `until`, the end of its first POST's possible flight); a POST leaves only
 * while the lease is held and its whole attempt ends before `until`, both read after every wait, so a
 * stall shows before it (docs/several-instances.md "Stalls"); after the POST one compare-and-set writes the
 * outcome and lets the order go. A create that finds a record returns the
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
} from '../../core/errors.js';
import { type StoreScope, type StoreWriteOptions, storeKey } from '../../core/store.js';
import { type ResourceContext, retrieveTask } from '../../internal/context.js';
import type { CreateDeadline } from '../../internal/create-deadline.js';
import { failureOutcome } from '../../internal/failure.js';
import type { TaskWithId } from '../../schemas/task.js';
import { type FailedRecord, type OrderRecord, readRecord, revive, type SendingRecord, share } from './order-record.js';
import type { PriorAttempt, SendGuard } from './prior-attempt.js';

const storeScopeOf = (context: ResourceContext): StoreScope => ({
  baseUrl: context.transport.baseUrl,
  sellerId: context.sellerId,
});

/** Lifetime of a lease, ms; renewed every third of it. */
export const LEASE_TTL_MS = 10_000;
/** How long a failure stays readable for the processes that waited on it, ms. */
export const FAILED_RECORD_TTL_MS = 60_000;
/** How long after a shared store's records begin creates look first, ms. */
export const FRESH_STORE_MS = 120_000;
const MAX_STORE_FAILURES_WHILE_WAITING = 3;
const MAX_POLL_MS = 250;
/** Reads and compare-and-sets in a row without a pause (each lost a race). */
const MAX_STEPS = 4;
/** Added to an attempt's timeout for `until`: a late abort timer and clock differences between processes, ms. */
const IN_FLIGHT_ALLOWANCE_MS = 250;
/** A new holder's `until` allows this before its first POST, which then writes nothing first, ms. */
const FIRST_POST_ALLOWANCE_MS = 1000;
/** A fencing write's `until` allows this for its own answer; a slower answer (a stall) means writing again, ms. */
const FENCE_ALLOWANCE_MS = 1000;
/** `until` ahead of now while a POST is held open: to the next renewal, and the allowances, ms. */
const HELD_OPEN_MS = LEASE_TTL_MS / 3 + IN_FLIGHT_ALLOWANCE_MS + FENCE_ALLOWANCE_MS;

const waitedTooLong = (waitMs: number) => `another process has been creating this order for over ${waitMs} ms`;
const ABORTED_WAITING = 'the caller aborted while another process was creating this order';
const TAKEN_OVER = 'the lease expired and was taken over';

/** A rejection (4xx) proves nothing was created; duplicates found do not. */
function createdNothing(error: unknown): boolean {
  return failureOutcome(error) === 'rejected' && !(error instanceof DuplicateTaskError);
}

/** The remembered task read back, or `undefined` on a 404 (a reset mock): then forgotten and looked up. */
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
      true,
    );
    return data;
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    context.logger.warn(`The task remembered for order ${orderNumber} is gone (404); looking the order up`);
    return undefined;
  }
}

/**
 * `prior`: an earlier attempt may have created the order, so look it up before sending; `earlierTaskId`:
 * for a repeat delivery, the order's task as its record remembers it (an earlier delivery, listed or not).
 */
export type LeasedSend = (
  prior: PriorAttempt | undefined,
  guard: SendGuard,
  earlierTaskId: string | undefined,
) => Promise<TaskWithId>;

/** Options of {@link createUnderLease}. */
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
  run: CreateDeadline;
}

/**
 * Returns the remembered task, waits for another process's outcome, or takes the order and calls `send`
 * (`guard.beforeAttempt` before each POST).
 * @throws {StoreUnavailableError} before anything was sent; {@link TaskCreationOutcomeUnknownError} after
 * waiting past `waitMs`, the deadline or an abort; the error another process ended with; `send`'s errors.
 */
export async function createUnderLease(
  context: ResourceContext,
  orderNumber: string,
  options: LeaseOptions,
  send: LeasedSend,
): Promise<TaskWithId> {
  const orderKey = storeKey(storeScopeOf(context), 'order', orderNumber);
  const calledAt = Date.now();
  // A failure dated after this call began (answered while it waited) is the outcome it waited for; one
  // dated in the same ms or before is not: this call looks the order up instead.
  let waited = false;
  let storeFailures = 0;
  const { run } = options;
  let gone: string | undefined;
  let absent = true;
  // The longest this caller's pauses ended late, ms: a stall of this process (or of its whole machine)
  // that may have held the holder's POST in flight too, past its `until`. The longest, not the sum: one
  // stall holds a request, and on a busy machine many timers end a little late.
  let stalledMs = 0;
  let holder: string | undefined;
  for (let pause = 20; ; pause = Math.min(pause * 2, MAX_POLL_MS)) {
    let held: Held | undefined;
    run.stage = waited ? 'waiting for another process creating this order' : 'reading the order record in the store';
    try {
      for (let step = 0; held === undefined && step < MAX_STEPS; step++) {
        if (absent) {
          held = await take(context, orderKey, undefined, undefined, options, stalledMs);
          if (held !== undefined) break;
        }
        const raw = await context.store.get(orderKey);
        absent = raw === undefined;
        if (absent) continue;
        const record = readRecord(raw);
        // A stall before the holder took the order did not hold its POST.
        if (record?.state === 'sending' && record.holder !== holder) [holder, stalledMs] = [record.holder, 0];
        // The order's task, also as a repeat delivery's record remembers it.
        if (record?.taskId !== undefined && !options.repeatDelivery && record.taskId !== gone) {
          const task = await rememberedTask(context, orderNumber, record.taskId, options);
          if (task !== undefined) return task;
          gone = record.taskId;
        }
        // Another create's failure is this one's outcome; not between a first and a repeat delivery.
        const firsts = !options.repeatDelivery && record?.state === 'failed' && record.repeat !== true;
        if (firsts && waited && record.at > calledAt) throw revive(record.failure, orderNumber);
        // Held by another process; a record without `leaseUntil` is not held.
        if (record?.state === 'sending' && (record.leaseUntil ?? 0) > Date.now()) break;
        held = await take(context, orderKey, raw, record, options, stalledMs);
      }
      storeFailures = 0;
    } catch (error) {
      // Waiting, this caller sends nothing: a few slow store calls only delay it.
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
    // By the clock the lease's times are on (a clock stepped forward only adds a wait).
    const dueAt = Date.now() + pause;
    await run.sleep(pause, ABORTED_WAITING);
    const lateMs = Date.now() - dueAt;
    if (lateMs > IN_FLIGHT_ALLOWANCE_MS) stalledMs = Math.max(stalledMs, lateMs);
  }
}

/** An order this create took. */
interface Held {
  readonly raw: string;
  readonly record: SendingRecord;
  readonly prior: PriorAttempt | undefined;
  /** Until when the previous holder's POST may be in flight. */
  readonly inFlightUntil: number | undefined;
  /** The task the record remembered, for a repeat delivery. */
  readonly earlierTaskId: string | undefined;
}

const LAZY: StoreWriteOptions = { durable: false };

/**
 * Takes a new order by `setIfAbsent`, one not held by compare-and-set of `raw`, reading a shared store's
 * epoch beside it; `undefined` when another process got there first. A previous holder's POST may be in
 * flight until its `until` plus `stalledMs`, the time this caller was held while waiting.
 * @throws {StoreUnavailableError} when either call fails (the order is given back).
 */
async function take(
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
      ? { since: record.since, decidableAt: inFlightUntil + listingDelayMs }
      : record?.state === 'failed' && record.since !== undefined
        ? { since: record.since, decidableAt: Number(record.decidableAt) || record.at + listingDelayMs }
        : forgotten
          ? { since: now - orderTtlMs, decidableAt: now }
          : undefined;
  // A repeat delivery takes a first delivery's attempt as an earlier delivery's, not as its own.
  if (recorded !== undefined && options.repeatDelivery && record?.state !== 'created' && record?.repeat !== true)
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
  // Every write is a compare-and-set on the record as last written, one at a time; `uncertain`: a write
  // whose answer was lost may have landed.
  let { raw, record } = held;
  let uncertain: string | undefined;
  // `lost`: taken over; `done`: nothing more is written.
  let lost = false;
  let done = false;
  let writes: Promise<unknown> = Promise.resolve();
  /**
   * `false` when the record changed. A function makes the record from the one last written when the write
   * runs, so a renewal queued behind a write of `until` keeps that `until`. `lazily`: its loss is safe, the
   * store need not wait for its disk.
   */
  const write = (
    next: OrderRecord | ((last: SendingRecord) => SendingRecord),
    ttlMs = orderTtlMs,
    lazily = false,
  ): Promise<boolean> => {
    const attempt = async (): Promise<boolean> => {
      const value = typeof next === 'function' ? next(record) : next;
      const nextRaw = JSON.stringify(value);
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
      if (value.state === 'sending') record = value;
      return true;
    };
    const written = writes.then(attempt, attempt);
    writes = written.catch(() => {});
    return written;
  };
  /** Writes the outcome (when the record changed, only if the store lost it); a failure is logged. */
  const finish = async (outcome: OrderRecord, ttlMs: number): Promise<void> => {
    done = true;
    try {
      if ((await write(outcome, ttlMs, true)) || (await store.setIfAbsent(key, JSON.stringify(outcome), ttlMs))) return;
      logger.warn(`Create outcome not recorded: ${TAKEN_OVER}`);
    } catch (error) {
      logger.warn(`Create outcome not recorded: ${(error as Error).message}`);
    }
  };
  // A POST held open past its attempt is abandoned once the record no longer covers it (renewals failed).
  let abandonHeld: (() => void) | undefined;
  let uncovered: ReturnType<typeof setTimeout> | undefined;
  const watchCover = () => {
    clearTimeout(uncovered);
    if (abandonHeld === undefined || !run.posting || done) return;
    uncovered = setTimeout(
      () => {
        if (run.posting) abandonHeld?.();
      },
      (record.until ?? 0) - IN_FLIGHT_ALLOWANCE_MS - Date.now(),
    );
    (uncovered as { unref?: () => void }).unref?.();
  };
  /** Renews the lease, and `until` while a POST is held open past its attempt: a taker waits for it. */
  const extend = () => {
    if (done || lost) return;
    write((last) => {
      const now = Date.now();
      const held = run.posting ? { until: Math.max(last.until ?? 0, now + HELD_OPEN_MS) } : {};
      return { ...last, ...held, leaseUntil: now + LEASE_TTL_MS };
    }).then(watchCover, (error: unknown) => {
      logger.warn(`Could not renew the lease of order ${orderNumber}: ${(error as Error).message}`);
    });
  };
  const renew = setInterval(extend, LEASE_TTL_MS / 3);
  (renew as { unref?: () => void }).unref?.();
  try {
    if (prior !== undefined && prior.ofEarlierDelivery !== true) run.mayHaveCreated = true;
    if (held.inFlightUntil !== undefined && held.inFlightUntil > Date.now()) {
      await waitForPreviousHolder(orderNumber, held.inFlightUntil, options);
    }
    const guard: SendGuard = {
      holdingOpen: (abandon) => {
        abandonHeld = abandon;
        watchCover();
        extend();
      },
      beforeAttempt: async (resend, timeoutMs = context.attemptTimeoutMs) => {
        // Read after every wait, in the same task as the POST that follows: the POST leaves only while the
        // lease is held and its whole attempt ends before `until`. A stall during a write shows here.
        for (let fences = 0; ; fences++) {
          const now = Date.now();
          const covered = now + timeoutMs + IN_FLIGHT_ALLOWANCE_MS <= (record.until ?? 0);
          if (!lost && (fences > 0 || !resend) && covered && now < (record.leaseUntil ?? 0)) return;
          if (fences === MAX_STEPS) {
            const reason = `the store answered ${MAX_STEPS} writes in a row too late to cover the POST (over ${FENCE_ALLOWANCE_MS} ms each)`;
            if (resend) throw new TaskCreationOutcomeUnknownError({ orderNumber, reason });
            throw new StoreUnavailableError({ operation: 'compareAndSet', reason });
          }
          const fenced = await write((last) => {
            const at = Date.now();
            const until = at + timeoutMs + IN_FLIGHT_ALLOWANCE_MS + FENCE_ALLOWANCE_MS;
            return { ...last, until, leaseUntil: at + LEASE_TTL_MS };
          });
          if (!fenced) {
            if (resend) throw new TaskCreationOutcomeUnknownError({ orderNumber, reason: TAKEN_OVER });
            throw new StoreUnavailableError({ operation: 'compareAndSet', reason: TAKEN_OVER });
          }
        }
      },
    };
    let task: TaskWithId;
    try {
      task = await send(prior, guard, held.earlierTaskId);
    } catch (error) {
      // Keep `since` unless nothing can have been created: the next holder looks first.
      const failed: FailedRecord = {
        state: 'failed',
        at: run.failedAt ?? Date.now(),
        failure: share(error),
        fence,
        repeat: record.repeat,
        taskId: record.taskId,
        ...(createdNothing(error) || (run.posts === 0 && prior === undefined)
          ? {}
          : { since: prior?.since ?? record.since, decidableAt: run.decidableAt }),
      };
      await finish(failed, failed.since === undefined ? FAILED_RECORD_TTL_MS : orderTtlMs);
      throw error;
    }
    run.created = task;
    await finish({ state: 'created', taskId: task.id, fence }, orderTtlMs);
    return task;
  } finally {
    clearInterval(renew);
    clearTimeout(uncovered);
    if (!done) {
      // Let go without an outcome: still `sending`, not held, so the next create takes it over and looks first.
      done = true;
      const { holder: _holder, leaseUntil: _leaseUntil, ...rest } = record;
      write(rest, orderTtlMs, true).catch(() => {});
    }
  }
}

/**
 * Waits until another holder's POST can no longer be in flight.
 * @throws {TaskCreationOutcomeUnknownError} at once past `waitMs` or the deadline, or on abort.
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
 * When the shared store's records began, if less than {@link FRESH_STORE_MS} ago (earlier records may be
 * lost). The first create that misses the `epoch` key writes it, for `orderTtlMs`.
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
