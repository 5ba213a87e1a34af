/**
 * The order rules of the duplicate and order filter (shared with `stored-dedupe.ts`) and the in-process
 * memory: records expire `windowMs` after their last use; beyond `maxTasks` the least recently used goes.
 * @module
 */
import { isFinalStatus, lifecycleRank } from '../schemas/lifecycle.js';

/** Statuses remembered per task at most (a task has about ten in its life). */
export const MAX_STATUSES_PER_TASK = 32;

export interface TaskOrder {
  rank: number;
  /** A final status was processed, read back by `GET tasks/{id}` or only claimed by a body. */
  ended: 'confirmed' | 'unconfirmed' | undefined;
}

/**
 * True when `status` is earlier along the delivery path than one processed, or the task ended: after a
 * confirmed final status nothing is in order; after an unconfirmed one, another final status still is
 * (a body cannot show which is real). An unknown kind is never older.
 */
export function isStatusOutOfOrder(order: TaskOrder, status: string): boolean {
  if (order.ended === 'confirmed') return true;
  if (order.ended === 'unconfirmed' && !isFinalStatus(status)) return true;
  const rank = lifecycleRank(status);
  return rank !== undefined && rank < order.rank;
}

/** Records `status` in `order`: raises its rank, ends the task on a final status (a confirmed end stays). */
export function advanceOrder(order: TaskOrder, status: string, confirmed: boolean): void {
  order.rank = Math.max(order.rank, lifecycleRank(status) ?? -1);
  if (isFinalStatus(status) && order.ended !== 'confirmed')
    order.ended = confirmed ? 'confirmed' : 'unconfirmed';
}

interface TaskRecord extends TaskOrder {
  readonly seen: Map<string, number>;
  touchedAt: number;
}

/**
 * Per-task memory of processed statuses; methods take the time in ms, so expiry is testable without a clock.
 */
export class TaskEventMemory {
  readonly #records = new Map<string, TaskRecord>();
  readonly #windowMs: number;
  readonly #maxTasks: number;

  constructor(windowMs: number, maxTasks: number) {
    this.#windowMs = windowMs;
    this.#maxTasks = maxTasks;
  }

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

  isDuplicate(taskId: string, status: string, now: number): boolean {
    const markedAt = this.#read(taskId, now)?.seen.get(status);
    return markedAt !== undefined && now - markedAt < this.#windowMs;
  }

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

  isOutOfOrder(taskId: string, status: string, now: number): boolean {
    const record = this.#read(taskId, now);
    return record !== undefined && isStatusOutOfOrder(record, status);
  }

  advance(taskId: string, status: string, now: number, confirmed: boolean): void {
    advanceOrder(this.#write(taskId, now), status, confirmed);
  }
}
