/**
 * What the webhook handler remembers per task, to drop duplicates of (task id, status) and statuses
 * older than one already processed: the order rules ({@link isStatusOutOfOrder}, {@link advanceOrder}),
 * defined once for the in-process memory here and the store (`stored-dedupe.ts`), and the in-process
 * memory itself. Bounded: records expire `windowMs` after their last use and the least recently used
 * record goes first beyond `maxTasks`. Which events may move the order is the handler's choice (see
 * `advance`).
 * @module
 */
import { isFinalStatus, lifecycleRank } from '../schemas/lifecycle.js';

/** Statuses remembered per task at most; the oldest goes first (a task has about ten in its life). */
export const MAX_STATUSES_PER_TASK = 32;

/** How far a task has gone along its lifecycle, as far as the handler has processed it. */
export interface TaskOrder {
  /** Highest {@link lifecycleRank} processed, −1 for none. */
  rank: number;
  /**
   * A final status was processed: `'confirmed'` when `GET tasks/{id}` read it back, `'unconfirmed'` when
   * only a webhook body claimed it.
   */
  ended: 'confirmed' | 'unconfirmed' | undefined;
}

/**
 * True when `status` is earlier along the delivery path than a status already processed, or the task
 * has ended: after a confirmed final status nothing is in order any more; after one only a body claimed,
 * another final status still is (two different final statuses cannot both be real, and a body cannot
 * show which one is, so neither hides the other). A status off the path (an unknown kind) is never
 * older.
 */
export function isStatusOutOfOrder(order: TaskOrder, status: string): boolean {
  if (order.ended === 'confirmed') return true;
  if (order.ended === 'unconfirmed' && !isFinalStatus(status)) return true;
  const rank = lifecycleRank(status);
  return rank !== undefined && rank < order.rank;
}

/**
 * Records in `order` that `status` was processed: raises its position along the delivery path, and ends
 * the task on a final status (`confirmed`: read back with `GET tasks/{id}`, else only claimed by a body;
 * a confirmed end is never downgraded).
 */
export function advanceOrder(order: TaskOrder, status: string, confirmed: boolean): void {
  order.rank = Math.max(order.rank, lifecycleRank(status) ?? -1);
  if (isFinalStatus(status) && order.ended !== 'confirmed') order.ended = confirmed ? 'confirmed' : 'unconfirmed';
}

interface TaskRecord extends TaskOrder {
  /** Status or event kind → when it was marked (ms since the epoch). */
  readonly seen: Map<string, number>;
  /** Last use, ms since the epoch. */
  touchedAt: number;
}

/**
 * Per-task memory of processed statuses. Every method takes the current time in ms (`Date.now()`), so
 * expiry is testable without a clock.
 */
export class TaskEventMemory {
  readonly #records = new Map<string, TaskRecord>();
  readonly #windowMs: number;
  readonly #maxTasks: number;

  /**
   * @param windowMs how long a (task id, status) is remembered after it was marked, ms.
   * @param maxTasks tasks remembered at most; the least recently used is forgotten first.
   */
  constructor(windowMs: number, maxTasks: number) {
    this.#windowMs = windowMs;
    this.#maxTasks = maxTasks;
  }

  /** Tasks remembered now (expired ones may still count until the next write). */
  get size(): number {
    return this.#records.size;
  }

  #read(taskId: string, now: number): TaskRecord | undefined {
    const record = this.#records.get(taskId);
    if (record !== undefined && now - record.touchedAt >= this.#windowMs) {
      this.#records.delete(taskId);
      return undefined;
    }
    return record;
  }

  /** The task's record, created if needed, moved to the most recently used end; evicts beyond the bounds. */
  #write(taskId: string, now: number): TaskRecord {
    const record = this.#read(taskId, now) ?? { seen: new Map(), rank: -1, ended: undefined, touchedAt: now };
    this.#records.delete(taskId);
    record.touchedAt = now;
    this.#records.set(taskId, record);
    for (const [oldestId, oldest] of this.#records) {
      if (this.#records.size <= this.#maxTasks && now - oldest.touchedAt < this.#windowMs) break;
      this.#records.delete(oldestId);
    }
    return record;
  }

  /** True when `status` was marked for the task less than `windowMs` ago. */
  isDuplicate(taskId: string, status: string, now: number): boolean {
    const markedAt = this.#read(taskId, now)?.seen.get(status);
    return markedAt !== undefined && now - markedAt < this.#windowMs;
  }

  /** Remembers `status` for the task (a later {@link isDuplicate} is true within the window). */
  mark(taskId: string, status: string, now: number): void {
    const seen = this.#write(taskId, now).seen;
    seen.delete(status);
    seen.set(status, now);
    if (seen.size > MAX_STATUSES_PER_TASK) {
      for (const oldest of seen.keys()) {
        seen.delete(oldest);
        break;
      }
    }
  }

  /** {@link isStatusOutOfOrder} for the task's record (never for a task not remembered). */
  isOutOfOrder(taskId: string, status: string, now: number): boolean {
    const record = this.#read(taskId, now);
    return record !== undefined && isStatusOutOfOrder(record, status);
  }

  /** {@link advanceOrder} on the task's record. */
  advance(taskId: string, status: string, now: number, confirmed: boolean): void {
    advanceOrder(this.#write(taskId, now), status, confirmed);
  }
}
