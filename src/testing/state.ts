/** The mock's task store, with what the mock needs beyond a task's API form. @module */
import type { Task } from '../schemas/task.js';

/** One entry of the webhook form of `statusHistory` (no `id`; OpenAPI schema `StatusHistoryEntry`). */
export interface WebhookHistoryEntry {
  readonly status: string;
  readonly timestamp: string;
}

export interface TaskRecord {
  /** Creation order, the tiebreak of every sort. */
  readonly seq: number;
  /** The task in API response form; the mock's own object (hand out clones only). */
  readonly task: Task;
  /** fils. */
  readonly feeFils: number;
  /** False on an invoice account. */
  readonly walletDeducted: boolean;
  /** Address lines of the pickup point, for the webhook form of `pickupLocation`. */
  readonly pickupAddress: readonly string[];
  /** Every event so far including the webhook-only ones, for the webhook form of `statusHistory`. */
  readonly events: WebhookHistoryEntry[];
  /** When the task was delivered (ISO 8601), for `driver.completed_at` in the webhook form. */
  completedAt: string | undefined;
}

/** Tasks in creation order, by id; at most `limit`, the oldest forgotten first. */
export class TaskStore {
  readonly #records: TaskRecord[] = [];
  readonly #byId = new Map<string, TaskRecord>();
  readonly #limit: number;
  #seq = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Never reused, even after {@link clear}. */
  nextSeq(): number {
    this.#seq += 1;
    return this.#seq;
  }

  /** Stores a task, forgetting the oldest when full. @throws {Error} for a missing or used id. */
  add(record: TaskRecord): void {
    const id = record.task.id;
    if (id === undefined || this.#byId.has(id))
      throw new Error(`task id ${String(id)} is missing or already used`);
    this.#records.push(record);
    this.#byId.set(id, record);
    if (this.#records.length > this.#limit) {
      const oldest = this.#records.shift();
      if (oldest?.task.id !== undefined) this.#byId.delete(oldest.task.id);
    }
  }

  get(id: string): TaskRecord | undefined {
    return this.#byId.get(id);
  }

  all(): readonly TaskRecord[] {
    return this.#records;
  }

  get size(): number {
    return this.#records.length;
  }

  clear(): void {
    this.#records.length = 0;
    this.#byId.clear();
  }
}
