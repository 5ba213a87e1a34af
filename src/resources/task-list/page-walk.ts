/**
 * One walk over the pages of `GET tasks`: requests ahead within the concurrency, hands pages over in
 * order, re-reads a page tasks moved onto, and aborts what is left when it ends (docs/pagination.md).
 * @module
 */

import { afterIo } from '../../core/awake-deadline.js';
import { APIConnectionTimeoutError, PaginationLimitError } from '../../core/errors.js';
import { WalkTrail } from '../../internal/walk-order.js';
import type { Task } from '../../schemas/task.js';
import { endsWalk, type FetchTaskPage, MAX_REREADS, type TaskPage } from './page.js';

/** @internal How a walk goes; checked by `client.tasks.list`. */
export interface PageWalkOptions {
  /** Pages one iteration may read before `PaginationLimitError`; `Infinity` for no cap. */
  readonly maxPages: number;
  /** Pages requested at once, >= 1. */
  readonly concurrency: number;
  /** The caller's signal: aborts the walk's requests. */
  readonly signal?: AbortSignal | undefined;
  /** Deadline of one walk, ms from its start (the consumer's time included). */
  readonly totalTimeout?: number | undefined;
  /** Ids remembered to skip repeats (tests lower it). Default `DEDUPE_WINDOW`. */
  readonly dedupeWindow?: number | undefined;
}

/**
 * Pages handed over between two waits for a macrotask: a `WeakRef` target (fetch's `Request`,
 * `AbortSignal.any`) stays alive until the microtask queue drains, which a `fetch` answering without
 * I/O never lets happen.
 */
const PAGES_PER_MACROTASK = 64;

function nextMacrotask(): Promise<void> {
  return new Promise((resolve) => afterIo(resolve));
}

interface Slot {
  readonly page: number;
  readonly controller: AbortController;
  /** Never rejects; `result` is set when it settles. */
  readonly settled: Promise<void>;
  result: { ok: true; page: TaskPage } | { ok: false; error: unknown } | undefined;
  /** The largest `total` answered before this request was sent. */
  readonly known: number;
  /** A shrink seen on this page was acted on, or this is a re-read. */
  again: boolean;
}

export class PageWalk {
  readonly #fetchPage: FetchTaskPage;
  readonly #first: () => Promise<TaskPage>;
  readonly #firstRateLimited: () => boolean;
  readonly #firstPageNumber: number;
  readonly #signal: AbortSignal | undefined;
  readonly #totalTimeout: number | undefined;
  /** `performance.now()` at the deadline. */
  readonly #endsAt: number;
  readonly #taskBudget: number;
  readonly #capPage: number;
  /** The cap, or a page that failed. */
  #stopPage: number;
  /** Requests not yet handed over, in page order. */
  #slots: Slot[] = [];
  /** Halved by a 429. */
  #limit: number;
  #nextPage: number;
  /** `totalPages` of the latest answer, or of the page handed over last when larger. */
  #lastPage: number;
  #previous: TaskPage | undefined;
  /** What this walk read, for a filter that checks the order as it reads. */
  readonly #trail = new WalkTrail();
  #number = 0;
  /** The largest `total` answered so far. */
  #known = 0;
  #rereads = 0;
  #deliveredTasks = 0;
  #sinceMacrotask = 0;
  #closed = false;
  /** The page cap, thrown by the next call. */
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

  /** The next page in order, `undefined` once over; throws a page's error at its position, or the cap. */
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
          // Tasks ahead left the listing: the top of this page moved onto the one before. Re-read it first.
          this.#rereads++;
          slot.again = true;
          this.#slots.unshift(this.#request(slot.page - 1, true));
          continue;
        }
        this.#slots.shift();
        return slot.page > this.#number ? this.#deliver(result.page, slot.page) : result.page;
      }
    } catch (error) {
      this.close();
      throw error;
    }
  }

  /** Aborts every request in flight; idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#signal?.removeEventListener('abort', this.#onCallerAbort);
    this.#abortFrom(0);
  }

  #deliver(page: TaskPage, number: number): TaskPage {
    const ends = endsWalk(page, this.#trail);
    this.#previous = page;
    this.#number = number;
    this.#deliveredTasks += page.tasks.length;
    if (page.total > this.#known) this.#known = page.total;
    if (page.totalPages > this.#lastPage) this.#lastPage = page.totalPages;
    if (ends || number >= this.#lastPage) {
      this.close();
    } else if (number >= this.#capPage) {
      this.#pendingError = new PaginationLimitError(this.#capPage - this.#firstPageNumber + 1);
    } else {
      this.#fill();
    }
    return page;
  }

  #fill(): void {
    while (this.#slots.length < this.#limit && this.#wantsMore() && this.#launch()) {
      // launched one
    }
  }

  #wantsMore(): boolean {
    return this.#deliveredTasks + this.#slots.length * (this.#previous as TaskPage).limit < this.#taskBudget;
  }

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

  #deadlineError(page: number, attempts: number, url = 'tasks'): APIConnectionTimeoutError {
    return new APIConnectionTimeoutError({
      method: 'GET',
      url,
      attempts,
      timeoutMs: this.#totalTimeout ?? 0,
      reason: `the walk's totalTimeout elapsed before page ${page} came`,
    });
  }

  /** The walk ends at a failed page: abort those after it. */
  #failed(slot: Slot): void {
    const index = this.#slots.indexOf(slot);
    if (index < 0) return;
    this.#abortFrom(index + 1);
    this.#stopPage = Math.min(this.#stopPage, slot.page);
  }

  #abortFrom(index: number): void {
    const dropped = this.#slots.splice(index);
    for (const slot of dropped) if (slot.result === undefined) slot.controller.abort();
  }

  /** Halves from `sentUnder`: 429s of requests sent under one limit count once. */
  #slowDown(sentUnder: number): void {
    const halved = Math.max(1, Math.floor(sentUnder / 2));
    if (halved < this.#limit) this.#limit = halved;
  }
}

/** Task ids of the most recent pages, at least `window` of them (at most `window` plus one page). */
export class RecentIds {
  readonly #window: number;
  /** Id → ordinal of the last page it was seen on. */
  readonly #lastSeen = new Map<unknown, number>();
  #pages: unknown[][] = [];
  #head = 0;
  #headOrdinal = 1;
  #size = 0;

  constructor(window: number) {
    this.#window = window;
  }

  #startPage(): void {
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

  /** The tasks of the next page that are not repeats (tasks without an id are kept). */
  unseen(tasks: readonly Task[]): Task[] {
    this.#startPage();
    const kept: Task[] = [];
    for (const task of tasks) if (task.id === undefined || this.#add(task.id)) kept.push(task);
    return kept;
  }

  /** False for a repeat. */
  #add(id: unknown): boolean {
    const ordinal = this.#headOrdinal + this.#pages.length - 1 - this.#head;
    const repeat = this.#lastSeen.has(id);
    this.#lastSeen.set(id, ordinal);
    (this.#pages[this.#pages.length - 1] as unknown[]).push(id);
    this.#size++;
    return !repeat;
  }
}
