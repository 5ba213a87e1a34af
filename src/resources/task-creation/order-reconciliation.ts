/**
 * Reconciliation of a create (docs/exactly-once.md): after a POST whose outcome is unknown, the order is
 * looked up until the listing delay has passed, and the task found in the window is the create's own.
 * @module
 */
import { DuplicateTaskError, TaskCreationOutcomeUnknownError } from '../../core/errors.js';
import type { RequestOptions } from '../../core/options.js';
import type { ResourceContext } from '../../internal/context.js';
import { failureOutcome } from '../../internal/failure.js';
import { readServiceTime, timeDriftOf } from '../../schemas/service-time.js';
import type { Task, TaskWithId } from '../../schemas/task.js';
import type { CreateRun } from './create-run.js';
import { type HeldPost, stillUnanswered, untilEnded } from './held-post.js';
import { findTasksOfOrder } from './order-lookup.js';

/** The reason an error gives when the caller aborts while a create waits to send again or to look up. */
export const RECONCILING_ABORTED = 'the caller aborted during reconciliation';

/**
 * The one task a reconciliation found, or `undefined`.
 * @throws {DuplicateTaskError} for several; {@link TaskCreationOutcomeUnknownError} for one without an id.
 */
export function soleTaskOf(found: readonly Task[], orderNumber: string): TaskWithId | undefined {
  if (found.length > 1) {
    throw new DuplicateTaskError({ orderNumber, taskIds: found.map((task) => task.id ?? '(no id)') });
  }
  const [task] = found;
  if (task === undefined) return undefined;
  if (typeof task.id === 'string' && task.id !== '') return task as TaskWithId;
  throw new TaskCreationOutcomeUnknownError({
    orderNumber,
    reason: 'the order was found, but the service listed its task without an id',
  });
}

/** For log lines: a message may quote the service. */
export function nameOf(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

/**
 * A listed task's `createdAt` in ms (a time without a zone read as UTC), `NaN` when unreadable: then the
 * task counts as in the window. A time not as the contract writes it is reported as drift.
 */
function createdAtOf(context: ResourceContext, task: Task, index: number): number {
  const read = readServiceTime(task.createdAt);
  const drift = timeDriftOf(task.createdAt, read);
  if (drift !== undefined)
    context.reportDrift('tasks.create', [{ path: `tasks.${index}.createdAt`, ...drift }], undefined);
  return read?.ms ?? Number.NaN;
}

/** The tasks of `found` created since `since` less `windowSkewMs` (or at an unreadable time). */
export function tasksSince(context: ResourceContext, found: readonly Task[], since: number): Task[] {
  const windowStart = since - context.reconciliation.windowSkewMs;
  return found.filter((task, index) => !(createdAtOf(context, task, index) < windowStart));
}

/**
 * Looks the order up at once, and again at `run.decidableAt` if that is ahead: the task created since
 * `since` (less `windowSkewMs`), or `undefined` (none at all then: the order may be sent). A repeat
 * delivery leaves its `earlier` deliveries out; without them it cannot tell its own task from theirs.
 * @throws {DuplicateTaskError}; {@link TaskCreationOutcomeUnknownError} for tasks only before the window
 * (or a repeat delivery's, not told apart), a failed lookup, or a decision past the deadline
 * (`retryAfterMs`).
 */
export async function decide(
  context: ResourceContext,
  orderNumber: string,
  since: number,
  options: RequestOptions,
  failure: unknown,
  run: CreateRun,
  repeatDelivery: boolean,
  earlier?: ReadonlySet<string>,
  waitForListing = true,
  held?: HeldPost,
): Promise<TaskWithId | undefined> {
  const answered = (task: TaskWithId) => {
    context.logger.info(`Order ${orderNumber}: the POST was answered after its timeout: ${task.id}`);
    return task;
  };
  for (;;) {
    const ending = held?.outcome;
    if (ending !== undefined && 'task' in ending) return answered(ending.task);
    run.stage = 'looking the order up';
    const lookedAt = Date.now();
    let found: Task[];
    try {
      found = (await findTasksOfOrder(context, orderNumber, options, run)).filter(
        // A task listed without an id cannot be told from the earlier deliveries: it stays (and, having
        // no id, is never returned nor taken as absent).
        (task) => typeof task.id !== 'string' || task.id === '' || !earlier?.has(task.id),
      );
    } catch (error) {
      if (run.expired) throw run.error();
      throw new TaskCreationOutcomeUnknownError({
        orderNumber,
        reason: `looking the order up failed with ${nameOf(error)}`,
        cause: error,
        ...run.retryAfter(),
      });
    }
    if (repeatDelivery && found.some((task) => typeof task.id !== 'string' || task.id === '')) {
      throw new TaskCreationOutcomeUnknownError({
        orderNumber,
        reason:
          "the order's tasks are listed without ids, so this repeat delivery's own cannot be told; nothing was sent again",
        cause: failure,
      });
    }
    const inWindow = tasksSince(context, found, since);
    // Several new tasks for a repeat delivery: another create of the order ran meanwhile (not a duplicate).
    const told = repeatDelivery ? earlier !== undefined && inWindow.length === 1 : inWindow.length > 0;
    if (told) return soleTaskOf(inWindow, orderNumber);
    if (found.length > 0) {
      throw new TaskCreationOutcomeUnknownError({
        orderNumber,
        reason: `tasks of this order number ${inWindow.length > 1 ? 'appeared since this repeat delivery began; which is its own cannot be told' : inWindow.length > 0 ? "may be this repeat delivery's earlier ones" : 'predate this create'}; nothing was sent again`,
        candidateTaskIds: found.map((task) => task.id ?? '(no id)'),
        cause: failure,
      });
    }
    // The held POST may have ended during the lookup: its answer is the outcome, its close restarts the
    // delay.
    const ended = held?.outcome;
    if (ended !== undefined) {
      if ('task' in ended) return answered(ended.task);
      if (ended.abandoned) throw stillUnanswered(context, orderNumber, run, ended.failure);
      if (failureOutcome(ended.failure) === 'rejected') throw ended.failure;
      // Its connection ended only then: the service may have processed it until then.
      run.decidableAt = Math.max(run.decidableAt ?? 0, ended.at + context.listingDelayMs);
    }
    const decidableAt = run.decidableAt ?? 0;
    // Decidable, but with its POST still open nothing is sent again: its answer, however late, decides.
    const decided = lookedAt >= decidableAt;
    if (decided && held?.open !== true) return undefined;
    const wait = decided ? undefined : decidableAt - Date.now();
    if (!decided && !waitForListing) return undefined;
    if (wait !== undefined && wait >= run.remaining()) {
      throw new TaskCreationOutcomeUnknownError({
        orderNumber,
        reason: 'no task is listed yet, and listingDelayMs ends past the totalTimeout',
        cause: failure,
        retryAfterMs: wait,
      });
    }
    if (held?.open !== true) {
      await run.sleep(Math.max(0, wait ?? 0), RECONCILING_ABORTED, failure);
      continue;
    }
    // Ended or not, the next lookup decides (with its outcome, read above).
    await untilEnded(
      held,
      wait === undefined ? undefined : Math.max(0, wait),
      run,
      RECONCILING_ABORTED,
      failure,
    );
  }
}
