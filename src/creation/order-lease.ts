/**
 * One create per order across processes (README "Running several instances"): the order's record in the
 * shared store, one key per (base URL, seller, orderNumber), which is also its lease.
 *
 * - A create takes a new order in one call: `setIfAbsent` of a `sending` record carrying its own random
 *   `holder` id, `leaseUntil` (ms since the epoch, renewed every third of {@link LEASE_TTL_MS} while it
 *   works) and `until`, the end of its first POST's possible flight, so nothing more is written before
 *   that POST. After the POST one compare-and-set writes the outcome, which also lets the order go: a
 *   record that is not `sending` is not held. With a shared store, the store's `epoch` is read beside the
 *   claim (see below): 3 store calls per new order, 2 with the client's own memory store.
 * - A create that finds a record reads it: `created` (the task id, for `orderTtlMs` after a success)
 *   returns the task, read back by `GET tasks/{id}`, without a POST (a task that answers 404 there is
 *   forgotten: the order is looked up from `orderTtlMs` ago, once, and sent only if absent); `failed` (the
 *   error, for a short while) gives the processes that waited on it the same error; a `sending` record
 *   whose lease has not ended makes it wait (polling the record, within its own deadline) for that
 *   outcome, without a POST of its own.
 * - A holder that dies leaves `sending` behind; once its `leaseUntil` has passed, the next create takes the
 *   record over by compare-and-set and reconciles (looks the order up) before it sends, after waiting until
 *   the old holder's POST cannot be in flight (`until`). Leases are compared with the local clock: a
 *   lease is renewed 2/3 of {@link LEASE_TTL_MS} before it ends, so clocks several seconds apart are
 *   needed for a takeover before its time, and even then `until` keeps the POST from being looked up early.
 * - Fenced: every write of a holder is a compare-and-set on the record as it last wrote it, and each grant
 *   writes its own `holder` id (and the next `fence` number). A holder whose lease ended and was taken over
 *   finds the record changed: before a resend it rewrites `until` (now plus the attempt timeout) and sends
 *   nothing more when that fails, and it never writes the record again (its outcome is only logged).
 * - An outcome that is not known (a timeout, an abort during reconciliation, a failed lookup:
 *   `TaskCreationOutcomeUnknownError`) keeps `since` in the record, so the next create of the order,
 *   from this client or another, looks it up before sending. Only a rejection (a 4xx: nothing created)
 *   drops it.
 * - A shared store that lost its keys (Redis restarted empty) cannot say an order was not being sent:
 *   for {@link FRESH_STORE_MS} after the store's records begin (an `epoch` key), every holder looks the
 *   order up once before sending. (The default per-client memory store is not shared and skips this.)
 * - Before anything is sent, a store failure throws `StoreUnavailableError` (fail closed: never risk a
 *   second fee); after the POST, a store failure is logged and the task returned all the same.
 * - Records written by the previous layout (a separate `order-lease` and `order-fence` key) read the same:
 *   their `sending` has no `holder`, so it is not held and is taken over, looked up first.
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
import { type StoreScope, type StoreWriteOptions, storeKey } from '../core/store.js';
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
/** Reads and compare-and-sets of the record in a row without a pause (each lost a race with another process). */
const MAX_STEPS = 4;
/** Allowance added to an attempt's timeout for `until`: the POST's own setup and clock drift, ms. */
const IN_FLIGHT_ALLOWANCE_MS = 250;
/**
 * Time a new holder's `until` allows before its first POST begins (the fresh-store check and lookup, the
 * connection), ms: a first POST that begins within it writes nothing before it is sent.
 */
const FIRST_POST_ALLOWANCE_MS = 1000;

/** A failure as other processes read it back: enough to rebuild the same typed error. */
interface SharedFailure {
  name: string;
  message: string;
  status?: number;
  body?: unknown;
  taskIds?: readonly string[];
}

/**
 * An order being sent. `since`: when sending began, ms since the epoch; `until`: the end of the holder's
 * current (or first) POST's attempt timeout, ms since the epoch (it may be in flight until then);
 * `holder`: the random id of the create holding it, until `leaseUntil` (ms since the epoch); `fence`:
 * the grant that wrote it (1 for the first). A record without `holder` is not held.
 */
interface SendingRecord {
  state: 'sending';
  since: number;
  fence?: number;
  until?: number;
  holder?: string;
  leaseUntil?: number;
}

/** The order's record in the store. */
type OrderRecord =
  | SendingRecord
  | { state: 'created'; taskId: string; fence?: number }
  | { state: 'failed'; at: number; failure: SharedFailure; since?: number; decidableAt?: number; fence?: number };

/** What the holder of an order's lease checks before each POST (see {@link createUnderLease}). */
export interface SendGuard {
  /**
   * Before a POST: throws when the lease was lost (taken over after it expired): before the first POST
   * a `StoreUnavailableError` (nothing sent), before a resend a `TaskCreationOutcomeUnknownError`. Else
   * makes sure the record says until when this POST may be in flight (`timeoutMs`, default the client's
   * attempt timeout): a store call unless the record already covers it (a first POST sent soon after the
   * order was taken).
   */
  beforeAttempt(resend: boolean, timeoutMs?: number): Promise<void>;
}

/** Why a create gave up waiting on another process's create of the order. */
const waitedTooLong = (waitMs: number) => `another process has been creating this order for over ${waitMs} ms`;
const ABORTED_WAITING = 'the caller aborted while another process was creating this order';
const TAKEN_OVER = 'the lease expired and was taken over';

/** A create whose failure proves nothing was created: a rejection (4xx), not duplicates found. */
function createdNothing(error: unknown): boolean {
  return failureOutcome(error) === 'rejected' && !(error instanceof DuplicateTaskError);
}

/** The fence of a record, 0 when it has none (written by an older version, or damaged). */
const fenceOf = (record: OrderRecord | undefined): number => Number(record?.fence) || 0;

/** True when `record` is held by a create whose lease has not ended by `now` (ms since the epoch). */
const isHeld = (record: OrderRecord | undefined, now: number): boolean =>
  record?.state === 'sending' &&
  typeof record.holder === 'string' &&
  typeof record.leaseUntil === 'number' &&
  record.leaseUntil > now;

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
          held = await claim(context, orderKey, options);
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
        // Another process holds the order: its POST may reach the service.
        if (isHeld(record, Date.now())) break;
        held = await takeOver(context, orderKey, raw as string, record, options);
      }
      storeFailures = 0;
    } catch (error) {
      // Waiting on another process, this caller sends nothing: a slow store call only delays it, a few times.
      if (!(error instanceof StoreUnavailableError) || !waited || ++storeFailures > MAX_STORE_FAILURES_WHILE_WAITING) {
        throw error;
      }
    }
    if (held !== undefined) return holdLease(context, orderNumber, held, options, send);
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

/** An order this create took: its record as written, and what to do before the first POST. */
interface Held {
  readonly key: string;
  readonly raw: string;
  readonly record: SendingRecord;
  /** When an earlier attempt (or one lost with the store's records) may have created the task. */
  readonly prior: PriorAttempt | undefined;
  /** Until when the previous holder's POST may be in flight, ms since the epoch. */
  readonly inFlightUntil: number | undefined;
}

/** A `sending` record of a new grant: a random holder id, its lease, and `until` covering its first POST. */
function sendingRecord(options: LeaseOptions, since: number, fence: number): SendingRecord {
  const now = Date.now();
  const attemptMs = Math.min(options.attemptTimeoutMs, options.run.remaining());
  return {
    state: 'sending',
    since,
    fence,
    until: now + attemptMs + IN_FLIGHT_ALLOWANCE_MS + FIRST_POST_ALLOWANCE_MS,
    holder: crypto.randomUUID(),
    leaseUntil: now + LEASE_TTL_MS,
  };
}

/**
 * Takes a new order: `setIfAbsent` of its `sending` record, with (a shared store, not a deliberate second
 * delivery) the store's epoch read beside it. `undefined` when a record exists.
 * @throws {StoreUnavailableError} when either call fails (a record just written is deleted again).
 */
async function claim(context: ResourceContext, key: string, options: LeaseOptions): Promise<Held | undefined> {
  const now = Date.now();
  const record = sendingRecord(options, now, 1);
  const raw = JSON.stringify(record);
  // A deliberate second delivery would find the first one: it only looks up a recorded attempt of its own kind.
  const epoch = context.sharedStore && !options.repeatDelivery ? freshSince(context) : Promise.resolve(undefined);
  const [claimed, fresh] = await Promise.allSettled([context.store.setIfAbsent(key, raw, context.orderTtlMs), epoch]);
  if (claimed.status === 'rejected') throw claimed.reason;
  if (!claimed.value) return undefined;
  if (fresh.status === 'rejected') {
    // Nothing was sent: the order is let go again (or its lease ends by itself).
    await context.store.delete(key, raw).catch(() => {});
    throw fresh.reason;
  }
  const prior = fresh.value === undefined ? undefined : { since: fresh.value, decidableAt: now };
  return { key, raw, record, prior, inFlightUntil: undefined };
}

/**
 * Takes over an order whose record is not held (an earlier attempt's outcome, a holder whose lease ended,
 * a remembered task that is gone, a deliberate second delivery) by compare-and-set of `raw`.
 * `undefined` when the record changed since it was read.
 */
async function takeOver(
  context: ResourceContext,
  key: string,
  raw: string,
  record: OrderRecord | undefined,
  options: LeaseOptions,
): Promise<Held | undefined> {
  const now = Date.now();
  // A remembered task that answered 404 is forgotten: the order is looked up over the record's lifetime.
  const forgotten = record?.state === 'created' && !options.repeatDelivery;
  // When a lookup can decide: the earlier attempt's last POST may have reached the service until
  // `until` (a holder that died) or the failure's time; a forgotten task has no POST in flight.
  const recorded: PriorAttempt | undefined =
    record?.state === 'sending'
      ? { since: record.since, decidableAt: (record.until ?? now) + context.listingDelayMs }
      : record?.state === 'failed' && record.since !== undefined
        ? { since: record.since, decidableAt: Number(record.decidableAt) || record.at + context.listingDelayMs }
        : forgotten
          ? { since: now - context.orderTtlMs, decidableAt: now }
          : undefined;
  const freshFrom =
    recorded === undefined && context.sharedStore && !options.repeatDelivery ? await freshSince(context) : undefined;
  const prior = recorded ?? (freshFrom === undefined ? undefined : { since: freshFrom, decidableAt: now });
  const inFlightUntil = record?.state === 'sending' ? record.until : undefined;
  const next = sendingRecord(options, prior?.since ?? now, fenceOf(record) + 1);
  // The previous holder's POST may still be in flight: the record keeps saying so for the next holder.
  next.until = Math.max(next.until ?? 0, inFlightUntil ?? 0);
  const nextRaw = JSON.stringify(next);
  if (!(await context.store.compareAndSet(key, raw, nextRaw, context.orderTtlMs))) return undefined;
  return { key, raw: nextRaw, record: next, prior, inFlightUntil };
}

/** Options of a write whose loss is safe. */
const LAZY: StoreWriteOptions = { durable: false };

/**
 * The record of an order this create holds: every write a compare-and-set on the value it last wrote,
 * one at a time. A write whose answer was lost (a store timeout) may have landed: the next write
 * compares with both values.
 */
class HeldRecord {
  readonly #context: ResourceContext;
  readonly #key: string;
  #raw: string;
  #uncertain: string | undefined;
  #writes: Promise<unknown> = Promise.resolve();
  /** The `sending` record as last written. */
  record: SendingRecord;
  /** True once a write found the record changed: taken over after the lease ended. */
  lost = false;
  /** True once an outcome was written or the order let go: nothing more is written. */
  done = false;

  constructor(context: ResourceContext, held: Held) {
    this.#context = context;
    this.#key = held.key;
    this.#raw = held.raw;
    this.record = held.record;
  }

  /**
   * Replaces the record with `next` (TTL `ttlMs`) unless it changed. Resolves `false` when it had.
   * `lazily`: a write whose loss is safe (an outcome, a release), which the store need not wait for its
   * disk to keep ({@link StoreWriteOptions}).
   */
  write(next: OrderRecord, ttlMs: number, lazily = false): Promise<boolean> {
    const { store } = this.#context;
    const cas = (expected: string, nextRaw: string) =>
      lazily
        ? store.compareAndSet(this.#key, expected, nextRaw, ttlMs, LAZY)
        : store.compareAndSet(this.#key, expected, nextRaw, ttlMs);
    const attempt = async (): Promise<boolean> => {
      if (this.lost) return false;
      const nextRaw = JSON.stringify(next);
      let replaced: boolean;
      try {
        replaced =
          (await cas(this.#raw, nextRaw)) || (this.#uncertain !== undefined && (await cas(this.#uncertain, nextRaw)));
      } catch (error) {
        this.#uncertain = nextRaw;
        throw error;
      }
      if (!replaced) {
        this.lost = true;
        return false;
      }
      this.#raw = nextRaw;
      this.#uncertain = undefined;
      if (next.state === 'sending') this.record = next;
      return true;
    };
    const written = this.#writes.then(attempt, attempt);
    this.#writes = written.catch(() => {});
    return written;
  }

  /** Renews the lease ({@link LEASE_TTL_MS} from now), unless done. Failures are logged. */
  renew(orderNumber: string): void {
    if (this.done || this.lost) return;
    this.write({ ...this.record, leaseUntil: Date.now() + LEASE_TTL_MS }, this.#context.orderTtlMs).catch(
      (error: unknown) => {
        this.#context.logger.warn(`Could not renew the lease of order ${orderNumber}: ${(error as Error).message}`);
      },
    );
  }

  /**
   * Writes the outcome over this holder's own `sending` record. When the record changed, it is written only
   * if the store lost it (absent); a record of a later grant is left as it is: this holder's lease ended
   * and another took over. A store failure here is logged: the outcome stands.
   */
  async finish(outcome: OrderRecord, ttlMs: number): Promise<void> {
    this.done = true;
    const { store, logger } = this.#context;
    try {
      // Lost in a crash of the store, the outcome leaves the claim's `sending`: the next create looks first.
      if (await this.write(outcome, ttlMs, true)) return;
      if (await store.setIfAbsent(this.#key, JSON.stringify(outcome), ttlMs)) return;
      logger.warn('Create outcome not recorded: the lease was taken over');
    } catch (error) {
      logger.warn(`Could not record the outcome of a create in the store: ${(error as Error).message}`);
    }
  }

  /**
   * Lets the order go without an outcome (the create ended before sending, or with its deadline while
   * waiting): the record stays `sending` with its `since` and `until`, no longer held, so the next create
   * takes it over at once and looks first. Not awaited; a failure leaves the lease to end by itself.
   */
  release(): void {
    if (this.done) return;
    this.done = true;
    const { holder: _holder, leaseUntil: _leaseUntil, ...rest } = this.record;
    this.write(rest, this.#context.orderTtlMs, true).catch(() => {});
  }
}

async function holdLease(
  context: ResourceContext,
  orderNumber: string,
  held: Held,
  options: LeaseOptions,
  send: LeasedSend,
): Promise<TaskWithId> {
  const { orderTtlMs } = context;
  const order = new HeldRecord(context, held);
  const renew = setInterval(() => order.renew(orderNumber), LEASE_TTL_MS / 3);
  (renew as { unref?: () => void }).unref?.();
  const { run } = options;
  const { prior } = held;
  const fence = held.record.fence;
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
        const { record } = order;
        // A first POST soon after the order was taken: the record written then covers its flight.
        if (!resend && !order.lost && until <= (record.until ?? 0) && now < (record.leaseUntil ?? 0)) return;
        if (!(await order.write({ ...record, until, leaseUntil: now + LEASE_TTL_MS }, orderTtlMs))) {
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
      const since = prior?.since ?? order.record.since;
      const sentNothing = run.posts === 0 && prior === undefined;
      const failed: OrderRecord = {
        state: 'failed',
        at: Date.now(),
        failure: share(error),
        ...(fence === undefined ? {} : { fence }),
        ...(createdNothing(error) || sentNothing
          ? {}
          : { since, ...(run.decidableAt === undefined ? {} : { decidableAt: run.decidableAt }) }),
      };
      await order.finish(failed, failed.since === undefined ? FAILED_RECORD_TTL_MS : orderTtlMs);
      throw error;
    }
    // The task exists: a store slow to take its record delays the caller at most to the deadline.
    run.created = task;
    run.stage = 'recording the outcome in the store';
    await order.finish({ state: 'created', taskId: task.id, ...(fence === undefined ? {} : { fence }) }, orderTtlMs);
    return task;
  } finally {
    clearInterval(renew);
    order.release();
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
  // Missing even so (it expired between the two calls): the records begin now.
  const began = raw === undefined ? Date.now() : Number(raw);
  return Number.isFinite(began) && Date.now() - began < FRESH_STORE_MS ? began : undefined;
}
