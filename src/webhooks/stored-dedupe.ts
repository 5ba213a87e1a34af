/**
 * Duplicate and order filtering across instances (the handler's `store` option): each task has one
 * record in the store, the statuses processed, how far along its lifecycle it is (the rules of
 * `dedupe.ts`), and a processing lease, so that of N receivers behind a load balancer one at a time
 * processes a task's events. An instance reads the record, drops a duplicate or an older status (no
 * write), else writes its lease into the record (compare-and-set), calls `onEvent`, and only then records
 * the status and drops the lease in one compare-and-set, so a failure or a crash in between leaves
 * nothing recorded and a resend (or a sync) is processed. The record is fenced: that last write expects
 * the record holding this instance's lease, so an instance whose lease expired and was taken over writes
 * nothing. 2 store calls per event when this instance wrote the task's record last (its memory holds the
 * record as written) or the task is new at `accepted`, else 3 (4 for a task at `accepted` or before
 * whose record another instance wrote; docs/several-instances.md).
 *
 * Key (`SharedState.key`): `task2:<id>` holds the record as JSON for `recordTtlMs` after its last change;
 * its lease (`{ token, until }`, `until` in ms since the epoch) is taken over once `until` is past.
 * @module
 */
import { DeliveryError } from '../core/errors.js';
import { lifecycleRank } from '../core/lifecycle.js';
import type { DeliveryStore } from '../core/store.js';
import { advanceOrder, isStatusOutOfOrder, MAX_STATUSES_PER_TASK, type TaskOrder } from './dedupe.js';
import { leaseToken, type SharedState, unrefTimer } from './shared-state.js';

/** Why an event was not passed on. */
export type EventDrop = 'duplicate' | 'outOfOrder';

/** What became of an event passed through the handler's pipeline. */
export type EventOutcome = 'processed' | EventDrop | 'failed';

/** What processing an event records: whether it moves the task along, and whether the service confirmed it. */
export interface RecordedEffect {
  /** The status moves the task's order (a confirmed status, or any status when nothing is confirmed). */
  readonly advances: boolean;
  /** Read from the service (`GET tasks/{id}`, `GET tasks`), not only claimed by a body. */
  readonly confirmed: boolean;
}

/** A processing lease: its holder's random token and when it expires, ms since the epoch. */
interface Lease {
  token: string;
  until: number;
}

/** A task's record in the store. */
interface TaskRecord extends TaskOrder {
  /** Statuses (or event kinds) processed, oldest first, at most {@link MAX_STATUSES_PER_TASK}. */
  seen: string[];
  lease?: Lease | undefined;
}

/** Waits between attempts to take a lease held elsewhere, ms: doubling from the first to the last. */
const FIRST_LEASE_WAIT_MS = 5;
const LAST_LEASE_WAIT_MS = 100;

function decode(value: string | undefined): TaskRecord {
  const record: TaskRecord = { rank: -1, ended: undefined, seen: [] };
  if (value === undefined) return record;
  try {
    const parsed = JSON.parse(value) as Partial<Record<keyof TaskRecord, unknown>>;
    if (typeof parsed.rank === 'number') record.rank = parsed.rank;
    if (parsed.ended === 'confirmed' || parsed.ended === 'unconfirmed') record.ended = parsed.ended;
    if (Array.isArray(parsed.seen)) record.seen = parsed.seen.filter((item) => typeof item === 'string');
    const lease = parsed.lease as Partial<Lease> | null | undefined;
    if (typeof lease?.token === 'string' && typeof lease.until === 'number') {
      record.lease = { token: lease.token, until: lease.until };
    }
  } catch {
    // Not ours or damaged: start afresh; the compare-and-set replaces it.
  }
  return record;
}

function encode(record: TaskRecord, lease?: Lease): string {
  return JSON.stringify({ rank: record.rank, ended: record.ended ?? null, seen: record.seen, lease });
}

/** Why `status` cannot be processed after what `record` holds, or `undefined` when it can. */
function dropOf(record: TaskRecord, status: string): EventDrop | undefined {
  if (record.seen.includes(status)) return 'duplicate';
  if (isStatusOutOfOrder(record, status)) return 'outOfOrder';
  return undefined;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Pauses between attempts to record a processed status while the store does not answer (holding), ms. */
const FIRST_RECORD_PAUSE_MS = 50;
const LAST_RECORD_PAUSE_MS = 1000;

/** The errors thrown when a task's lease stayed taken for twice its TTL (nothing was processed). */
const leaseBusyErrors = new WeakSet<object>();

/** True for the error {@link StoredTaskEvents.process} throws when the task's lease stayed taken: nothing ran. */
export function isLeaseBusy(error: unknown): boolean {
  return typeof error === 'object' && error !== null && leaseBusyErrors.has(error);
}

/** The duplicate and order filter of a handler with a `store`. */
export class StoredTaskEvents {
  readonly #state: SharedState;
  readonly #recordTtlMs: number;
  readonly #leaseTtlMs: number;
  /** While holding: how long a processed status is retried into the store before it is given up on, ms. */
  #recordRetryMs = 0;
  /** While holding: how long a lease held elsewhere is waited for at most, ms (else twice its TTL). */
  #leaseWaitMs: number | undefined;

  /**
   * @param recordTtlMs how long a task's record is kept after its last change, ms.
   * @param leaseTtlMs how long a processing lease is held at most without renewal, ms: longer than the
   * store calls around `onEvent`; renewed every third of it while `onEvent` runs, so it only expires
   * when its holder died or lost the store.
   */
  constructor(state: SharedState, recordTtlMs: number, leaseTtlMs: number) {
    this.#state = state;
    this.#recordTtlMs = recordTtlMs;
    this.#leaseTtlMs = leaseTtlMs;
  }

  /**
   * For a handler with an inbox: never stand in with the memory. A store failure before `onEvent` is
   * thrown (the event waits in the inbox); after it, the record is retried for `recordRetryMs` (the
   * inbox's visibility timeout), so a status processed during an outage is recorded once the store answers.
   * A lease held elsewhere is waited for `leaseWaitMs` at most (then {@link isLeaseBusy}), so a claimed
   * event is never held past its claim waiting on one.
   */
  holdDuringOutages(recordRetryMs: number, leaseWaitMs: number): void {
    this.#state.holdDuringOutages();
    this.#recordRetryMs = recordRetryMs;
    this.#leaseWaitMs = leaseWaitMs;
  }

  /** True after {@link holdDuringOutages} with a store. */
  get holding(): boolean {
    return this.#state.holding;
  }

  /**
   * A look at the task's record, before anything costly (a confirming GET): a drop found here is final
   * (records only grow); `undefined` means the event goes on to {@link process}.
   */
  async precheck(taskId: string, status: string): Promise<EventDrop | undefined> {
    const key = this.#state.key('task2', taskId);
    const value = await this.#state.use((store) => store.get(key));
    // Kept as the claim's first guess.
    if (value !== undefined)
      await this.#state.local.compareAndSet(key, await this.#state.local.get(key), value, this.#recordTtlMs);
    return dropOf(decode(value), status);
  }

  /**
   * Processes `status` of the task at most once across instances, never after a later status: drops it
   * as a duplicate or out of order, else takes the task's lease, runs `process`, then records it.
   * @returns `'processed'`, or why it was dropped.
   * @throws what `process` throws (nothing is recorded, so a resend is processed), a
   * {@link DeliveryError} ({@link isLeaseBusy}) when the lease stays taken for twice its TTL, a
   * {@link DeliveryError} when the lease was taken over while `process` ran (nothing recorded), and
   * while holding, the store's failure before `process` ran.
   */
  async process(
    taskId: string,
    status: string,
    effect: RecordedEffect,
    process: () => Promise<void>,
  ): Promise<'processed' | EventDrop> {
    const key = this.#state.key('task2', taskId);
    // Safe to restart on the memory if the store fails: a lease written meanwhile is taken back.
    const held = await this.#state.use((store) => this.#claim(store, key, taskId, status));
    if (typeof held === 'string') return held;
    const { store, record, token } = held;
    // Renewed while `process` runs past a third of the TTL; the last write waits for a renewal under way.
    let renewal = Promise.resolve();
    const timer = setInterval(() => {
      renewal = renewal
        .then(async () => {
          const renewed = encode(record, { token, until: Date.now() + this.#leaseTtlMs });
          if (await store.compareAndSet(key, held.value, renewed, this.#recordTtlMs)) held.value = renewed;
        })
        .catch(() => {});
    }, this.#leaseTtlMs / 3);
    unrefTimer(timer);
    try {
      await process();
    } catch (error) {
      clearInterval(timer);
      await renewal;
      // Released (the record as it was), so a resend is processed; a store failure leaves it to expire.
      await store
        .compareAndSet(key, held.value, encode(record), this.#recordTtlMs)
        .catch((failure: unknown) => this.#state.failed(failure));
      throw error;
    }
    clearInterval(timer);
    await renewal;
    record.seen = [...record.seen.filter((seen) => seen !== status), status].slice(-MAX_STATUSES_PER_TASK);
    if (effect.advances) advanceOrder(record, status, effect.confirmed);
    await this.#record(store, key, held.value, encode(record), `Task ${taskId} (${status}): onEvent completed, but`);
    return 'processed';
  }

  /**
   * Reads the record (from this process's memory first: the value it wrote last), drops a duplicate or
   * an older status without writing, else writes this instance's lease into the record, waiting while a
   * live lease is held elsewhere.
   */
  async #claim(store: DeliveryStore, key: string, taskId: string, status: string) {
    const token = leaseToken();
    const waitMs = this.#leaseWaitMs ?? 2 * this.#leaseTtlMs;
    const giveUpAt = Date.now() + waitMs;
    // With a store, the memory's value is a guess (a drop found in it is final: records only grow); when
    // absent, a task at `accepted` or before is taken to be new, a later one is read.
    let value = await this.#state.local.get(key);
    if (value === undefined && store !== this.#state.local && (lifecycleRank(status) ?? 3) > 2) {
      value = await store.get(key);
    }
    for (let wait = FIRST_LEASE_WAIT_MS; ; ) {
      const record = decode(value);
      const drop = dropOf(record, status);
      if (drop !== undefined) return drop;
      const now = Date.now();
      const free = (record.lease?.until ?? 0) <= now;
      if (free) {
        const claimed = encode(record, { token, until: now + this.#leaseTtlMs });
        let taken: boolean;
        try {
          taken =
            value === undefined
              ? await store.setIfAbsent(key, claimed, this.#recordTtlMs)
              : await store.compareAndSet(key, value, claimed, this.#recordTtlMs);
        } catch (error) {
          // A write that timed out may still run later (a Redis client's queue): one queued behind it
          // takes the lease back, so it does not hold the task for its whole TTL.
          const back =
            value === undefined
              ? store.delete(key, claimed)
              : store.compareAndSet(key, claimed, value, this.#recordTtlMs);
          back.catch(() => {});
          throw error;
        }
        if (taken) return { store, record, token, value: claimed };
      }
      // Also bounds the rounds lost to other instances' writes.
      if (Date.now() >= giveUpAt) {
        const busy = new DeliveryError(
          `Task ${taskId}: its processing lease stayed taken for ${waitMs} ms; the event was not processed`,
        );
        leaseBusyErrors.add(busy);
        throw busy;
      }
      if (!free) {
        await sleep(wait);
        wait = Math.min(2 * wait, LAST_LEASE_WAIT_MS);
      }
      value = await store.get(key);
    }
  }

  /**
   * Records the processed status and drops the lease (`value` replaces `held`, the record holding this
   * instance's lease), then keeps `value` in this process's memory: the next event's first guess, and what
   * stands in during an outage. A store failure now (after `onEvent`) is an outage, never a reason to
   * process again; while holding, the write is retried for `recordRetryMs` at most.
   * @throws a {@link DeliveryError} when the lease was taken over (nothing recorded), or while holding,
   * when the store did not answer in time.
   */
  async #record(store: DeliveryStore, key: string, held: string, value: string, done: string): Promise<void> {
    const giveUpAt = Date.now() + this.#recordRetryMs;
    for (let pause = FIRST_RECORD_PAUSE_MS; ; pause = Math.min(2 * pause, LAST_RECORD_PAUSE_MS)) {
      try {
        // A retry after a write whose answer was lost finds the record already written.
        if (!(await store.compareAndSet(key, held, value, this.#recordTtlMs)) && (await store.get(key)) !== value) {
          throw new DeliveryError(
            `${done} the task's processing lease had expired and another instance holds it; the status was not recorded`,
          );
        }
        this.#state.answered();
        break;
      } catch (error) {
        if (!this.#state.failed(error)) throw error;
        if (!this.#state.holding) break;
        if (Date.now() + pause > giveUpAt) {
          const message = `${done} the store did not answer for ${this.#recordRetryMs} ms; the status was not recorded`;
          throw new DeliveryError(message, { cause: error });
        }
        await sleep(pause);
      }
    }
    const local = this.#state.local;
    if (store !== local) await local.compareAndSet(key, await local.get(key), value, this.#recordTtlMs);
  }
}
