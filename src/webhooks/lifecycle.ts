/**
 * The order of a task's statuses, for dropping webhooks that arrive late; spec § "States and
 * transitions" and the design's transitions (pending → requested → accepted → inprogress →
 * pickup_location_reached → pickedup → enroute → delivered; cancelled, rejected and failed end a task
 * from earlier statuses).
 * @module
 */

/** Statuses along the delivery path, earliest first; the position is the rank. */
const PATH = [
  'pending',
  'requested',
  'accepted',
  'inprogress',
  'pickup_location_reached',
  'pickedup',
  'enroute',
  'delivered',
] as const;

const RANK: ReadonlyMap<string, number> = new Map(PATH.map((status, index) => [status, index]));

/** Statuses after which a task changes no more. */
const FINAL: ReadonlySet<string> = new Set(['delivered', 'cancelled', 'rejected', 'failed']);

/**
 * Position of a status along the delivery path (`pending` 0 … `delivered` 7), or `undefined` for a
 * status off the path (`cancelled`, `rejected`, `failed`, an unknown kind), which is never older than
 * another.
 */
export function lifecycleRank(status: string): number | undefined {
  return RANK.get(status);
}

/** True for `delivered`, `cancelled`, `rejected` and `failed`: nothing follows them. */
export function isFinalStatus(status: string): boolean {
  return FINAL.has(status);
}
