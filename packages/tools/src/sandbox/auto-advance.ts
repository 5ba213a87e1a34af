/**
 * The courier of `autoAdvanceMs`: moves every open task one step along the delivery path per interval
 * (docs/sandbox.md).
 */

import type { Task } from 'delivery-task-sdk';
import { isFinalStatus } from 'delivery-task-sdk/schemas';
import type { MockDeliveryService } from 'delivery-task-sdk/testing';

/** Shortest interval, ms. */
export const MIN_AUTO_ADVANCE_MS = 10;

/** Longest interval, ms (24 hours). */
export const MAX_AUTO_ADVANCE_MS = 86_400_000;

/** Most tasks moved in one step. */
export const MAX_TASKS_PER_STEP = 100;

/** A running courier. */
export interface AutoAdvance {
  /** Steps run so far, and intervals skipped because the previous step was still running. */
  readonly stats: { readonly steps: number; readonly skipped: number };
  /** Stops the timer and resolves once the step in progress (if any) has ended. */
  stop(): Promise<void>;
}

/** Orders ISO 8601 timestamps (code-unit order). */
function compareText(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

/** Open tasks, least recently updated first (creation order among equals), at most `limit` of them. */
function nextTasks(tasks: readonly Task[], limit: number): string[] {
  return tasks
    .map((task, order) => ({ task, order }))
    .filter(({ task }) => task.id !== undefined && !isFinalStatus(task.status ?? 'pending'))
    .sort((a, b) => compareText(a.task.updatedAt ?? '', b.task.updatedAt ?? '') || a.order - b.order)
    .slice(0, limit)
    .map(({ task }) => task.id ?? '');
}

/**
 * Starts moving `mock`'s open tasks one step every `intervalMs` (the first step one interval from now).
 * A task that cannot move (another caller moved it to a final status meanwhile) is left as it is.
 * `intervalMs` is read by the sandbox's options schema: an integer from {@link MIN_AUTO_ADVANCE_MS} to
 * {@link MAX_AUTO_ADVANCE_MS}.
 */
export function startAutoAdvance(mock: MockDeliveryService, intervalMs: number): AutoAdvance {
  let running: Promise<void> | undefined;
  const stats = { steps: 0, skipped: 0 };
  const step = async () => {
    const ids = nextTasks(mock.tasks, MAX_TASKS_PER_STEP);
    // advance() changes the task at once and then waits for its webhook POSTs: the tasks move together.
    await Promise.all(ids.map((id) => mock.advance(id).catch(() => undefined)));
    stats.steps += 1;
  };
  const timer = setInterval(() => {
    if (running) {
      stats.skipped += 1;
      return;
    }
    running = step().finally(() => {
      running = undefined;
    });
  }, intervalMs);
  return {
    stats,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
