/**
 * The holder of an order's lease (docs/several-instances.md): it renews the lease, fences every POST (it
 * leaves only while the lease is held and its attempt ends before `until`) and writes the outcome.
 * @module
 */
import {
  DuplicateTaskError,
  StoreUnavailableError,
  TaskCreationOutcomeUnknownError,
} from '../../core/errors.js';
import type { ResourceContext } from '../../internal/context.js';
import { failureOutcome } from '../../internal/failure.js';
import type { TaskWithId } from '../../schemas/task.js';
import type { HeldPost } from './held-post.js';
import {
  ABORTED_WAITING,
  FAILED_RECORD_TTL_MS,
  IN_FLIGHT_ALLOWANCE_MS,
  LEASE_TTL_MS,
  type LeaseOptions,
  MAX_STEPS,
  waitedTooLong,
} from './lease-terms.js';
import { type FailedRecord, type OrderRecord, type SendingRecord, share } from './order-record.js';
import type { Held } from './order-take.js';
import type { PriorAttempt, SendGuard } from './prior-attempt.js';

/**
 * A fencing write's `until` allows this for its own answer; a slower answer (a stall) means writing again,
 * ms.
 */
const FENCE_ALLOWANCE_MS = 1000;
/** `until` ahead of now while a POST is held open: to the next renewal, and the allowances, ms. */
const HELD_OPEN_MS = LEASE_TTL_MS / 3 + IN_FLIGHT_ALLOWANCE_MS + FENCE_ALLOWANCE_MS;

const TAKEN_OVER = 'the lease expired and was taken over';

/** A rejection (4xx) proves nothing was created; duplicates found do not. */
function createdNothing(error: unknown): boolean {
  return failureOutcome(error) === 'rejected' && !(error instanceof DuplicateTaskError);
}

/** The lease of an order this process took: what its create sends under, and where its outcome goes. */
export interface OrderLease {
  /** An earlier attempt that may have created the order (look it up before sending), if any. */
  readonly prior: PriorAttempt | undefined;
  /** A repeat delivery's: the order's task its record remembers (an earlier delivery's, listed or not). */
  readonly earlierTaskId: string | undefined;
  /** Fences each POST: call `beforeAttempt` before sending, `holdingOpen` for a POST held open. */
  readonly guard: SendGuard;
  /**
   * Waits for the create sent under the lease, writes its outcome (a failure too) and lets the order go
   * for the next create; a POST answered after its create ended is taken as the outcome.
   * @returns the created task. @throws the create's error.
   */
  settle(sending: Promise<TaskWithId>): Promise<TaskWithId>;
}

/**
 * Holds the taken order's lease, renewed every third of `LEASE_TTL_MS` until {@link OrderLease.settle}
 * ends, once any earlier POST of the order cannot be in flight.
 * @throws {TaskCreationOutcomeUnknownError} when that wait outlasts `waitMs` or the deadline (the order is
 * then let go).
 */
export async function openLease(
  context: ResourceContext,
  orderNumber: string,
  key: string,
  held: Held,
  options: LeaseOptions,
): Promise<OrderLease> {
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
   * runs, so a renewal queued behind a write of `until` keeps that `until`. Every write is durable: a
   * crash of the store loses no lease and no outcome.
   */
  const write = (
    next: OrderRecord | ((last: SendingRecord) => SendingRecord),
    ttlMs = orderTtlMs,
  ): Promise<boolean> => {
    const attempt = async (): Promise<boolean> => {
      const value = typeof next === 'function' ? next(record) : next;
      const nextRaw = JSON.stringify(value);
      const cas = (expected: string) => store.compareAndSet(key, expected, nextRaw, ttlMs);
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
      if ((await write(outcome, ttlMs)) || (await store.setIfAbsent(key, JSON.stringify(outcome), ttlMs)))
        return;
      logger.warn(`Create outcome of order ${orderNumber} not recorded: ${TAKEN_OVER}`);
    } catch (error) {
      logger.warn(`Create outcome of order ${orderNumber} not recorded: ${(error as Error).message}`);
    }
  };
  // A POST held open past its attempt is abandoned once the record no longer covers it (renewals failed).
  let heldPost: HeldPost | undefined;
  let uncovered: ReturnType<typeof setTimeout> | undefined;
  const watchCover = () => {
    clearTimeout(uncovered);
    if (heldPost?.open !== true || done) return;
    uncovered = setTimeout(
      () => {
        heldPost?.abandon();
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
  /** Ends the lease: no more renewals; without an outcome written, the order is let go. */
  const release = () => {
    clearInterval(renew);
    clearTimeout(uncovered);
    if (!done) {
      done = true;
      const { holder: _holder, leaseUntil: _leaseUntil, ...rest } = record;
      write(rest, orderTtlMs).catch(() => {});
    }
  };
  try {
    if (prior !== undefined && prior.ofEarlierDelivery !== true) run.mayHaveCreated = true;
    if (held.inFlightUntil !== undefined && held.inFlightUntil > Date.now()) {
      await waitForPreviousHolder(orderNumber, held.inFlightUntil, options);
    }
  } catch (error) {
    release();
    throw error;
  }
  const guard: SendGuard = {
    holdingOpen: (post) => {
      heldPost = post;
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
  return {
    prior,
    earlierTaskId: held.earlierTaskId,
    guard,
    async settle(sending) {
      try {
        let task: TaskWithId;
        try {
          task = await sending;
        } catch (error) {
          // A POST still open: the lease stays held, `until` ahead of it, until it ends; its answer is the
          // task, unless the create found the order's task several times (that is what the caller must hear).
          const late = heldPost?.open === true ? await heldPost.ended : undefined;
          if (late !== undefined && 'task' in late && !(error instanceof DuplicateTaskError)) {
            logger.info(
              `Order ${orderNumber}: the POST was answered after its create ended: ${late.task.id}`,
            );
            run.created = late.task;
            await finish({ state: 'created', taskId: late.task.id, fence }, orderTtlMs);
            return late.task;
          }
          if (late !== undefined && 'at' in late)
            run.decidableAt = Math.max(run.decidableAt ?? 0, late.at + context.listingDelayMs);
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
          // A record that remembers the order's task (a repeat delivery's) lives as long as a created one.
          const shortLived = failed.since === undefined && failed.taskId === undefined;
          await finish(failed, shortLived ? FAILED_RECORD_TTL_MS : orderTtlMs);
          throw error;
        }
        run.created = task;
        await finish({ state: 'created', taskId: task.id, fence }, orderTtlMs);
        return task;
      } finally {
        release();
      }
    },
  };
}

async function waitForPreviousHolder(
  orderNumber: string,
  until: number,
  options: LeaseOptions,
): Promise<void> {
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
