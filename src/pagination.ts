/**
 * Page-by-page reading of `GET tasks` (spec § "GET /tasks", design § Pagination).
 *
 * `client.tasks.list(params)` returns a {@link TaskListPromise}: `await` it for one {@link TaskPage},
 * or iterate it with `for await` for every task of every page.
 * @module
 */
import { DeliveryError, PaginationLimitError } from './errors.js';
import type { Task } from './schemas/task.js';
import type { TaskListResponse } from './schemas/task-list.js';

/** Default safety cap on pages read by one iteration (10 000 tasks at 10 per page). */
export const DEFAULT_MAX_PAGES = 1000;

/** Fetches one page by number. */
export type FetchTaskPage = (page: number) => Promise<TaskPage>;

/** One page of tasks, as the service sent it, with navigation. */
export class TaskPage {
  /** Tasks of this page, in the service's order. */
  readonly tasks: Task[];
  /** This page's number, 1-based. */
  readonly page: number;
  /** Page size the service used. */
  readonly limit: number;
  /** Pages the service reports for the query. */
  readonly totalPages: number;
  /** Tasks the service reports for the query. */
  readonly total: number;
  readonly #fetchPage: FetchTaskPage;

  /** @internal Built by `client.tasks.list`. */
  constructor(response: TaskListResponse, fetchPage: FetchTaskPage) {
    // Defensive for validation 'warn'/'off', where the body is unchecked: a malformed page reads as empty.
    this.tasks = Array.isArray(response.tasks) ? response.tasks : [];
    this.page = Number.isInteger(response.page) ? response.page : 1;
    this.limit = Number.isInteger(response.limit) ? response.limit : this.tasks.length;
    this.totalPages = Number.isInteger(response.totalPages) ? response.totalPages : this.page;
    this.total = Number.isInteger(response.total) ? response.total : this.tasks.length;
    this.#fetchPage = fetchPage;
  }

  /** True when the service reports a later page and this one was not empty. */
  hasNextPage(): boolean {
    return this.tasks.length > 0 && this.page < this.totalPages;
  }

  /**
   * Fetches the page after this one, with the same parameters and request options.
   * @throws {DeliveryError} when {@link hasNextPage} is false; the request's own errors otherwise.
   */
  getNextPage(): Promise<TaskPage> {
    if (!this.hasNextPage())
      return Promise.reject(new DeliveryError(`No page after page ${this.page} of ${this.totalPages}`));
    return this.#fetchPage(this.page + 1);
  }
}

/** Options of {@link TaskListPromise.toArray}. */
export interface ToArrayOptions {
  /** Stop once this many tasks are collected. Default: all. */
  max?: number;
}

/**
 * The result of `client.tasks.list()`: a promise of the first {@link TaskPage} that is also an async
 * iterable of every task on every page. Nothing is requested until it is awaited or iterated.
 *
 * Iteration never yields the same task id twice (pages shift when tasks are created meanwhile),
 * stops at the last page or an empty one, and throws {@link PaginationLimitError} after `maxPages`
 * pages (default {@link DEFAULT_MAX_PAGES}).
 */
export class TaskListPromise implements PromiseLike<TaskPage>, AsyncIterable<Task> {
  readonly #fetchPage: FetchTaskPage;
  readonly #firstPageNumber: number;
  readonly #maxPages: number;
  #firstPage: Promise<TaskPage> | undefined;

  /** @internal Built by `client.tasks.list`. */
  constructor(fetchPage: FetchTaskPage, firstPageNumber: number, maxPages: number) {
    this.#fetchPage = fetchPage;
    this.#firstPageNumber = firstPageNumber;
    this.#maxPages = maxPages;
  }

  #first(): Promise<TaskPage> {
    this.#firstPage ??= this.#fetchPage(this.#firstPageNumber);
    return this.#firstPage;
  }

  /** Requests the first page (once) and settles with it, like `Promise.prototype.then`. */
  // biome-ignore lint/suspicious/noThenProperty: this object is deliberately awaitable (a promise of the first page).
  then<TResult1 = TaskPage, TResult2 = never>(
    onFulfilled?: ((page: TaskPage) => TResult1 | PromiseLike<TResult1>) | null,
    onRejected?: ((reason: unknown) => TResult2 | PromiseLike<TResult2>) | null,
  ): Promise<TResult1 | TResult2> {
    return this.#first().then(onFulfilled, onRejected);
  }

  /** Like `Promise.prototype.catch`, for the first page. */
  catch<TResult = never>(
    onRejected?: ((reason: unknown) => TResult | PromiseLike<TResult>) | null,
  ): Promise<TaskPage | TResult> {
    return this.#first().catch(onRejected);
  }

  /** Like `Promise.prototype.finally`, for the first page. */
  finally(onFinally?: (() => void) | null): Promise<TaskPage> {
    return this.#first().finally(onFinally);
  }

  /**
   * Every page in order, the first included.
   * @throws {PaginationLimitError} after `maxPages` pages while more are reported; request errors as they come.
   */
  async *byPage(): AsyncGenerator<TaskPage, void, undefined> {
    let page = await this.#first();
    yield page;
    for (let read = 1; page.hasNextPage(); read++) {
      if (read >= this.#maxPages) throw new PaginationLimitError(this.#maxPages);
      page = await page.getNextPage();
      yield page;
    }
  }

  /** Every task of every page, each id once. */
  async *[Symbol.asyncIterator](): AsyncGenerator<Task, void, undefined> {
    const seen = new Set<string>();
    for await (const page of this.byPage()) {
      for (const task of page.tasks) {
        if (task.id !== undefined) {
          if (seen.has(task.id)) continue;
          seen.add(task.id);
        }
        yield task;
      }
    }
  }

  /** Collects tasks into an array (each id once), stopping after `max` when given. */
  async toArray(options: ToArrayOptions = {}): Promise<Task[]> {
    const max = options.max ?? Number.POSITIVE_INFINITY;
    const tasks: Task[] = [];
    if (max <= 0) return tasks;
    for await (const task of this) {
      tasks.push(task);
      if (tasks.length >= max) break;
    }
    return tasks;
  }
}
