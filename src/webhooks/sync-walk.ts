/**
 * The walk of `sync()` (docs/webhooks.md "Catching lost events"): `GET tasks` by `updatedAt`, newest first,
 * one page after another, back to the first page holding a task updated before the walk's start, and only
 * while every page read came in that order; otherwise on to the end of the listing (or its page cap).
 * @module
 */
import { followPage, OrderCheck, orderDrift, WalkTrail } from '../internal/walk-order.js';
import type { TaskListOptions } from '../resources/tasks.js';
import { MAX_PAGE_SIZE } from '../schemas/page-size.js';
import { readServiceTime, timeDriftOf } from '../schemas/service-time.js';
import type { Task } from '../schemas/task.js';
import type { TaskListParams } from '../schemas/task-list.js';
import type { Drift } from '../schemas/tolerant-read.js';

/** `client.tasks.list`, or any function returning an async iterable of the listed tasks. */
export type ListTasks = (params: TaskListParams, options: TaskListOptions) => AsyncIterable<Task>;

/** A task the walk reached: updated at or after its start, or at a time it could not read (`NaN`). */
export interface WalkedTask {
  readonly task: Task;
  /** ms since the epoch (a time without a zone read as UTC); `NaN` when unreadable. */
  readonly updatedAt: number;
}

/** What `client.tasks.list` returns beside its tasks: its pages, in order. */
interface Paged {
  byPage(): AsyncIterable<{ readonly tasks: readonly Task[] }>;
}

const isPaged = (listing: AsyncIterable<Task>): listing is AsyncIterable<Task> & Paged =>
  typeof (listing as Partial<Paged>).byPage === 'function';

/** The pages of `listing` as served; a plain iterable of tasks in groups of a page's size. */
async function* pagesOf(listing: AsyncIterable<Task>): AsyncGenerator<readonly Task[], void, undefined> {
  if (isPaged(listing)) {
    for await (const page of listing.byPage()) yield page.tasks;
    return;
  }
  let group: Task[] = [];
  for await (const task of listing) {
    group.push(task);
    if (group.length === MAX_PAGE_SIZE) {
      yield group;
      group = [];
    }
  }
  if (group.length > 0) yield group;
}

/**
 * The tasks of `list` updated at or after `walkFrom` (ms), each id once. Pages are read one after another
 * (`concurrency: 1`): a task whose `updatedAt` changes during the walk moves to the top, and with pages
 * served in sequence it only pushes the tasks not yet read down (read twice, yielded once), never past a
 * page already read. `report` gets each kind of drift once: a time without a zone (read as UTC), one that
 * cannot be read (its task yielded, `NaN`), pages out of order (the walk then reads on to the end).
 */
export async function* tasksUpdatedSince(
  list: ListTasks,
  walkFrom: number,
  signal: AbortSignal | undefined,
  report: (drift: Drift) => void,
): AsyncGenerator<WalkedTask, void, undefined> {
  const reported = new Set<string>();
  const reportOnce = (drift: Drift) => {
    if (reported.has(drift.received)) return;
    reported.add(drift.received);
    report(drift);
  };
  const order = new OrderCheck(() => reportOnce(orderDrift('updatedAt', true)));
  const options: TaskListOptions = signal === undefined ? { concurrency: 1 } : { concurrency: 1, signal };
  // Tasks read again (pushed down a page) are yielded once, within MAX_TRAIL_IDS.
  const trail = new WalkTrail();
  for await (const served of pagesOf(list({ sortBy: 'updatedAt', sortOrder: -1 }, options))) {
    const listed = served.map((task, index) => {
      const read = readServiceTime(task.updatedAt);
      const drift = timeDriftOf(task.updatedAt, read);
      if (drift !== undefined) reportOnce({ path: `tasks.${index}.updatedAt`, ...drift });
      return { id: task.id, time: read?.ms ?? Number.NaN };
    });
    const { inOrder, fresh } = followPage(trail, listed, true);
    const holds = order.holds(inOrder, trail);
    for (const [index, task] of served.entries()) {
      const updatedAt = listed[index]?.time ?? Number.NaN;
      if (fresh[index] && !(updatedAt < walkFrom)) yield { task, updatedAt };
    }
    // Newest first, in an order seen to hold: no later page holds a task updated since the walk's start.
    if (holds && listed.some(({ time }) => time < walkFrom)) return;
  }
}
