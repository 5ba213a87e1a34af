/** One page of `GET tasks` (OpenAPI `listTasks`) and the bounds of a walk (docs/pagination.md). */

import type { ResponseHead } from '../../core/api-promise.js';
import { DeliveryError } from '../../core/errors.js';
import { type ListedTime, WalkTrail } from '../../internal/walk-order.js';
import type { Task } from '../../schemas/task.js';
import type { TaskListResponse } from '../../schemas/task-list.js';

/** Pages one walk reads again at most, after a lower `total` showed tasks leaving the listing. */
export const MAX_REREADS = 10;

/** Default cap on pages read by one iteration (`maxPages` of `tasks.list`). */
export const DEFAULT_MAX_PAGES = 1000;

/** Default pages requested at once by an iteration (`concurrency` of `tasks.list`). */
export const DEFAULT_LIST_CONCURRENCY = 16;

/** Largest `concurrency` accepted: each page in flight holds a connection. */
export const MAX_LIST_CONCURRENCY = 1000;

/** Task ids an iteration remembers to skip repeats (docs/pagination.md "Shifting pages"). */
export const DEDUPE_WINDOW = 10_000;

export interface PageRequest {
  readonly signal?: AbortSignal | undefined;
  readonly onRateLimited?: (() => void) | undefined;
  /** What is left of the walk's deadline, ms. */
  readonly totalTimeout?: number | undefined;
}

/** Fetches one page by number; without `request`, with the caller's own options. */
export type FetchTaskPage = (page: number, request?: PageRequest) => Promise<TaskPage>;

/**
 * @internal What a served page tells a filter that may end a walk: each task's id and time, and if one is
 * past the bound.
 */
export interface PageFacts {
  readonly listed: readonly ListedTime[];
  readonly pastBound: boolean;
}

/** @internal A filter applied on the client (`createdAfter`, `createdBefore` of `tasks.list`). */
export interface PageFilter {
  /** `index`: the task's place in the page as served. */
  keep(task: Task, index: number): boolean;
  /** What the page as served tells; `undefined` when this filter never ends a walk. */
  read(served: readonly Task[]): PageFacts | undefined;
  /**
   * True when no page after this one can hold a task to keep: it holds one past the bound, and every page
   * followed on the walk's `trail` so far, this one included, was in order.
   */
  ends(page: PageFacts, trail: WalkTrail): boolean;
}

/** Pages a walk ends after as served: empty. */
const lastPages = new WeakSet<TaskPage>();

/** A page read with a filter that may end the walk: its facts, the walk it was read on, and the decision. */
interface FilteredPage {
  readonly filter: PageFilter;
  readonly facts: PageFacts;
  /** The walk's trail; a page of `await` starts one, `getNextPage()` hands it on. */
  trail: WalkTrail | undefined;
  ends: boolean | undefined;
}

const filteredPages = new WeakMap<TaskPage, FilteredPage>();

/**
 * @internal True when a walk ends after `page`: it was empty as served, or its filter says so, decided once
 * per trail: `trail` (a walk's), else the one it was read on (`getNextPage()`), else a new one.
 */
export function endsWalk(page: TaskPage, trail?: WalkTrail): boolean {
  if (lastPages.has(page)) return true;
  const filtered = filteredPages.get(page);
  if (filtered === undefined) return false;
  if (trail !== undefined && trail !== filtered.trail) {
    filtered.trail = trail;
    filtered.ends = undefined;
  }
  if (filtered.ends === undefined) {
    filtered.trail ??= new WalkTrail();
    filtered.ends = filtered.filter.ends(filtered.facts, filtered.trail);
  }
  return filtered.ends;
}

/**
 * @internal The response the first page of a listing was read from (set by `client.tasks.list` for
 * `withResponse()`; freed with the page). Later pages keep none: a walk would hold each one's body text
 * beside its parsed tasks.
 */
export const pageHeads = new WeakMap<TaskPage, ResponseHead | undefined>();

/** One page of tasks, as the service sent it, with navigation. */
export class TaskPage {
  /** In the service's order; with `createdAfter`/`createdBefore`, only those in the window. */
  readonly tasks: Task[];
  /** This page's number, 1-based. */
  readonly page: number;
  /** Page size the service used. */
  readonly limit: number;
  /** Pages the service reports for the whole listing. */
  readonly totalPages: number;
  /** Tasks the service reports for the whole listing. */
  readonly total: number;
  readonly #fetchPage: FetchTaskPage;

  /** @internal Built by `client.tasks.list`. */
  constructor(response: TaskListResponse, fetchPage: FetchTaskPage, filter?: PageFilter) {
    const body: Partial<Record<keyof TaskListResponse, unknown>> =
      typeof response === 'object' && response !== null ? response : {};
    const integer = (value: unknown): value is number => Number.isInteger(value);
    const served = Array.isArray(body.tasks) ? (body.tasks as Task[]) : [];
    this.tasks = filter === undefined ? served : served.filter((task, index) => filter.keep(task, index));
    if (served.length === 0) lastPages.add(this);
    const facts = filter?.read(served);
    if (filter !== undefined && facts !== undefined) {
      filteredPages.set(this, { filter, facts, trail: undefined, ends: undefined });
    }
    this.page = integer(body.page) ? body.page : 1;
    this.limit = integer(body.limit) ? body.limit : served.length;
    this.totalPages = integer(body.totalPages) ? body.totalPages : this.page;
    this.total = integer(body.total) ? body.total : served.length;
    this.#fetchPage = fetchPage;
  }

  /**
   * A later page is reported, and this one was not empty nor past a creation bound in an order seen to hold
   * (docs/pagination.md "By creation time").
   */
  hasNextPage(): boolean {
    return !endsWalk(this) && this.page < this.totalPages;
  }

  /**
   * The next page, with the same parameters and options.
   * @throws {DeliveryError} when {@link hasNextPage} is false; the request's errors.
   */
  getNextPage(): Promise<TaskPage> {
    if (!this.hasNextPage())
      return Promise.reject(new DeliveryError(`No page after page ${this.page} of ${this.totalPages}`));
    const { trail } = filteredPages.get(this) ?? {};
    return this.#fetchPage(this.page + 1).then((next) => {
      const filtered = filteredPages.get(next);
      if (filtered !== undefined) filtered.trail ??= trail;
      return next;
    });
  }
}
