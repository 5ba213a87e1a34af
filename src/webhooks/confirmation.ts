/**
 * Confirmations by `GET tasks/{id}`, shared between the events of one task (docs/webhooks.md,
 * "Deadlines and bounds"): a flood of identical webhooks, forged or not, costs one GET rather than one
 * per copy.
 *
 * - An event waiting on a task's confirmation takes its answer: a failure is shared with every event
 *   received before it settled; a status read back, with every event received before the GET started
 *   (the answer is at least as new as the event), and with those received meanwhile that it agrees with
 *   (their status, so they are duplicates). Any other event makes a GET of its own, so a genuine change
 *   arriving during a GET is never answered by the older read.
 * - A 404 is remembered for {@link NOT_FOUND_MEMORY_MS}: events of that task fail at once meanwhile.
 * - At most {@link MAX_CONFIRMED_TASKS} tasks are remembered (the oldest forgotten first), each answer for
 *   {@link CONFIRMATION_MEMORY_MS} after it settled.
 * @module
 */
import type { Task } from '../schemas/task.js';

/** How long a `GET tasks/{id}` answering 404 is remembered for that task: 10 000 ms. */
export const NOT_FOUND_MEMORY_MS = 10_000;

/** Most tasks whose latest confirmation (or 404) is remembered (each holds the task read back, about 2 KB). */
export const MAX_CONFIRMED_TASKS = 1000;

/** How long a settled confirmation is kept for the events that were waiting on it, ms. */
export const CONFIRMATION_MEMORY_MS = 60_000;

type Answer = { readonly ok: true; readonly task: Task } | { readonly ok: false; readonly error: unknown };

interface Confirmation {
  /** When the GET was sent, ms epoch. */
  readonly startedAt: number;
  /** When it was answered (or failed), ms epoch; `undefined` while in flight. */
  settledAt: number | undefined;
  readonly answer: Promise<Answer>;
}

/** Latest confirmation of each task, and the 404s remembered. */
export class TaskConfirmations {
  readonly #retrieve: (taskId: string) => Promise<Task>;
  readonly #latest = new Map<string, Confirmation>();
  readonly #notFound = new Map<string, { readonly until: number; readonly error: unknown }>();
  readonly #now: () => number;

  /**
   * @param retrieve the GET (`client.tasks.retrieve`).
   * @param now the clock, ms epoch.
   */
  constructor(retrieve: (taskId: string) => Promise<Task>, now: () => number = Date.now) {
    this.#retrieve = retrieve;
    this.#now = now;
  }

  /**
   * The task as the service answers it now, for an event of `kind` received at `receivedAt` (ms epoch).
   * @throws what the GET threw (shared by the events waiting on it), or the remembered 404.
   */
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
    if (latest !== undefined && receivedAt <= latest.startedAt) return this.#settle(await latest.answer);
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

  /** Sends a GET for `taskId` and remembers it as the task's latest confirmation. */
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

/** Sets `key` as the newest entry of `map`, forgetting the oldest past {@link MAX_CONFIRMED_TASKS}. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_CONFIRMED_TASKS) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}
