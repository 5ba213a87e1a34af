/**
 * Page-by-page reading of `GET tasks` (OpenAPI `listTasks`).
 *
 * `client.tasks.list(params)` returns a {@link TaskListPromise}: `await` it for one {@link TaskPage},
 * or iterate it with `for await` for every task of every page.
 *
 * **How a walk reads pages.** Page 1 (or the page asked for) comes first; its `totalPages` says how many
 * follow, and the remaining pages are then requested by number, with the same parameters, up to
 * `concurrency` at a time. Pages are yielded in page order whatever order they arrive in.
 *
 * - *Bounded ahead.* Pages requested but not yet handed to the consumer are never more than
 *   `concurrency`: a consumer that stops reading stops the requests, so memory stays bounded.
 * - *Ends like a sequential walk.* The walk ends after the first page that is empty (as served) or
 *   reports itself the last (its number ≥ its own `totalPages` and the latest answer's), or, with a creation
 *   bound of `tasks.list` on a listing sorted by `createdAt` toward it, holds a task beyond that bound, and
 *   throws {@link PaginationLimitError} after `maxPages` pages while more are reported. It requests no page
 *   past the last one it knows: the `totalPages` of the latest answer (a re-read aside), or of the page
 *   handed over last when that is larger (capped by `maxPages`); pages fetched beyond the end are dropped
 *   and their requests aborted.
 * - *Stops cleanly.* A `break` (the iterator's `return()`), an error, or the caller's `signal` aborts
 *   every request still in flight; nothing more is sent. A page that fails rejects the iteration at its
 *   position, after the pages before it; the pages after it are aborted at once.
 * - *One deadline.* With a `totalTimeout` (the option of `tasks.list`, not the client's), a walk ends by
 *   it: counted from the walk's start, the consumer's own time included, each page is requested with
 *   what is left of it, and a page still missing at the deadline fails the walk at its position with
 *   `APIConnectionTimeoutError` (`timeoutMs`: the walk's `totalTimeout`).
 * - *Slows down when told to.* A 429 on any page (the transport retries it itself) halves the concurrency
 *   for the rest of the walk: the requests that were sent under the same limit count as one signal.
 * - *Shifting pages.* Offset pages shift when tasks are added or leave during the walk. Each page is
 *   requested once while the listing stays still or only grows, and **no id is yielded twice** as long
 *   as it moves by at most {@link DEDUPE_WINDOW} places between two reads of it. A `total` is a clock
 *   only while the listing grows, so a page's `total` is compared with the answers that came before it
 *   was requested: lower, tasks ahead left the listing since, and the tasks at the top of this page may
 *   have moved onto the page before, already served. That page is requested again first (at most
 *   {@link MAX_REREADS} times a walk) and only its tasks not yet yielded come out. Growth moves tasks the
 *   other way: in a newest-first listing, a page served before the page ahead of it misses the tasks
 *   pushed over their boundary in between. One page at a time (`concurrency: 1`), or sorted oldest first
 *   (new tasks go to the end), nothing present at the start is missed.
 * @module
 */

import type { Task } from '../schemas/task.js';
import type { TaskListResponse } from '../schemas/task-list.js';
import { type ResponseHead, responseOf, type WithResponse, withResponseOf } from './api-promise.js';
import { APIConnectionTimeoutError, DeliveryError, PaginationLimitError } from './errors.js';

/**
 * Pages one walk requests a second time, at most: each after a lower `total` showed tasks leaving the
 * listing (see the module notes). A service whose totals jump about costs at most this many requests more.
 */
export const MAX_REREADS = 10;

/** Default safety cap on pages read by one iteration (10 000 tasks at 10 per page). */
export const DEFAULT_MAX_PAGES = 1000;

/** Default number of pages requested at once by an iteration (`concurrency` option of `tasks.list`). */
export const DEFAULT_LIST_CONCURRENCY = 16;

/** Largest `concurrency` accepted: each page in flight holds a connection. */
export const MAX_LIST_CONCURRENCY = 1000;

/**
 * Task ids an iteration remembers to skip repeats: the ids of the most recent pages holding at least this
 * many tasks (so at most this many plus one page). 10 000 ids take about 1 MB.
 */
export const DEDUPE_WINDOW = 10_000;

/**
 * Pages handed over between two waits for a macrotask. Each request leaves objects behind `WeakRef`s
 * (fetch's `Request`, `AbortSignal.any`), and JavaScript keeps a `WeakRef`'s target alive until the
 * microtask queue drains: a `fetch` that answers without I/O (a cache, a test double) would never let
 * it drain, and a long walk would hold every request it made. Over a network each answer comes in a
 * macrotask anyway, so the wait costs nothing there.
 */
const PAGES_PER_MACROTASK = 64;

/** Resolves in a later macrotask (after the microtask queue has drained). */
function nextMacrotask(): Promise<void> {
  return new Promise((resolve) => (globalThis.setImmediate ?? setTimeout)(resolve));
}

/** What a walk passes with each page request. */
export interface PageRequest {
  /** Aborts this request (the walk ended, a page before it failed, or the caller's signal fired). */
  readonly signal?: AbortSignal | undefined;
  /** Called each time the service answers this request with 429, before the transport retries it. */
  readonly onRateLimited?: (() => void) | undefined;
  /** What is left of the walk's deadline, ms: this request's `totalTimeout`. */
  readonly totalTimeout?: number | undefined;
}

/**
 * Fetches one page by number. Without `request`, the request uses the caller's own options (as
 * {@link TaskPage.getNextPage} does).
 */
export type FetchTaskPage = (page: number, request?: PageRequest) => Promise<TaskPage>;

/**
 * @internal A filter a listing applies on the client (`createdAfter`, `createdBefore` of `tasks.list`):
 * which tasks of a page to keep, and whether a page shows that no later page holds one.
 */
export interface PageFilter {
  keep(task: Task): boolean;
  /** True when no page after one holding `tasks` (as served) can hold a task to keep. */
  endsWith(tasks: readonly Task[]): boolean;
}

/** Pages after which a walk ends: the service served no task, or a filter saw its bound passed. */
const lastPages = new WeakSet<TaskPage>();

/** One page of tasks, as the service sent it, with navigation. */
export class TaskPage {
  /**
   * Tasks of this page, in the service's order; with `createdAfter`/`createdBefore`, only those created
   * in that window (`total` and `totalPages` stay the service's figures for the whole listing).
   */
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
  constructor(response: TaskListResponse, fetchPage: FetchTaskPage, filter?: PageFilter) {
    // Defensive for validation 'warn'/'off', where the body is unchecked: a malformed page reads as empty.
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

  /**
   * True when the service reports a later page, this one was not empty, and (with `createdAfter` on a
   * newest-first listing) this page did not reach past the window.
   */
  hasNextPage(): boolean {
    return !lastPages.has(this) && this.page < this.totalPages;
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
  /** Stop once this many tasks are collected; only the pages needed for them are requested. Default: all. */
  max?: number;
}

/** @internal The response each page was read from (set by `client.tasks.list`; freed with the page). */
export const pageHeads = new WeakMap<TaskPage, ResponseHead>();

/** @internal How a {@link TaskListPromise} walks; checked by `client.tasks.list`. */
export interface PageWalkOptions {
  /** Pages one iteration may read before it throws {@link PaginationLimitError}; `Infinity` for no cap. */
  readonly maxPages: number;
  /** Pages requested at once, ≥ 1 (1 = sequential). */
  readonly concurrency: number;
  /** The caller's signal: aborts the walk's requests. */
  readonly signal?: AbortSignal | undefined;
  /** Deadline of one walk, ms from its start (the consumer's time included); `undefined` for none. */
  readonly totalTimeout?: number | undefined;
  /** Ids remembered to skip repeats (tests lower it). Default {@link DEDUPE_WINDOW}. */
  readonly dedupeWindow?: number | undefined;
}

/**
 * The result of `client.tasks.list()`: a promise of the first {@link TaskPage} that is also an async
 * iterable of every task on every page. Nothing is requested until it is awaited or iterated.
 *
 * Iteration requests up to `concurrency` pages at once and yields them in page order; never yields the
 * same task id twice within the bound of {@link DEDUPE_WINDOW}; stops at the last page or an empty one;
 * and throws {@link PaginationLimitError} after `maxPages` pages (default {@link DEFAULT_MAX_PAGES}).
 * See this module's documentation for the exact rules.
 */
export class TaskListPromise implements PromiseLike<TaskPage>, AsyncIterable<Task> {
  readonly #fetchPage: FetchTaskPage;
  readonly #firstPageNumber: number;
  readonly #options: PageWalkOptions;
  #firstPage: Promise<TaskPage> | undefined;
  /** Whether the first page's request met a 429 (the walks that reuse it start at half concurrency). */
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
  // biome-ignore lint/suspicious/noThenProperty: this object is deliberately awaitable (a promise of the first page).
  then<TResult1 = TaskPage, TResult2 = never>(
    onFulfilled?: ((page: TaskPage) => TResult1 | PromiseLike<TResult1>) | null,
    onRejected?: ((reason: unknown) => TResult2 | PromiseLike<TResult2>) | null,
  ): Promise<TResult1 | TResult2> {
    return this.#first().then(onFulfilled, onRejected);
  }

  /**
   * The first page with the response it was read from (the same request `await` makes, sent once):
   * `{ data: TaskPage, response, requestId }` as `APIPromise.withResponse()` gives; `response` is
   * re-created with status and headers only (the body was read by the SDK).
   * @throws the first page's error (rejects), as awaiting gives.
   */
  withResponse(): Promise<WithResponse<TaskPage>> {
    return this.#first().then((page) => withResponseOf(page, pageHeads.get(page)));
  }

  /**
   * The first page's response with its body: `.json()` reads the page the SDK parsed, as
   * `APIPromise.asResponse()` gives (a new `Response` on each call).
   * @throws the first page's error (rejects), as awaiting gives.
   */
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
   * Every page in order, the first included (the same first page an `await` got), and the new copy of a
   * page read again after tasks left the listing (its number repeats; see the module notes). Up to
   * `concurrency` pages are requested ahead of the one you are reading; leaving the loop aborts them.
   * @throws {PaginationLimitError} after `maxPages` pages while more are reported; a page's request
   * error at that page's position.
   */
  byPage(): AsyncGenerator<TaskPage, void, undefined> {
    return this.#pages();
  }

  /** The pages of one walk; `taskBudget` lets the walk request no more pages than that many tasks need. */
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

  /** Every task of every page, each id once (within {@link DEDUPE_WINDOW}; see the module notes). */
  [Symbol.asyncIterator](): AsyncGenerator<Task, void, undefined> {
    return this.#tasks();
  }

  async *#tasks(): AsyncGenerator<Task, void, undefined> {
    const recent = new RecentIds(this.#options.dedupeWindow ?? DEDUPE_WINDOW);
    for await (const page of this.#pages()) yield* recent.unseen(page.tasks);
  }

  /**
   * Collects tasks into an array (each id once), stopping after `max` when given: then only the pages
   * `max` tasks need are requested (more only if some were repeats).
   */
  async toArray(options: ToArrayOptions = {}): Promise<Task[]> {
    const max = options.max ?? Number.POSITIVE_INFINITY;
    const tasks: Task[] = [];
    if (max <= 0) return tasks;
    const recent = new RecentIds(this.#options.dedupeWindow ?? DEDUPE_WINDOW);
    for await (const page of this.#pages(max)) {
      for (const task of recent.unseen(page.tasks)) {
        tasks.push(task);
        if (tasks.length >= max) return tasks;
      }
    }
    return tasks;
  }
}

/** One page request of a walk, from its start until the consumer takes it. */
interface Slot {
  readonly page: number;
  readonly controller: AbortController;
  /** Settles (never rejects) when the request does; `result` is set then. */
  readonly settled: Promise<void>;
  result: { ok: true; page: TaskPage } | { ok: false; error: unknown } | undefined;
  /** The largest `total` answered before this request was sent. */
  readonly known: number;
  /** Whether a shrink seen on this page was already acted on (or this is a re-read itself). */
  again: boolean;
}

/**
 * One walk over the pages: requests ahead within the concurrency, hands pages over in order, and
 * aborts what is left when it ends. The rules are in this module's documentation.
 */
class PageWalk {
  readonly #fetchPage: FetchTaskPage;
  readonly #first: () => Promise<TaskPage>;
  readonly #firstRateLimited: () => boolean;
  readonly #firstPageNumber: number;
  readonly #signal: AbortSignal | undefined;
  readonly #totalTimeout: number | undefined;
  /** When the walk's deadline passes (`performance.now()`), `Infinity` without one. */
  readonly #endsAt: number;
  readonly #taskBudget: number;
  /** Last page number a walk may read (`maxPages` counted from the first page). */
  readonly #capPage: number;
  /** Last page number a walk may request: the cap, or a page that failed (the walk ends there). */
  #stopPage: number;
  /** Requests not yet handed over, in page order: `#slots[0]` is the next page the consumer gets. */
  #slots: Slot[] = [];
  /** Pages in flight or waiting, at most this many. Halved by a 429. */
  #limit: number;
  /** The next page number to request. */
  #nextPage: number;
  /**
   * Requests stop after this page (and `#stopPage`): the `totalPages` of the latest answer, or of the page
   * handed over last when larger.
   */
  #lastPage: number;
  /** The page handed over last, and its number. */
  #previous: TaskPage | undefined;
  #number = 0;
  /** The largest `total` any answer reported so far. */
  #known = 0;
  /** Pages requested a second time so far, at most {@link MAX_REREADS}. */
  #rereads = 0;
  #deliveredTasks = 0;
  /** Pages handed over since the last wait for a macrotask. */
  #sinceMacrotask = 0;
  /** The walk is over (ended, failed, or left): nothing more is requested or handed over. */
  #closed = false;
  /** Thrown by the next call: the page cap, reached after the page handed over last. */
  #pendingError: PaginationLimitError | undefined;
  readonly #onCallerAbort = () => {
    for (const slot of this.#slots) slot.controller.abort(this.#signal?.reason);
  };

  constructor(
    fetchPage: FetchTaskPage,
    first: () => Promise<TaskPage>,
    firstRateLimited: () => boolean,
    firstPageNumber: number,
    options: PageWalkOptions,
    taskBudget: number,
  ) {
    this.#fetchPage = fetchPage;
    this.#first = first;
    this.#firstRateLimited = firstRateLimited;
    this.#firstPageNumber = firstPageNumber;
    this.#capPage = firstPageNumber + options.maxPages - 1;
    this.#stopPage = this.#capPage;
    this.#limit = options.concurrency;
    this.#signal = options.signal;
    this.#totalTimeout = options.totalTimeout;
    this.#endsAt = performance.now() + (options.totalTimeout ?? Number.POSITIVE_INFINITY);
    this.#taskBudget = taskBudget;
    this.#nextPage = firstPageNumber + 1;
    this.#lastPage = firstPageNumber;
    this.#signal?.addEventListener('abort', this.#onCallerAbort, { once: true });
  }

  /**
   * The next page in order, or `undefined` once the walk is over.
   * @throws the failed page's error at its position, or {@link PaginationLimitError}; the walk is closed then.
   */
  async next(): Promise<TaskPage | undefined> {
    if (this.#pendingError) {
      const error = this.#pendingError;
      this.#pendingError = undefined;
      this.close();
      throw error;
    }
    if (this.#closed) return undefined;
    try {
      if (this.#previous === undefined) {
        const page = await this.#first();
        if (this.#firstRateLimited()) this.#slowDown(this.#limit);
        return this.#deliver(page, this.#firstPageNumber);
      }
      for (;;) {
        // The consumer asks for a page: request it even when a task budget said none were needed yet.
        if (this.#slots.length === 0 && !this.#launch()) {
          this.close();
          return undefined;
        }
        const slot = this.#slots[0] as Slot;
        await slot.settled;
        if (++this.#sinceMacrotask >= PAGES_PER_MACROTASK) {
          this.#sinceMacrotask = 0;
          await nextMacrotask();
        }
        if (this.#closed) return undefined;
        const result = slot.result as NonNullable<Slot['result']>;
        if (!result.ok) throw result.error;
        const { total } = result.page;
        if (
          !slot.again &&
          total < slot.known &&
          total < (this.#previous as TaskPage).total &&
          this.#rereads < MAX_REREADS
        ) {
          // Served after a larger total was answered: tasks ahead left the listing after the page before
          // was served, and the top of this page moved onto it. Read that page again first.
          this.#rereads++;
          slot.again = true;
          this.#slots.unshift(this.#request(slot.page - 1, true));
          continue;
        }
        this.#slots.shift();
        // A re-read of the page handed over last only adds the tasks that moved onto it.
        return slot.page > this.#number ? this.#deliver(result.page, slot.page) : result.page;
      }
    } catch (error) {
      this.close();
      throw error;
    }
  }

  /** Aborts every request still in flight and sends nothing more. Safe to call more than once. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#signal?.removeEventListener('abort', this.#onCallerAbort);
    this.#abortFrom(0);
  }

  /** Hands `page` (number `number`) over: decides whether the walk goes on, and requests ahead. */
  #deliver(page: TaskPage, number: number): TaskPage {
    this.#previous = page;
    this.#number = number;
    this.#deliveredTasks += page.tasks.length;
    if (page.total > this.#known) this.#known = page.total;
    // This page's own count holds too: a walk never ends before a page-by-page walk would.
    if (page.totalPages > this.#lastPage) this.#lastPage = page.totalPages;
    if (lastPages.has(page) || number >= this.#lastPage) {
      this.close();
    } else if (number >= this.#capPage) {
      this.#pendingError = new PaginationLimitError(this.#capPage - this.#firstPageNumber + 1);
    } else {
      this.#fill();
    }
    return page;
  }

  /** Requests ahead while the limit, the known pages and the task budget allow. */
  #fill(): void {
    while (this.#slots.length < this.#limit && this.#wantsMore() && this.#launch()) {
      // launched one
    }
  }

  /** Whether the pages delivered and requested may still hold fewer tasks than the budget. */
  #wantsMore(): boolean {
    return this.#deliveredTasks + this.#slots.length * (this.#previous as TaskPage).limit < this.#taskBudget;
  }

  /** Requests the next page number if the walk may; false when there is none to request. */
  #launch(): boolean {
    if (this.#closed || this.#nextPage > Math.min(this.#lastPage, this.#stopPage)) return false;
    this.#slots.push(this.#request(this.#nextPage, false));
    this.#nextPage++;
    return true;
  }

  #request(page: number, again: boolean): Slot {
    const controller = new AbortController();
    if (this.#signal?.aborted) controller.abort(this.#signal.reason);
    const sentUnder = this.#limit;
    const left = this.#endsAt - performance.now();
    const fetched =
      left <= 0
        ? Promise.reject(this.#deadlineError(page, 0))
        : this.#fetchPage(page, {
            signal: controller.signal,
            onRateLimited: () => this.#slowDown(sentUnder),
            ...(this.#totalTimeout === undefined ? {} : { totalTimeout: Math.ceil(left) }),
          }).catch((error: unknown) => {
            // The request ended with the walk's deadline (it was sent with what was left of it).
            if (error instanceof APIConnectionTimeoutError && performance.now() >= this.#endsAt) {
              throw this.#deadlineError(page, error.attempts, error.url);
            }
            throw error;
          });
    const slot: Slot = {
      page,
      controller,
      known: this.#known,
      again,
      result: undefined,
      settled: fetched.then(
        (fetched) => {
          slot.result = { ok: true, page: fetched };
          if (fetched.total > this.#known) this.#known = fetched.total;
          if (this.#closed) return;
          // The latest answer (a re-read aside) says where the listing ends now: request no page past it.
          if (!again) this.#lastPage = fetched.totalPages;
          this.#fill();
        },
        (error: unknown) => {
          slot.result = { ok: false, error };
          if (this.#closed) return;
          this.#failed(slot);
        },
      ),
    };
    return slot;
  }

  /** The error of page `page` at the walk's deadline. */
  #deadlineError(page: number, attempts: number, url = 'tasks'): APIConnectionTimeoutError {
    return new APIConnectionTimeoutError({
      method: 'GET',
      url,
      attempts,
      timeoutMs: this.#totalTimeout ?? 0,
      reason: `the walk's totalTimeout elapsed before page ${page} came`,
    });
  }

  /** A page failed: the iteration will end there, so pages after it are aborted and none requested. */
  #failed(slot: Slot): void {
    const index = this.#slots.indexOf(slot);
    if (index < 0) return;
    this.#abortFrom(index + 1);
    this.#stopPage = Math.min(this.#stopPage, slot.page);
  }

  /** Aborts the requests from `#slots[index]` on and forgets them. */
  #abortFrom(index: number): void {
    const dropped = this.#slots.splice(index);
    for (const slot of dropped) if (slot.result === undefined) slot.controller.abort();
  }

  /** A 429 on a request sent under `sentUnder`: halve from there (429s of one generation count once). */
  #slowDown(sentUnder: number): void {
    const halved = Math.max(1, Math.floor(sentUnder / 2));
    if (halved < this.#limit) this.#limit = halved;
  }
}

/**
 * Task ids of the most recent pages, at least `window` of them: enough to skip every repeat of an id
 * that shifted by at most `window` positions between two reads (see the module notes). Memory: at most
 * `window` ids plus one page.
 */
class RecentIds {
  readonly #window: number;
  /** Each remembered id → the ordinal of the last page it was seen on. */
  readonly #lastSeen = new Map<unknown, number>();
  /** Ids per remembered page, oldest first from `#head`. */
  #pages: unknown[][] = [];
  #head = 0;
  /** Ordinal of `#pages[#head]`. */
  #headOrdinal = 1;
  /** Ids held in `#pages[#head…]`. */
  #size = 0;

  constructor(window: number) {
    this.#window = window;
  }

  /** Starts a new page, forgetting the oldest pages that the newer ones make unnecessary. */
  startPage(): void {
    for (;;) {
      const oldest = this.#pages[this.#head];
      if (oldest === undefined || this.#size - oldest.length < this.#window) break;
      for (const id of oldest) if (this.#lastSeen.get(id) === this.#headOrdinal) this.#lastSeen.delete(id);
      this.#size -= oldest.length;
      this.#pages[this.#head] = [];
      this.#head++;
      this.#headOrdinal++;
    }
    if (this.#head > 64 && this.#head * 2 > this.#pages.length) {
      this.#pages = this.#pages.slice(this.#head);
      this.#head = 0;
    }
    this.#pages.push([]);
  }

  /** The tasks of the next page that are not repeats (tasks without an id are kept), in order. */
  unseen(tasks: readonly Task[]): Task[] {
    this.startPage();
    const kept: Task[] = [];
    for (const task of tasks) if (task.id === undefined || this.add(task.id)) kept.push(task);
    return kept;
  }

  /** Records `id` on the current page; false when a remembered page already had it (a repeat to skip). */
  add(id: unknown): boolean {
    const ordinal = this.#headOrdinal + this.#pages.length - 1 - this.#head;
    const repeat = this.#lastSeen.has(id);
    this.#lastSeen.set(id, ordinal);
    (this.#pages[this.#pages.length - 1] as unknown[]).push(id);
    this.#size++;
    return !repeat;
  }
}
