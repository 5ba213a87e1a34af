/**
 * `createdAfter`/`createdBefore` of `tasks.list`, applied on the client (docs/pagination.md "By creation
 * time"): which tasks a page keeps, and whether a page ends the walk, on an order checked as it is read.
 * @module
 */
import { followPage, OrderCheck, orderDrift, type WalkTrail } from '../../internal/walk-order.js';
import { readServiceTime, timeDriftOf } from '../../schemas/service-time.js';
import type { Task } from '../../schemas/task.js';
import type { TaskListParams } from '../../schemas/task-list.js';
import type { Drift } from '../../schemas/tolerant-read.js';
import type { PageFacts, PageFilter } from './page.js';

/** The list parameters a window is sent with (the bounds never are). */
export type WindowQuery = Omit<TaskListParams, 'createdAfter' | 'createdBefore'>;

/** How `tasks.list` applies `createdAfter`/`createdBefore`. */
export interface CreationWindow {
  readonly query: WindowQuery;
  readonly filter: PageFilter;
  /** The walk may stop at a bound (the listing is asked sorted by `createdAt` towards it). */
  readonly stops: boolean;
}

/**
 * The window of `after` (inclusive) and `before` (exclusive), ms; `undefined` without either. Without a sort
 * of the caller's, asks for `createdAt` newest first. `report` gets each kind of drift once per call.
 */
export function creationWindow(
  after: number | undefined,
  before: number | undefined,
  params: WindowQuery,
  report: (drift: Drift) => void,
): CreationWindow | undefined {
  if (after === undefined && before === undefined) return undefined;
  const query: WindowQuery =
    params.sortBy === undefined && params.sortOrder === undefined
      ? { ...params, sortBy: 'createdAt', sortOrder: -1 }
      : params;
  const byCreation = query.sortBy === 'createdAt';
  // The service sorts ascending when no order is given (OpenAPI `listTasks`).
  const newestFirst = byCreation && query.sortOrder === -1;
  const bound = newestFirst ? after : byCreation ? before : undefined;
  const beyond = (created: number) =>
    newestFirst ? created < (after as number) : created >= (before as number);
  const reported = new Set<string>();
  const reportOnce = (drift: Drift) => {
    if (reported.has(drift.received)) return;
    reported.add(drift.received);
    report(drift);
  };
  const order = new OrderCheck(() => reportOnce(orderDrift('createdAt', newestFirst)));
  /** ms (UTC for a time without a zone), `NaN` when unreadable; reports its drift. */
  const createdOf = (task: Task, index: number): number => {
    const read = readServiceTime(task.createdAt);
    const drift = timeDriftOf(task.createdAt, read);
    if (drift !== undefined) reportOnce({ path: `tasks.${index}.createdAt`, ...drift });
    return read?.ms ?? Number.NaN;
  };
  return {
    query,
    stops: bound !== undefined,
    filter: {
      keep: (task, index) => {
        const created = createdOf(task, index);
        return (after === undefined || created >= after) && (before === undefined || created < before);
      },
      read: (served) => {
        if (bound === undefined) return undefined;
        const listed = served.map((task) => ({
          id: task.id,
          time: readServiceTime(task.createdAt)?.ms ?? Number.NaN,
        }));
        return { listed, pastBound: listed.some(({ time }) => beyond(time)) };
      },
      ends: (page: PageFacts, trail: WalkTrail) =>
        order.holds(followPage(trail, page.listed, newestFirst).inOrder, trail) && page.pastBound,
    },
  };
}
