/**
 * One create per order across processes (README "Running several instances"; docs/several-instances.md):
 * the order's record in the shared store is also its lease. A create takes a new order with one
 * `setIfAbsent` of a `sending` record (its random `holder`, `leaseUntil` renewed every third of
 * `LEASE_TTL_MS`, and `until`, the end of its first POST's possible flight); a POST leaves only
 * while the lease is held and its whole attempt ends before `until`, both read after every wait, so a
 * stall shows before it (docs/several-instances.md "Stalls"); after the POST one compare-and-set writes the
 * outcome and lets the order go. A create that finds a record returns the
 * remembered task (`created`), rethrows a recorded failure it waited for (`failed`), waits on a live
 * lease, or takes over an ended one (fenced: every write is a compare-and-set on the record as its holder
 * last wrote it) and looks the order up first. An unknown outcome keeps `since`, so the next create looks
 * first; for `FRESH_STORE_MS` after a shared store's records begin (its `epoch` key) every holder
 * looks first. A store failure before sending throws `StoreUnavailableError`; after the POST it is logged.
 * The times are in `lease-terms.ts`, the taking in `order-take.ts`, the holding (renewal, fences, the
 * outcome) in `lease-holder.ts`.
 * @module
 */
import { NotFoundError, StoreUnavailableError, TaskCreationOutcomeUnknownError } from '../../core/errors.js';
import { storeKey } from '../../core/store.js';
import type { ResourceContext } from '../../internal/context.js';
import { isRetryable } from '../../internal/failure.js';
import { sendOperation } from '../../internal/send-operation.js';
import type { TaskWithId } from '../../schemas/task.js';
import { type OrderLease, openLease } from './lease-holder.js';
import {
  ABORTED_WAITING,
  IN_FLIGHT_ALLOWANCE_MS,
  type LeaseOptions,
  MAX_STEPS,
  waitedTooLong,
} from './lease-terms.js';
import { readRecord, revive } from './order-record.js';
import { type Held, takeOrder } from './order-take.js';

const MAX_STORE_FAILURES_WHILE_WAITING = 3;
const MAX_POLL_MS = 250;

/** Attempts of one read-back after the first: the transport's retries, within the create's deadline. */
const READ_BACK_RETRIES = 10;

/**
 * The remembered task read back, or `undefined` on a 404 (a reset mock): then forgotten and looked up. The
 * read is retried within the create's deadline (else `waitMs`): the task exists, only its answer is late.
 * @throws {TaskCreationOutcomeUnknownError} naming the task (`candidateTaskIds`) when the read fails for a
 * reason worth retrying (connection, timeout, 429, 5xx); another error as it is.
 */
async function rememberedTask(
  context: ResourceContext,
  orderNumber: string,
  taskId: string,
  options: LeaseOptions,
): Promise<TaskWithId | undefined> {
  const { run } = options;
  run.stage = 'reading back the task of this order';
  run.remembered = taskId;
  const readOptions = run.requestOptions(options.signal === undefined ? {} : { signal: options.signal });
  try {
    const { data } = await sendOperation(
      context,
      'tasks.retrieve',
      { params: { id: taskId } },
      { totalTimeout: options.waitMs, ...readOptions, maxRetries: READ_BACK_RETRIES },
      { call: run.call, operation: 'tasks.create', confirming: true },
    );
    return data;
  } catch (error) {
    if (error instanceof NotFoundError) {
      context.logger.warn(`The task remembered for order ${orderNumber} is gone (404); looking the order up`);
      run.remembered = undefined;
      return undefined;
    }
    if (run.expired) throw run.error();
    if (options.signal?.aborted || !isRetryable(error)) throw error;
    throw run.unreadTask('reading it back failed', error);
  }
}

/**
 * The order's remembered task (`{ task }`), or its lease, taken once no other process holds it: the caller
 * sends its create under the lease's `guard` (`beforeAttempt` before each POST) and hands it to
 * `settle`, which writes the outcome. Waits meanwhile for another process's outcome.
 * @throws {StoreUnavailableError} before anything was sent; {@link TaskCreationOutcomeUnknownError} after
 * waiting past `waitMs`, the deadline or an abort; the error another process ended with.
 */
export async function takeOrderLease(
  context: ResourceContext,
  orderNumber: string,
  options: LeaseOptions,
): Promise<OrderLease | { task: TaskWithId }> {
  const orderKey = storeKey(context.storeScope, 'order', orderNumber);
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
    run.stage = waited
      ? 'waiting for another process creating this order'
      : 'reading the order record in the store';
    try {
      for (let step = 0; held === undefined && step < MAX_STEPS; step++) {
        if (absent) {
          held = await takeOrder(context, orderKey, undefined, undefined, options, stalledMs);
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
          if (task !== undefined) return { task };
          gone = record.taskId;
        }
        // Another create's failure is this one's outcome; not between a first and a repeat delivery.
        const firsts = !options.repeatDelivery && record?.state === 'failed' && record.repeat !== true;
        if (firsts && waited && record.at > calledAt) throw revive(record.failure, orderNumber);
        // Held by another process; a record without `leaseUntil` is not held.
        if (record?.state === 'sending' && (record.leaseUntil ?? 0) > Date.now()) break;
        held = await takeOrder(context, orderKey, raw, record, options, stalledMs);
      }
      storeFailures = 0;
    } catch (error) {
      // Waiting, this caller sends nothing: a few slow store calls only delay it.
      if (
        !(error instanceof StoreUnavailableError) ||
        !waited ||
        ++storeFailures > MAX_STORE_FAILURES_WHILE_WAITING
      ) {
        throw error;
      }
    }
    if (held !== undefined) return openLease(context, orderNumber, orderKey, held, options);
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
