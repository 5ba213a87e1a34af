/**
 * Duplicate and order filtering across instances (the handler's `store` option): each task has a record
 * in the store, the statuses processed and how far along its lifecycle it is (the rules of `dedupe.ts`),
 * and a processing lease, so that of N receivers behind a load balancer one at a time processes a task's
 * events. Under the lease an instance reads the record, drops a duplicate or an older status, calls
 * `onEvent`, and only then records the status (compare-and-set), so a failure or a crash in between
 * leaves nothing recorded and a resend (or a sync) is processed. The record is fenced: it is written
 * only while the lease is still this instance's (checked and renewed by compare-and-set after
 * `onEvent`); an instance whose lease expired and was taken over writes nothing.
 *
 * Keys (`SharedState.key`): `task:<id>` holds the record as JSON for `recordTtlMs` after its last
 * change; `lease:<id>` holds a random token for `leaseTtlMs` at most.
 * @module
 */
import { DeliveryError, isStoreUnavailableError } from '../core/errors.js';
import type { DeliveryStore } from '../core/store.js';
import { advanceOrder, isStatusOutOfOrder, MAX_STATUSES_PER_TASK, type TaskOrder } from './dedupe.js';
import { leaseToken, type SharedState } from './shared-state.js';

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

/** A task's record in the store. */
interface TaskRecord extends TaskOrder {
  /** Statuses (or event kinds) processed, oldest first, at most {@link MAX_STATUSES_PER_TASK}. */
  seen: string[];
}

/** Compare-and-set rounds before a record is given up on (each round means another instance wrote it). */
const MAX_RECORD_ROUNDS = 16;
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
  } catch {
    // Not ours or damaged: start afresh; the compare-and-set replaces it.
  }
  return record;
}

function encode(record: TaskRecord): string {
  return JSON.stringify({ rank: record.rank, ended: record.ended ?? null, seen: record.seen });
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
   * @param leaseTtlMs how long a processing lease is held at most, ms: longer than the longest processing
   * (`onEvent` and the store calls around it), so it only expires when its holder died.
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
   * A look at the task's record without the lease, before anything costly (a confirming GET): a drop found
   * here is final (records only grow); `undefined` means the event goes on to {@link process}.
   */
  async precheck(taskId: string, status: string): Promise<EventDrop | undefined> {
    const value = await this.#state.use((store) => store.get(this.#state.key('task', taskId)));
    return dropOf(decode(value), status);
  }

  /**
   * Processes `status` of the task at most once across instances, never after a later status: under the
   * task's lease, drops it as a duplicate or out of order, else runs `process` and then records it.
   * @returns `'processed'`, or why it was dropped.
   * @throws what `process` throws (nothing is recorded, so a resend is processed), a
   * {@link DeliveryError} ({@link isLeaseBusy}) when the lease stays taken for twice its TTL, and while holding, the store's
   * failure before `process` ran.
   */
  async process(
    taskId: string,
    status: string,
    effect: RecordedEffect,
    process: () => Promise<void>,
  ): Promise<'processed' | EventDrop> {
    const recordKey = this.#state.key('task', taskId);
    const leaseKey = this.#state.key('lease', taskId);
    // Safe to restart on the memory if the store fails: nothing is written but the lease, released here.
    const held = await this.#state.use(async (store) => {
      const token = await this.#takeLease(store, leaseKey, taskId);
      try {
        return { store, token, value: await store.get(recordKey) };
      } catch (error) {
        await store.delete(leaseKey, token).catch(() => {});
        throw error;
      }
    });
    try {
      const drop = dropOf(decode(held.value), status);
      if (drop !== undefined) return drop;
      await process();
      if (this.#state.holding) {
        await this.#recordHolding(held.store, leaseKey, held.token, taskId, held.value, status, effect);
        return 'processed';
      }
      await this.#stillHeld(held.store, leaseKey, held.token, taskId, status);
      await this.#record(held.store, taskId, held.value, status, effect);
      return 'processed';
    } finally {
      // Not waited for: the event is done, and a later store call (on a Redis connection) comes after it.
      this.#release(held.store, leaseKey, held.token);
    }
  }

  /** Lease releases sent and not answered yet, by lease key (see {@link released}, {@link settled}). */
  readonly #releasing = new Map<string, Promise<unknown>>();

  #release(store: DeliveryStore, leaseKey: string, token: string): void {
    const releasing = store.delete(leaseKey, token).catch((error: unknown) => this.#state.failed(error));
    this.#releasing.set(leaseKey, releasing);
    void releasing.finally(() => {
      if (this.#releasing.get(leaseKey) === releasing) this.#releasing.delete(leaseKey);
    });
  }

  /**
   * Resolves once the task's lease release sent last has been answered (at once when none is pending): an
   * inbox marks the event done after it, so the task's next event, claimed by any worker, finds the lease free.
   */
  async released(taskId: string): Promise<void> {
    await this.#releasing.get(this.#state.key('lease', taskId));
  }

  /** Resolves once every lease release sent so far has been answered (or failed). */
  async settled(): Promise<void> {
    while (this.#releasing.size > 0) await Promise.all(this.#releasing.values());
  }

  /**
   * Fences the record: true when this instance still holds the task's lease (renewed by compare-and-set);
   * a store failure now is an outage (the memory stands in). Throws when the lease expired and another
   * instance took it: this one must not write the record any more.
   */
  async #stillHeld(
    store: DeliveryStore,
    leaseKey: string,
    token: string,
    taskId: string,
    status: string,
  ): Promise<void> {
    let held: boolean;
    try {
      held = await store.compareAndSet(leaseKey, token, token, this.#leaseTtlMs);
    } catch (error) {
      if (this.#state.failed(error)) return;
      throw error;
    }
    if (!held) {
      throw new DeliveryError(
        `Task ${taskId} (${status}): onEvent completed, but the task's processing lease had expired and another instance holds it; the status was not recorded`,
      );
    }
  }

  /**
   * {@link #stillHeld} and {@link #record} while holding: retried while the store does not answer (for
   * `recordRetryMs` at most), never on the memory. A lease that expired during the outage and that no one
   * else took is taken again. Throws a {@link DeliveryError} when another instance holds the lease, when
   * the record kept changing, or when the store did not answer in time (the status may then be processed
   * again: the event stays in the inbox).
   */
  async #recordHolding(
    store: DeliveryStore,
    leaseKey: string,
    token: string,
    taskId: string,
    known: string | undefined,
    status: string,
    effect: RecordedEffect,
  ): Promise<void> {
    const key = this.#state.key('task', taskId);
    const giveUpAt = Date.now() + this.#recordRetryMs;
    for (let pause = FIRST_RECORD_PAUSE_MS; ; pause = Math.min(2 * pause, LAST_RECORD_PAUSE_MS)) {
      try {
        const held =
          (await store.compareAndSet(leaseKey, token, token, this.#leaseTtlMs)) ||
          (await store.compareAndSet(leaseKey, undefined, token, this.#leaseTtlMs));
        if (!held) {
          throw new DeliveryError(
            `Task ${taskId} (${status}): onEvent completed, but the task's processing lease had expired and another instance holds it; the status was not recorded`,
          );
        }
        const recorded = await this.#merge(store, key, known, status, effect);
        this.#state.answered();
        if (!recorded) {
          throw new DeliveryError(
            `Task ${taskId} (${status}): onEvent completed, but the task's record in the store kept changing and the status was not recorded there`,
          );
        }
        return;
      } catch (error) {
        if (!isStoreUnavailableError(error)) throw error;
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

  async #takeLease(store: DeliveryStore, key: string, taskId: string): Promise<string> {
    const token = leaseToken();
    const waitMs = this.#leaseWaitMs ?? 2 * this.#leaseTtlMs;
    const giveUpAt = Date.now() + waitMs;
    for (let wait = FIRST_LEASE_WAIT_MS; ; wait = Math.min(2 * wait, LAST_LEASE_WAIT_MS)) {
      let taken: boolean;
      try {
        taken = await store.setIfAbsent(key, token, this.#leaseTtlMs);
      } catch (error) {
        // A write that timed out may still run later (a Redis client's queue): one queued behind it
        // releases the lease it would take, so it does not hold the task for its whole TTL.
        store.delete(key, token).catch(() => {});
        throw error;
      }
      if (taken) return token;
      if (Date.now() >= giveUpAt) {
        const busy = new DeliveryError(
          `Task ${taskId}: its processing lease stayed taken for ${waitMs} ms; the event was not processed`,
        );
        leaseBusyErrors.add(busy);
        throw busy;
      }
      await sleep(wait);
    }
  }

  /**
   * Records the processed status in `store` (starting from `known`, the value read under the lease) and
   * in this process's memory, so it stands in with this instance's history during an outage. A store
   * failure now (after `onEvent`) is an outage, never a reason to process again.
   */
  async #record(
    store: DeliveryStore,
    taskId: string,
    known: string | undefined,
    status: string,
    effect: RecordedEffect,
  ): Promise<void> {
    const key = this.#state.key('task', taskId);
    const local = this.#state.local;
    let recorded = true;
    if (store !== local) {
      try {
        recorded = await this.#merge(store, key, known, status, effect);
      } catch (error) {
        if (!this.#state.failed(error)) throw error;
      }
    }
    await this.#merge(local, key, await local.get(key), status, effect);
    if (!recorded) {
      throw new DeliveryError(
        `Task ${taskId} (${status}): onEvent completed, but the task's record in the store kept changing and the status was not recorded there`,
      );
    }
  }

  /** Adds `status` to the record under `key` by compare-and-set; false when it kept changing. */
  async #merge(
    store: DeliveryStore,
    key: string,
    known: string | undefined,
    status: string,
    effect: RecordedEffect,
  ): Promise<boolean> {
    let current = known;
    for (let round = 0; round < MAX_RECORD_ROUNDS; round++) {
      const record = decode(current);
      record.seen = [...record.seen.filter((seen) => seen !== status), status].slice(-MAX_STATUSES_PER_TASK);
      if (effect.advances) advanceOrder(record, status, effect.confirmed);
      if (await store.compareAndSet(key, current, encode(record), this.#recordTtlMs)) return true;
      current = await store.get(key);
    }
    return false;
  }
}
