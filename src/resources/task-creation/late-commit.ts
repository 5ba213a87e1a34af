/**
 * The check after a create that sent a POST once a lookup found no task of an earlier, unanswered POST of
 * its order (docs/exactly-once.md "A late commit"). That lookup trusted the service to list a task within
 * `listingDelayMs` of its POST's end; a service that commits or lists it later (a request queued in a
 * load balancer after its client left, say) makes a second task, charged like the first. The order is
 * looked up again twice in the background: a second task in its window is logged as an error naming
 * every task (again by the second lookup when it lists more), so the assumption's failure is never silent.
 * The checks' timers keep no process alive: a process that exits before a check finished logs a warning
 * naming its order instead.
 * @module
 */
import type { ResourceContext } from '../../internal/context.js';
import { LookupRun } from './create-run.js';
import { HELD_POST_MAX_MS } from './held-post.js';
import { findTasksOfOrder } from './order-lookup.js';
import { tasksSince } from './order-reconciliation.js';

/** Checks waiting at once, at most: past it a check is skipped, with a warning. */
export const MAX_PENDING_LATE_COMMIT_CHECKS = 1000;
/** Deadline of each check's lookup when the client has no `totalTimeout`, ms. */
const CHECK_TIMEOUT_MS = 60_000;

/** Checks waiting or looking up, each as its warning that it did not finish. */
const pending = new Set<() => void>();
/** Whether the process's `exit` listener (Node) was added. */
let listening = false;
/** The timers of the checks waiting. */
const timers = new Set<ReturnType<typeof setTimeout>>();
/**
 * Aborts the lookups under way when {@link stopLateCommitChecks} is called; then made anew by the next
 * check (not at load: workerd allows no AbortController in a module's global scope).
 */
let stopping: AbortController | undefined;

/**
 * Looks `orderNumber` up `listingDelayMs` after now and again {@link HELD_POST_MAX_MS} (or twice
 * `listingDelayMs`, if longer) after now, on timers that keep no process alive; logs an error when a lookup
 * lists more than one task created since `since` (less `windowSkewMs`), and more than the first lookup
 * reported. A lookup that fails is logged as a warning, and so is a check not finished when the process
 * exits (Node's `exit` event).
 */
export function checkForLateCommit(context: ResourceContext, orderNumber: string, since: number): void {
  const { logger, listingDelayMs } = context;
  if (pending.size >= MAX_PENDING_LATE_COMMIT_CHECKS) {
    logger.warn(`Order ${orderNumber}: late-commit check skipped (too many waiting)`);
    return;
  }
  stopping ??= new AbortController();
  const { signal } = stopping;
  const startedAt = Date.now();
  const lastDelay = Math.max(HELD_POST_MAX_MS, 2 * listingDelayMs);
  const unfinished = () =>
    logger.warn(
      `Order ${orderNumber}: late-commit check not finished at exit; look its tasks up after ${new Date(startedAt + lastDelay).toISOString()} (docs: "A late commit")`,
      { orderNumber },
    );
  pending.add(unfinished);
  // The warnings of the checks not finished as the process exits (Node's `exit` event).
  if (!listening)
    listening = !!(
      globalThis as { process?: { once?: (event: 'exit', listener: () => void) => unknown } }
    ).process?.once?.('exit', () => {
      for (const warn of pending) warn();
    });
  void (async () => {
    // The tasks the last report named: the second lookup reports again only when it lists more.
    let known = 1;
    try {
      for (const delay of [listingDelayMs, lastDelay]) {
        await unrefSleep(startedAt + delay - Date.now());
        const run = new LookupRun(undefined, context.totalTimeoutMs ?? CHECK_TIMEOUT_MS, signal);
        try {
          const tasks = tasksSince(
            context,
            await findTasksOfOrder(context, orderNumber, { signal }, run),
            since,
          );
          if (tasks.length > known) {
            known = tasks.length;
            const taskIds = tasks.map((task) => task.id ?? '(no id)');
            logger.error(
              `Order ${orderNumber} has ${known} tasks (${taskIds.join(', ')}): a POST was committed past listingDelayMs (docs: "A late commit")`,
              { orderNumber, taskIds },
            );
          }
        } catch (error) {
          if (signal.aborted) return;
          logger.warn(`Order ${orderNumber}: late-commit check failed (${(error as Error).name})`);
        } finally {
          run.clear();
        }
      }
    } finally {
      pending.delete(unfinished);
    }
  })();
}

/**
 * Stops every waiting check, and the lookup of any under way, without a word: for a test between two
 * tests that share a mock, whose request log a check would otherwise reach. Not exported by the package.
 * @returns how many checks it stopped.
 */
export function stopLateCommitChecks(): number {
  const stopped = pending.size;
  for (const timer of timers) clearTimeout(timer);
  timers.clear();
  stopping?.abort();
  stopping = undefined;
  pending.clear();
  return stopped;
}

/**
 * Resolves after `ms` on a timer that keeps no process alive; never, once {@link stopLateCommitChecks}
 * clears it (its check is then dropped with it).
 */
function unrefSleep(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(
      () => {
        timers.delete(timer);
        resolve();
      },
      Math.max(0, ms),
    );
    (timer as { unref?: () => void }).unref?.();
    timers.add(timer);
  });
}
