/**
 * Duplicate and order filtering across instances (the handler's `store`; docs/webhooks.md "Receiving on
 * several instances"): per task a record (`task:<id>`, the rules of `dedupe.ts`) and a processing lease
 * (`lease:<id>`, `task-lease.ts`). Under the lease: read, drop or run `onEvent` (the lease confirmed
 * right before, renewed while it runs), then record by compare-and-set, only while the lease is still
 * ours (fenced), so a failure or crash records nothing.
 * @module
 */
import { DeliveryError, StoreUnavailableError } from '../core/errors.js';
import type { DeliveryStore, StoreFence } from '../core/store.js';
import { advanceOrder, isStatusOutOfOrder, MAX_STATUSES_PER_TASK, type TaskOrder } from './dedupe.js';
import { leaseToken, type SharedState } from './shared-state.js';
import { type LeaseLapse, TaskLease } from './task-lease.js';

export type EventDrop = 'duplicate' | 'outOfOrder';

export type EventOutcome = 'processed' | EventDrop | 'failed';

/** `advances`: moves the task's order; `confirmed`: read from the service. */
export interface RecordedEffect {
  readonly advances: boolean;
  readonly confirmed: boolean;
}

interface TaskRecord extends TaskOrder {
  /** Oldest first, at most {@link MAX_STATUSES_PER_TASK}. */
  seen: string[];
}

/** How a status was written: with the lease released, the lease kept, or not at all. */
type RecordOutcome = 'set' | 'kept' | 'fenced' | 'changed';

const MAX_RECORD_ROUNDS = 16;
/** Leases taken for one event at most, when a stall made the one taken lapse before `onEvent`. */
const MAX_LEASE_ROUNDS = 3;
/** Waits for a lease held elsewhere, ms, doubling. */
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
  } catch {}
  return record;
}

function encode(record: TaskRecord): string {
  return JSON.stringify({ rank: record.rank, ended: record.ended ?? null, seen: record.seen });
}

function dropOf(record: TaskRecord, status: string): EventDrop | undefined {
  if (record.seen.includes(status)) return 'duplicate';
  if (isStatusOutOfOrder(record, status)) return 'outOfOrder';
  return undefined;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const FIRST_RECORD_PAUSE_MS = 50;
const LAST_RECORD_PAUSE_MS = 1000;

const leaseBusyErrors = new WeakSet<object>();

/** True when the task's lease stayed taken: nothing ran. */
export function isLeaseBusy(error: unknown): boolean {
  return typeof error === 'object' && error !== null && leaseBusyErrors.has(error);
}

export class StoredTaskEvents {
  readonly #state: SharedState;
  readonly #recordTtlMs: number;
  readonly #leaseTtlMs: number;
  #recordRetryMs = 0;
  #leaseWaitMs: number | undefined;

  /** `leaseTtlMs` exceeds the longest processing, so a lease only expires when its holder died. */
  constructor(state: SharedState, recordTtlMs: number, leaseTtlMs: number) {
    this.#state = state;
    this.#recordTtlMs = recordTtlMs;
    this.#leaseTtlMs = leaseTtlMs;
  }

  /**
   * With an inbox: never stand in with the memory. A store failure before `onEvent` is thrown (the
   * event waits); after it, the record is retried for `recordRetryMs`; a busy lease is waited for
   * `leaseWaitMs` at most (then {@link isLeaseBusy}).
   */
  holdDuringOutages(recordRetryMs: number, leaseWaitMs: number): void {
    this.#state.holdDuringOutages();
    this.#recordRetryMs = recordRetryMs;
    this.#leaseWaitMs = leaseWaitMs;
  }

  get holding(): boolean {
    return this.#state.holding;
  }

  /** A look at the record without the lease, before a confirming GET: a drop here is final. */
  async precheck(taskId: string, status: string): Promise<EventDrop | undefined> {
    const value = await this.#state.use((store) => store.get(this.#state.key('task', taskId)));
    return dropOf(decode(value), status);
  }

  /**
   * Processes `status` at most once across instances, never after a later status, while no process
   * holding the lease stalls past its TTL inside `process`: `lapsed` is then told (once). `enter` is awaited
   * once the lease is taken and the record allows the status, before the lease is confirmed.
   * @throws what `enter` and `process` throw (nothing recorded); {@link isLeaseBusy} after twice the lease
   * TTL; while holding, a store failure before `process` ran.
   */
  async process(
    taskId: string,
    status: string,
    effect: RecordedEffect,
    enter: () => Promise<void>,
    process: () => Promise<void>,
    lapsed: (lapse: LeaseLapse, ttlMs: number) => void = () => {},
  ): Promise<'processed' | EventDrop> {
    const recordKey = this.#state.key('task', taskId);
    const leaseKey = this.#state.key('lease', taskId);
    for (let round = 1; ; round++) {
      const held = await this.#state.use((store) => this.#takeLease(store, leaseKey, taskId, recordKey));
      let released = false;
      let ran = false;
      try {
        const drop = dropOf(decode(held.value), status);
        if (drop !== undefined) return drop;
        await enter();
        // A stall or the wait for a slot since the lease was taken may have outlived it: then another
        // instance may have processed the status, and the record read with it is stale. Taken again, read
        // again.
        if (!(await held.confirm())) {
          if (round < MAX_LEASE_ROUNDS) continue;
          throw this.#busy(taskId, `was lost to a stall ${round} times`);
        }
        held.keepRenewing();
        ran = true;
        await process();
        held.recording();
        const fence: StoreFence = { key: leaseKey, value: held.token, orAbsent: this.#state.holding };
        released = await this.#record(held, fence, taskId, status, effect);
        return 'processed';
      } finally {
        held.stop();
        const lapse = ran ? held.lapse() : undefined;
        if (lapse !== undefined) lapsed(lapse, this.#leaseTtlMs);
        if (!released) this.#release(held.store, leaseKey, held.token);
      }
    }
  }

  #busy(taskId: string, why: string): DeliveryError {
    const busy = new DeliveryError(
      `Task ${taskId}: its processing lease ${why}; the event was not processed`,
    );
    leaseBusyErrors.add(busy);
    return busy;
  }

  readonly #releasing = new Map<string, Promise<unknown>>();

  #release(store: DeliveryStore, leaseKey: string, token: string): void {
    const releasing = store.delete(leaseKey, token).catch((error: unknown) => this.#state.failed(error));
    this.#releasing.set(leaseKey, releasing);
    void releasing.finally(() => {
      if (this.#releasing.get(leaseKey) === releasing) this.#releasing.delete(leaseKey);
    });
  }

  /** Resolves once the task's last lease release is answered: the inbox marks the event done after it. */
  async released(taskId: string): Promise<void> {
    await this.#releasing.get(this.#state.key('lease', taskId));
  }

  async settled(): Promise<void> {
    while (this.#releasing.size > 0) await Promise.all(this.#releasing.values());
  }

  /**
   * Records `status` under the lease: {@link #write}. Without holding, also in this process's memory; a
   * store failure is an outage (recorded in the memory only, the lease left to expire), never a reason to
   * process again. While holding, retried while the store does not answer, at most `recordRetryMs`, never
   * on the memory. Resolves `true` when the store released the lease with the record.
   * @throws {DeliveryError} when another instance holds the lease, the record kept changing, or time ran out.
   */
  async #record(
    held: TaskLease,
    fence: StoreFence,
    taskId: string,
    status: string,
    effect: RecordedEffect,
  ): Promise<boolean> {
    const { store, value: known } = held;
    const key = this.#state.key('task', taskId);
    if (!this.#state.holding) {
      let outcome: RecordOutcome = 'kept';
      try {
        outcome = await this.#write(store, fence, key, known, status, effect);
      } catch (error) {
        if (!this.#state.failed(error)) throw error;
      }
      const local = this.#state.local;
      if (store !== local && outcome !== 'fenced') {
        await this.#write(local, undefined, key, await local.get(key), status, effect);
      }
      return settle(outcome, held, taskId, status);
    }
    const giveUpAt = Date.now() + this.#recordRetryMs;
    for (let pause = FIRST_RECORD_PAUSE_MS; ; pause = Math.min(2 * pause, LAST_RECORD_PAUSE_MS)) {
      try {
        const outcome = await this.#write(store, fence, key, known, status, effect);
        this.#state.answered();
        return settle(outcome, held, taskId, status);
      } catch (error) {
        if (!(error instanceof StoreUnavailableError)) throw error;
        this.#state.failed(error);
        if (Date.now() + pause > giveUpAt) {
          throw new DeliveryError(
            `Task ${taskId} (${status}): onEvent completed, but the store did not answer for ${this.#recordRetryMs} ms; the status was not recorded`,
            { cause: error },
          );
        }
        await sleep(pause);
      }
    }
  }

  /**
   * The fence (none: the memory's record only), then the status merged into the record: one call (the
   * lease released with it) where the store has `compareAndSetReleasing`, else the lease renewed (taken
   * again if absent and `fence.orAbsent`) and the record compared and set.
   */
  async #write(
    store: DeliveryStore,
    fence: StoreFence | undefined,
    key: string,
    known: string | undefined,
    status: string,
    effect: RecordedEffect,
  ): Promise<RecordOutcome> {
    const write = fence === undefined ? undefined : store.compareAndSetReleasing;
    let current = known;
    if (fence !== undefined && write === undefined) {
      const held =
        (await store.compareAndSet(fence.key, fence.value, fence.value, this.#leaseTtlMs)) ||
        (fence.orAbsent && (await store.compareAndSet(fence.key, undefined, fence.value, this.#leaseTtlMs)));
      if (!held) return 'fenced';
    }
    for (let round = 0; round < MAX_RECORD_ROUNDS; round++) {
      const next = withStatus(current, status, effect);
      if (write === undefined || fence === undefined) {
        if (await store.compareAndSet(key, current, next, this.#recordTtlMs)) return 'kept';
      } else {
        const outcome = await write.call(store, key, current, next, this.#recordTtlMs, fence);
        if (outcome !== 'changed') return outcome;
      }
      current = await store.get(key);
    }
    return 'changed';
  }

  async #takeLease(store: DeliveryStore, key: string, taskId: string, recordKey: string): Promise<TaskLease> {
    const token = leaseToken();
    const waitMs = this.#leaseWaitMs ?? 2 * this.#leaseTtlMs;
    const giveUpAt = Date.now() + waitMs;
    for (let wait = FIRST_LEASE_WAIT_MS; ; wait = Math.min(2 * wait, LAST_LEASE_WAIT_MS)) {
      let taken: boolean;
      let value: string | undefined;
      const sentAt = performance.now();
      try {
        if (store.setIfAbsentThenGet !== undefined) {
          [taken, value] = await store.setIfAbsentThenGet(key, token, this.#leaseTtlMs, recordKey);
        } else {
          taken = await store.setIfAbsent(key, token, this.#leaseTtlMs);
          if (taken) value = await store.get(recordKey);
        }
      } catch (error) {
        // A timed-out write may still run later: one queued behind it releases the lease it would take.
        store.delete(key, token).catch(() => {});
        throw error;
      }
      if (taken) return new TaskLease(store, key, token, value, sentAt, this.#leaseTtlMs);
      if (Date.now() >= giveUpAt) throw this.#busy(taskId, `stayed taken for ${waitMs} ms`);
      await sleep(wait);
    }
  }
}

/** The record `current` with `status` seen (and the task's order moved by `effect`), encoded. */
function withStatus(current: string | undefined, status: string, effect: RecordedEffect): string {
  const record = decode(current);
  record.seen = [...record.seen.filter((seen) => seen !== status), status].slice(-MAX_STATUSES_PER_TASK);
  if (effect.advances) advanceOrder(record, status, effect.confirmed);
  return encode(record);
}

/**
 * `'set'`: recorded, the lease released (`true`); `'kept'`: recorded, the lease still held (`false`).
 * @throws {DeliveryError} for `'fenced'` (another instance holds the lease) and `'changed'` (the record kept
 * changing).
 */
function settle(outcome: RecordOutcome, held: TaskLease, taskId: string, status: string): boolean {
  if (outcome === 'fenced') {
    held.markLost();
    throw new DeliveryError(
      `Task ${taskId} (${status}): onEvent completed, but the task's processing lease had expired and another instance holds it; the status was not recorded`,
    );
  }
  if (outcome === 'changed') {
    throw new DeliveryError(
      `Task ${taskId} (${status}): onEvent completed, but the task's record in the store kept changing and the status was not recorded there`,
    );
  }
  return outcome === 'set';
}
