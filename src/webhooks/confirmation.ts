/**
 * Confirmations by `GET tasks/{id}` shared between the events of one task (docs/webhooks.md "Deadlines
 * and bounds"): a flood of identical webhooks costs one GET. An answer serves the events received before
 * the GET started, and those received meanwhile that it agrees with; any other makes its own GET. A 404
 * is remembered for {@link NOT_FOUND_MEMORY_MS}; at most {@link MAX_CONFIRMED_TASKS} tasks.
 * @module
 */
import type { Task } from '../schemas/task.js';

export const NOT_FOUND_MEMORY_MS = 10_000;

/** Tasks whose latest confirmation is remembered (about 2 KB each). */
export const MAX_CONFIRMED_TASKS = 1000;

export const CONFIRMATION_MEMORY_MS = 60_000;

type Answer = { readonly ok: true; readonly task: Task } | { readonly ok: false; readonly error: unknown };

interface Confirmation {
  readonly startedAt: number;
  /** `undefined` while in flight. */
  settledAt: number | undefined;
  readonly answer: Promise<Answer>;
}

export class TaskConfirmations {
  readonly #retrieve: (taskId: string) => Promise<Task>;
  readonly #latest = new Map<string, Confirmation>();
  readonly #notFound = new Map<string, { readonly until: number; readonly error: unknown }>();
  readonly #now: () => number;

  constructor(retrieve: (taskId: string) => Promise<Task>, now: () => number = Date.now) {
    this.#retrieve = retrieve;
    this.#now = now;
  }

  /** @throws what the GET threw (shared by the events waiting on it), or the remembered 404. */
  async confirm(taskId: string, kind: string, receivedAt: number): Promise<Task> {
    const missing = this.#notFound.get(taskId);
    if (missing !== undefined) {
      if (missing.until > this.#now()) throw missing.error;
      this.#notFound.delete(taskId);
    }
    let latest = this.#latest.get(taskId);
    if (latest?.settledAt !== undefined && latest.settledAt + CONFIRMATION_MEMORY_MS < this.#now()) {
      this.#latest.delete(taskId);
      latest = undefined;
    }
    if (latest !== undefined && receivedAt < latest.startedAt) return this.#settle(await latest.answer);
    if (latest !== undefined) {
      const answer = await latest.answer;
      const settledAt = latest.settledAt ?? this.#now();
      if (receivedAt <= settledAt && (!answer.ok || answer.task.status === kind)) return this.#settle(answer);
    }
    return this.#settle(await this.#start(taskId).answer);
  }

  #settle(answer: Answer): Task {
    if (answer.ok) return answer.task;
    throw answer.error;
  }

  #start(taskId: string): Confirmation {
    const confirmation: Confirmation = {
      startedAt: this.#now(),
      settledAt: undefined,
      answer: this.#retrieve(taskId).then(
        (task): Answer => ({ ok: true, task }),
        (error: unknown): Answer => {
          if ((error as { status?: unknown } | null)?.status === 404) {
            remember(this.#notFound, taskId, { until: this.#now() + NOT_FOUND_MEMORY_MS, error });
          }
          return { ok: false, error };
        },
      ),
    };
    void confirmation.answer.then(() => {
      confirmation.settledAt = this.#now();
    });
    remember(this.#latest, taskId, confirmation);
    return confirmation;
  }
}

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_CONFIRMED_TASKS) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}
