/** One page of `GET tasks` (OpenAPI `listTasks`) and the bounds of a walk (docs/pagination.md). */

import type { ResponseHead } from '../../core/api-promise.js';
import { DeliveryError } from '../../core/errors.js';
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

/** @internal A filter applied on the client (`createdAfter`, `createdBefore` of `tasks.list`). */
export interface PageFilter {
  keep(task: Task): boolean;
  /** True when no page after one holding `tasks` (as served) can hold a task to keep. */
  endsWith(tasks: readonly Task[]): boolean;
}

/** @internal Pages a walk ends after: empty as served, or past a filter's bound. */
export const lastPages = new WeakSet<TaskPage>();

/** @internal The response each page was read from (set by `client.tasks.list`; freed with the page). */
export const pageHeads = new WeakMap<TaskPage, ResponseHead>();

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
    this.tasks = filter === undefined ? served : served.filter((task) => filter.keep(task));
    if (served.length === 0 || filter?.endsWith(served)) lastPages.add(this);
    this.page = integer(body.page) ? body.page : 1;
    this.limit = integer(body.limit) ? body.limit : served.length;
    this.totalPages = integer(body.totalPages) ? body.totalPages : this.page;
    this.total = integer(body.total) ? body.total : served.length;
    this.#fetchPage = fetchPage;
  }

  /** A later page is reported, this one was not empty nor past a `createdAfter` bound. */
  hasNextPage(): boolean {
    return !lastPages.has(this) && this.page < this.totalPages;
  }

  /**
   * The next page, with the same parameters and options.
   * @throws {DeliveryError} when {@link hasNextPage} is false; the request's errors.
   */
  getNextPage(): Promise<TaskPage> {
    if (!this.hasNextPage())
      return Promise.reject(new DeliveryError(`No page after page ${this.page} of ${this.totalPages}`));
    return this.#fetchPage(this.page + 1);
  }
}
