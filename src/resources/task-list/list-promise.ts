/** What `client.tasks.list()` returns (README "Pagination"; docs/pagination.md). */

import { responseOf, type WithResponse, withResponseOf } from '../../core/api-promise.js';
import type { Task } from '../../schemas/task.js';
import { DEDUPE_WINDOW, type FetchTaskPage, pageHeads, type TaskPage } from './page.js';
import { PageWalk, type PageWalkOptions, RecentIds } from './page-walk.js';

/** Options of {@link TaskListPromise.toArray}. */
export interface ToArrayOptions {
  /** Stop once this many tasks are collected; only the pages needed for them are requested. Default: all. */
  max?: number;
}

/**
 * A promise of the first {@link TaskPage}, and an async iterable of every task (each id once within
 * the last 10 000 ids); nothing is requested until awaited or iterated.
 */
export class TaskListPromise implements PromiseLike<TaskPage>, AsyncIterable<Task> {
  readonly #fetchPage: FetchTaskPage;
  readonly #firstPageNumber: number;
  readonly #options: PageWalkOptions;
  #firstPage: Promise<TaskPage> | undefined;
  #firstRateLimited = false;

  /** @internal Built by `client.tasks.list`. */
  constructor(fetchPage: FetchTaskPage, firstPageNumber: number, options: PageWalkOptions) {
    this.#fetchPage = fetchPage;
    this.#firstPageNumber = firstPageNumber;
    this.#options = options;
  }

  #first(): Promise<TaskPage> {
    this.#firstPage ??= this.#fetchPage(this.#firstPageNumber, {
      signal: this.#options.signal,
      onRateLimited: () => {
        this.#firstRateLimited = true;
      },
    });
    return this.#firstPage;
  }

  /** Requests the first page (once) and settles with it, like `Promise.prototype.then`. */
  // This object is deliberately awaitable: a promise of the first page.
  // biome-ignore lint/suspicious/noThenProperty: deliberately awaitable
  then<TResult1 = TaskPage, TResult2 = never>(
    onFulfilled?: ((page: TaskPage) => TResult1 | PromiseLike<TResult1>) | null,
    onRejected?: ((reason: unknown) => TResult2 | PromiseLike<TResult2>) | null,
  ): Promise<TResult1 | TResult2> {
    return this.#first().then(onFulfilled, onRejected);
  }

  /** The first page with its response, as `APIPromise.withResponse()`; rejects with its error. */
  withResponse(): Promise<WithResponse<TaskPage>> {
    return this.#first().then((page) => withResponseOf(page, pageHeads.get(page)));
  }

  /** The first page's response with its body, as `APIPromise.asResponse()`; rejects with its error. */
  asResponse(): Promise<Response> {
    return this.#first().then((page) => responseOf(pageHeads.get(page)));
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
   * Every page in order, and the copy of a page read again (its number repeats); leaving aborts those ahead.
   * @throws {PaginationLimitError} past `maxPages`; a page's error at its position.
   */
  byPage(): AsyncGenerator<TaskPage, void, undefined> {
    return this.#pages();
  }

  async *#pages(taskBudget = Number.POSITIVE_INFINITY): AsyncGenerator<TaskPage, void, undefined> {
    const walk = new PageWalk(
      this.#fetchPage,
      () => this.#first(),
      () => this.#firstRateLimited,
      this.#firstPageNumber,
      this.#options,
      taskBudget,
    );
    try {
      for (;;) {
        const page = await walk.next();
        if (page === undefined) return;
        yield page;
      }
    } finally {
      walk.close();
    }
  }

  /** Every task of every page, each id once (within the last 10 000 ids). */
  [Symbol.asyncIterator](): AsyncGenerator<Task, void, undefined> {
    return this.#tasks();
  }

  /** Every task, each id once; with `taskBudget`, requests only the pages that many tasks need. */
  async *#tasks(taskBudget?: number): AsyncGenerator<Task, void, undefined> {
    const recent = new RecentIds(this.#options.dedupeWindow ?? DEDUPE_WINDOW);
    for await (const page of this.#pages(taskBudget))
      for (const task of recent.unseen(page.tasks)) yield task;
  }

  /** Collects tasks (each id once); with `max`, requests only the pages `max` tasks need. */
  async toArray(options: ToArrayOptions = {}): Promise<Task[]> {
    const max = options.max ?? Number.POSITIVE_INFINITY;
    const tasks: Task[] = [];
    if (max <= 0) return tasks;
    for await (const task of this.#tasks(max)) {
      tasks.push(task);
      if (tasks.length >= max) break;
    }
    return tasks;
  }
}
