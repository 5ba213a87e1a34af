/**
 * The order a walk that stops early relies on, checked as it reads (docs/pagination.md "By creation time",
 * docs/webhooks.md "Catching lost events"): every page sorted as asked, and no task on a page that was not
 * read before coming before the last task read. Once either fails the walk no longer stops early, and says
 * so once.
 * @module
 */
import type { Drift } from '../schemas/tolerant-read.js';

/**
 * Task ids a walk remembers to tell a task pushed down onto the next page (read again) from one out of order.
 */
export const MAX_TRAIL_IDS = 10_000;

/** A listed task as the order check sees it: its id and its time (ms; `NaN` when unreadable). */
export interface ListedTime {
  readonly id: unknown;
  readonly time: number;
}

/**
 * Tasks with a readable time a walk must have read before it may stop early: one task shows no order, so a
 * service that ignores the sort asked for could hide the rest of the window behind a first page of one task.
 */
export const MIN_ORDER_EVIDENCE = 2;

/** What one walk has read: the time of its last task, and the ids of its last {@link MAX_TRAIL_IDS} tasks. */
export class WalkTrail {
  /** ms of the last task read with a readable time; `NaN` before one. */
  last = Number.NaN;
  /** Tasks read with a readable time. */
  timed = 0;
  /**
   * The ids read last, oldest at `#next` once full (a ring: O(1) per id, no rehash of a Set emptied at its
   * front).
   */
  readonly #ring: unknown[] = [];
  #next = 0;
  /** Id → how many times it is in the ring. */
  readonly #counts = new Map<unknown, number>();

  /** True when a task with this id was read (among the last {@link MAX_TRAIL_IDS}). */
  has(id: unknown): boolean {
    return id !== undefined && this.#counts.has(id);
  }

  remember(id: unknown): void {
    if (id === undefined) return;
    if (this.#ring.length === MAX_TRAIL_IDS) {
      const oldest = this.#ring[this.#next];
      const count = this.#counts.get(oldest) ?? 1;
      if (count <= 1) this.#counts.delete(oldest);
      else this.#counts.set(oldest, count - 1);
      this.#ring[this.#next] = id;
      this.#next = (this.#next + 1) % MAX_TRAIL_IDS;
    } else {
      this.#ring.push(id);
    }
    this.#counts.set(id, (this.#counts.get(id) ?? 0) + 1);
  }
}

/** A page followed: whether the order held, and which of its tasks the walk had not read before. */
export interface FollowedPage {
  readonly inOrder: boolean;
  readonly fresh: readonly boolean[];
}

/**
 * Follows `page` (as served) on `trail`: in order when its readable times are sorted (newest first: each at
 * or before the one before it) and none of its tasks not read before comes before `trail.last`. A task
 * read before may: tasks added at the front push the ones read last onto the next page.
 */
export function followPage(
  trail: WalkTrail,
  page: readonly ListedTime[],
  newestFirst: boolean,
): FollowedPage {
  const before = (a: number, b: number) => (newestFirst ? a > b : a < b);
  let inOrder = true;
  let previous = Number.NaN;
  const fresh = page.map(({ id, time }) => {
    const unread = !trail.has(id);
    if (!Number.isNaN(time)) {
      trail.timed++;
      if (!Number.isNaN(previous) && before(time, previous)) inOrder = false;
      if (unread && !Number.isNaN(trail.last) && before(time, trail.last)) inOrder = false;
      previous = time;
    }
    return unread;
  });
  for (const { id } of page) trail.remember(id);
  if (!Number.isNaN(previous)) trail.last = previous;
  return { inOrder, fresh };
}

/** The order drift of a walk over `field` (`createdAt`, `updatedAt`): reported once, `action: 'read-all'`. */
export function orderDrift(field: string, newestFirst: boolean): Drift {
  return {
    path: 'tasks',
    expected: `sorted by ${field}, ${newestFirst ? 'newest' : 'oldest'} first`,
    received: 'another order',
    action: 'read-all',
  };
}

/**
 * Sticky: once a page came out of order, the walk reads on to its end (or page cap); `onUnordered` runs once.
 */
export class OrderCheck {
  readonly #onUnordered: () => void;
  #unordered = false;

  constructor(onUnordered: () => void) {
    this.#onUnordered = onUnordered;
  }

  /**
   * True while every page checked so far was in order (`inOrder` of this one included) and `trail` holds
   * enough tasks to show it ({@link MIN_ORDER_EVIDENCE}): only then may a walk stop early.
   */
  holds(inOrder: boolean, trail: WalkTrail): boolean {
    if (!inOrder && !this.#unordered) {
      this.#unordered = true;
      this.#onUnordered();
    }
    return !this.#unordered && trail.timed >= MIN_ORDER_EVIDENCE;
  }
}
