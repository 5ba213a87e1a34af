/**
 * `client.tasks`: create, retrieve, list and estimate delivery tasks; OpenAPI `createTask`,
 * "GET /tasks/{id}", "GET /tasks", "POST /tasks/estimate".
 */

import { type Answered, APIPromise, type ResponseHead } from '../core/api-promise.js';
import {
  APIUserAbortError,
  RequestValidationError,
  ResponseValidationError,
  StatusWaitTimeoutError,
  type ValidationIssue,
} from '../core/errors.js';
import { OPERATIONS, requestOf } from '../core/operations.js';
import type { RequestOptions, TaskCreateOptions } from '../core/options.js';
import { createTask } from '../creation/exactly-once-creation.js';
import { findTasksOfOrder } from '../creation/order-lookup.js';
import { deadline, sleep } from '../internal/abort.js';
import { answer, call, type ResourceContext, retrieveTask } from '../internal/context.js';
import { isRetryable } from '../internal/failure.js';
import type { CallTraceOptions } from '../internal/http.js';
import { taskPath } from '../internal/path.js';
import { checkRequestOptions } from '../internal/request-checks.js';
import { parseParams } from '../internal/validate.js';
import { type Estimate, type EstimateParams, EstimateRequestParams, estimateBody } from '../schemas/estimate.js';
import type { AnyTaskStatus, Task, TaskWithId } from '../schemas/task.js';
import { TaskCreateParams } from '../schemas/task-create.js';
import { instantOf, MAX_PAGE_SIZE, type TaskListParams, TaskListRequestParams } from '../schemas/task-list.js';
import { contextOf, type ResourceHandle } from './handle.js';
import { TaskListPromise } from './task-list/list-promise.js';
import {
  DEFAULT_LIST_CONCURRENCY,
  DEFAULT_MAX_PAGES,
  type FetchTaskPage,
  MAX_LIST_CONCURRENCY,
  type PageFilter,
  pageHeads,
  TaskPage,
} from './task-list/page.js';

/**
 * Options of {@link Tasks.list}: the request options plus how an iteration walks the pages. `timeout`,
 * `maxRetries` and `headers` apply to each page; `totalTimeout` is the deadline of the whole iteration
 * (`for await`, `byPage()`, `toArray()`), counted from its start with your loop's own time included, and
 * of the one request an `await` makes (README "Pagination"). The client's `totalTimeout` bounds each
 * page's request.
 */
export interface TaskListOptions extends RequestOptions {
  /**
   * Pages one iteration may read before it throws `PaginationLimitError`: a guard against a service that
   * serves the same page forever. Integer ≥ 1, or `Infinity` for no cap. Default 1000
   * ({@link DEFAULT_MAX_PAGES}).
   */
  maxPages?: number;
  /**
   * Pages an iteration (`for await`, `byPage()`, `toArray()`) requests at once once the first page gives
   * `totalPages`; they are still yielded in page order. `1` reads one page after another. Integer
   * 1…1000. Default 16 ({@link DEFAULT_LIST_CONCURRENCY}); 1 for a walk that stops at `createdAfter`
   * (pages ahead would lie past it). Also the most pages requested ahead of the consumer; a 429 halves it
   * for the rest of the walk (README "Pagination").
   */
  concurrency?: number;
}

/**
 * Checks the walk options of `tasks.list`, then its request options.
 * @throws {RequestValidationError} naming each bad option; nothing is sent.
 */
function checkListOptions(options: TaskListOptions): void {
  const issues: ValidationIssue[] = [];
  const { maxPages, concurrency } = options;
  if (
    maxPages !== undefined &&
    maxPages !== Number.POSITIVE_INFINITY &&
    !(Number.isSafeInteger(maxPages) && maxPages >= 1)
  ) {
    issues.push({ path: 'options.maxPages', message: 'Expected an integer ≥ 1 or Infinity', code: 'invalid_option' });
  }
  if (
    concurrency !== undefined &&
    !(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= MAX_LIST_CONCURRENCY)
  ) {
    issues.push({
      path: 'options.concurrency',
      message: `Expected an integer from 1 to ${MAX_LIST_CONCURRENCY}`,
      code: 'invalid_option',
    });
  }
  checkRequestOptions('tasks.list', options, issues);
}

/** How `tasks.list` applies `createdAfter`/`createdBefore`: the query to send, the filter, whether it stops early. */
interface CreationWindow {
  readonly query: Omit<TaskListParams, 'createdAfter' | 'createdBefore'>;
  readonly filter: PageFilter;
  /** The walk ends at the first page past a bound (the listing is sorted by `createdAt` toward it). */
  readonly stops: boolean;
}

/**
 * The creation window of a listing (`after` inclusive, `before` exclusive, ms), or `undefined` without
 * bounds. Without a sort of the caller's, the listing is sorted by `createdAt`, newest first; a walk sorted
 * by `createdAt` ends at the first page holding a task beyond the bound it walks toward (`createdAfter`
 * newest first, `createdBefore` oldest first). Tasks without a readable `createdAt` are left out.
 */
function creationWindow(
  after: number | undefined,
  before: number | undefined,
  params: Omit<TaskListParams, 'createdAfter' | 'createdBefore'>,
): CreationWindow | undefined {
  if (after === undefined && before === undefined) return undefined;
  const query =
    params.sortBy === undefined && params.sortOrder === undefined
      ? { ...params, sortBy: 'createdAt', sortOrder: -1 as const }
      : params;
  const createdOf = (task: Task): number =>
    typeof task.createdAt === 'string' ? Date.parse(task.createdAt) : Number.NaN;
  const byCreation = query.sortBy === 'createdAt';
  // The service sorts ascending when no order is given (OpenAPI `listTasks`).
  const newestFirst = byCreation && query.sortOrder === -1;
  const bound = newestFirst ? after : byCreation ? before : undefined;
  const beyond = (created: number) => (newestFirst ? created < (after as number) : created >= (before as number));
  return {
    query,
    stops: bound !== undefined,
    filter: {
      keep: (task) => {
        const created = createdOf(task);
        return (after === undefined || created >= after) && (before === undefined || created < before);
      },
      endsWith: (tasks) => bound !== undefined && tasks.some((task) => beyond(createdOf(task))),
    },
  };
}

/** Options of {@link Tasks.findByOrderNumber}: the request options (applied to each page) plus a page cap. */
export interface FindByOrderNumberOptions extends RequestOptions {
  /** List requests the lookup may send before it throws `PaginationLimitError`. Integer 1…1000. Default: the client's `reconciliation.maxPages` (10). */
  maxPages?: number;
}

/** Options of {@link Tasks.waitForStatus}. */
export interface WaitForStatusOptions {
  /** Stops waiting; the call rejects with `APIUserAbortError`. */
  signal?: AbortSignal;
  /** Time between reads in ms. Default 5000. */
  intervalMs?: number;
  /** Longest wait in ms before `StatusWaitTimeoutError`. Default 600 000 (10 min). */
  timeout?: number;
  /** Per-read request options (timeout per attempt, retries, headers). */
  request?: Omit<RequestOptions, 'signal'>;
}

/** The answer that produced each created task, for creates that joined one in flight (freed with the task). */
const createdHeads = new WeakMap<TaskWithId, ResponseHead>();

/** The seller's delivery tasks. */
export class Tasks {
  readonly #context: ResourceContext;

  /** @internal Built by `DeliveryClient`. */
  constructor(handle: ResourceHandle) {
    this.#context = contextOf(handle);
  }

  /**
   * Creates a delivery task (`POST tasks`) and returns it, unwrapped from `data.createTask`. On a
   * wallet account the delivery fee is deducted at creation.
   *
   * Never sent twice blindly (README "Exactly-once creation"): concurrent creates of one `orderNumber` in
   * this process share one request and one outcome; after a timeout, reset or 5xx, the SDK looks the
   * `orderNumber` up and returns the task if it exists, and only resends when no task carries it once
   * the service has had `listingDelayMs` to list it (at most 10 list requests per create). Pass an
   * `orderNumber`: without one, an unknown outcome throws `TaskCreationOutcomeUnknownError`.
   *
   * A created order is remembered (order number → task id, `orderTtlMs`, default 24 h, in the client's
   * `store`): creating it again returns that task (`GET tasks/{id}`) without a POST. When the remembered
   * task answers 404 (the mock was reset, the sandbox restarted), it is forgotten: the SDK looks the
   * `orderNumber` up, returns the task it finds, or else sends the create once.
   *
   * @throws {RequestValidationError} for bad params (nothing is sent).
   * @throws {InsufficientBalanceError} when the wallet is below the minimum (no task, no fee).
   * @throws {TaskCreationOutcomeUnknownError} when the outcome could not be established: `retryAfterMs`
   * says when creating the order again can decide it (the service lists a new task within the client's
   * `listingDelayMs`), `candidateTaskIds` names tasks of the order created before this create began.
   * Creating it again looks the order up once before any POST; pass `resendUnknownOutcome: true` to send
   * after checking with {@link findByOrderNumber}.
   * @throws {DuplicateTaskError} when several tasks carry the `orderNumber`.
   * @throws {APIError} by status for other rejections, and the errors of `GET tasks/{id}` other than 404
   * when reading a remembered order's task (a 404 there is never thrown: the order is looked up instead).
   */
  create(params: TaskCreateParams, options: TaskCreateOptions = {}): APIPromise<TaskWithId> {
    const context = this.#context;
    const orderNumber = typeof params?.orderNumber === 'string' ? params.orderNumber : undefined;
    const trace: CallTraceOptions<Answered<TaskWithId>> = {
      attributes: orderNumber === undefined ? {} : { 'delivery.order_number': orderNumber },
      eventOf: (request) => (request.method === 'POST' ? 'delivery.create.request' : 'delivery.reconciliation.lookup'),
      outcome: ({ head }, call) => ({ status: head?.status, retries: Math.max(0, call.requests - 1) }),
    };
    const created = context.transport.trace(requestOf('tasks.create'), trace, async (call) => {
      const { transport } = context;
      const traced: ResourceContext = {
        ...context,
        transport: {
          baseUrl: transport.baseUrl,
          trace: transport.trace.bind(transport),
          send: (r, o) => transport.send(r, o, call),
        },
      };
      // The run-time check holds what the type states (selectedBranch only with customPickup: true).
      const body = parseParams(TaskCreateParams, params, 'tasks.create') as TaskCreateParams;
      const task = await createTask(traced, body, options);
      // The last answer produced the task; a create that joined another in flight has that one's.
      const { answered } = call;
      if (answered !== undefined) {
        createdHeads.set(task, { status: answered.status, headers: answered.headers, body: answered.text });
      }
      return { data: task, head: createdHeads.get(task) };
    });
    return new APIPromise(created);
  }

  /**
   * Every task whose `orderNumber` is exactly `orderNumber` (case and all), newest first (requested sorted by `createdAt`),
   * read across pages of `GET tasks`: the lookup `tasks.create` itself uses to decide an unknown outcome
   * (README "Finding the tasks of an order"). It searches with an anchored, escaped regular expression,
   * and literally only when the service refuses the pattern (400 or 422). Tasks listed without an id are
   * left out. A task created within the last `listingDelayMs` may not be listed yet.
   * @param options request options; `maxPages`: list requests at most, default the client's
   * `reconciliation.maxPages` (10), integer 1…1000.
   * @throws {RequestValidationError} for an empty order number or bad options (nothing is sent);
   * {@link PaginationLimitError} when `maxPages` requests did not reach the last page; request errors as
   * {@link retrieve}.
   */
  findByOrderNumber(orderNumber: string, options: FindByOrderNumberOptions = {}): Promise<TaskWithId[]> {
    const context = this.#context;
    const { maxPages = context.reconciliation.maxPages, ...requestOptions } = options;
    if (
      typeof orderNumber !== 'string' ||
      orderNumber === '' ||
      !(maxPages >= 1 && maxPages <= 1000 && maxPages % 1 === 0)
    ) {
      const issue =
        typeof orderNumber !== 'string' || orderNumber === ''
          ? { path: 'orderNumber', message: 'Expected a non-empty string', code: 'invalid_type' }
          : { path: 'options.maxPages', message: 'Expected an integer from 1 to 1000', code: 'invalid_option' };
      return Promise.reject(new RequestValidationError('tasks.findByOrderNumber', [issue]));
    }
    return findTasksOfOrder(context, orderNumber, requestOptions, undefined, maxPages).then((tasks) =>
      tasks.filter((task): task is TaskWithId => typeof task.id === 'string' && task.id !== ''),
    );
  }

  /**
   * Reads one task by id (`GET tasks/{id}`). The id is URL-encoded. Retried when safe. The answer must be
   * the task asked for: its `id` (or `_id`, which then gives `id`) equal to `id` exactly, as you passed it
   * (README "Schema drift").
   * @throws {RequestValidationError} for an empty id; {@link NotFoundError} for an unknown one;
   * {@link ResponseValidationError} for a body that does not match, and for a task whose id is not `id`
   * or that has none (an issue on `id` or `_id`; not retried); {@link APIError} by status,
   * {@link APIConnectionError}.
   */
  retrieve(id: string, options?: RequestOptions): APIPromise<TaskWithId> {
    return new APIPromise(retrieveTask(this.#context, id, 'tasks.retrieve', options));
  }

  /**
   * Lists tasks (`GET tasks`), 10 per page at most. `await` the result for one {@link TaskPage}, or
   * `for await` over it for every task of every page (each id once): after the first page, up to
   * `options.concurrency` pages (default 16) are requested at once and yielded in page order; leaving the
   * loop aborts them. `search` is literal (`ignoreRegex=true`) unless you pass `ignoreRegex: false`.
   * `createdAfter` (at or after) and `createdBefore` (before), ISO 8601 text or a `Date`, are applied to
   * each page here and never sent: without a sort of yours the listing is `createdAt` newest first, and
   * the walk ends after the first page holding a task older than `createdAfter` (one page at a time
   * unless you set `concurrency`). Retried when safe. Details in README "Pagination".
   * @throws {RequestValidationError} for bad params or options, such as a creation bound that is not a
   * date (on await/iteration; nothing is sent); {@link PaginationLimitError} past `options.maxPages`;
   * request errors as {@link retrieve}, at the position of the page that failed.
   */
  list(params: TaskListParams = {}, options: TaskListOptions = {}): TaskListPromise {
    let parsed: Omit<TaskListParams, 'createdAfter' | 'createdBefore'>;
    let window: CreationWindow | undefined;
    try {
      checkListOptions(options);
      const { createdAfter, createdBefore, ...query } = parseParams(TaskListRequestParams, params, 'tasks.list');
      window = creationWindow(instantOf(createdAfter), instantOf(createdBefore), query);
      parsed = window?.query ?? query;
    } catch (error) {
      return new TaskListPromise(() => Promise.reject(error), 1, { maxPages: 1, concurrency: 1 });
    }
    // A walk that stops at a creation bound reads one page after another unless told otherwise: pages
    // requested ahead would be past the bound (docs/pagination.md "By creation time").
    const defaultConcurrency = window?.stops === true ? 1 : DEFAULT_LIST_CONCURRENCY;
    const { maxPages = DEFAULT_MAX_PAGES, concurrency = defaultConcurrency, ...requestOptions } = options;
    const walk = { maxPages, concurrency, signal: requestOptions.signal, totalTimeout: requestOptions.totalTimeout };
    const filter = window?.filter;
    const query: Record<string, string> = { limit: String(parsed.limit ?? MAX_PAGE_SIZE) };
    if (parsed.search !== undefined) {
      query.search = parsed.search;
      query.ignoreRegex = String(parsed.ignoreRegex ?? true);
    } else if (parsed.ignoreRegex !== undefined) {
      query.ignoreRegex = String(parsed.ignoreRegex);
    }
    if (parsed.sortBy !== undefined) query.sortBy = parsed.sortBy;
    if (parsed.sortOrder !== undefined) query.sortOrder = String(parsed.sortOrder);
    const fetchPage: FetchTaskPage = async (page, request) => {
      const { data: response, head } = await answer(
        this.#context,
        OPERATIONS['tasks.list'].response,
        {
          ...requestOf('tasks.list'),
          query: { ...query, page: String(page) },
          onRateLimited: request?.onRateLimited,
        },
        request === undefined
          ? requestOptions
          : {
              ...requestOptions,
              ...(request.signal === undefined ? {} : { signal: request.signal }),
              ...(request.totalTimeout === undefined ? {} : { totalTimeout: request.totalTimeout }),
            },
      );
      const taskPage = new TaskPage(response, fetchPage, filter);
      if (head !== undefined) pageHeads.set(taskPage, head);
      return taskPage;
    };
    return new TaskListPromise(fetchPage, parsed.page ?? 1, walk);
  }

  /**
   * Estimates distance, travel time and price (KWD) between two points without creating a task
   * (`POST tasks/estimate`). Retried when safe (it creates nothing). A point may be a delivery or pickup
   * location (`to: order.deliveryLocation`): its `fullAddress` is checked, not sent, and named in a debug log.
   * @throws {RequestValidationError} for missing or out-of-range coordinates, or a field no point or
   * location has (nothing is sent);
   * {@link APIError} by status, {@link APIConnectionError}, {@link ResponseValidationError}.
   */
  estimate(params: EstimateParams, options?: RequestOptions): APIPromise<Estimate> {
    return call(
      this.#context,
      OPERATIONS['tasks.estimate'].response,
      () => {
        const { body, dropped } = estimateBody(parseParams(EstimateRequestParams, params, 'tasks.estimate'));
        if (dropped.length > 0) {
          this.#context.logger.debug(`tasks.estimate: not sending ${dropped.join(', ')} (a location field)`);
        }
        return { ...requestOf('tasks.estimate'), body };
      },
      options,
    );
  }

  /**
   * Polls `GET tasks/{id}` until the task's status is one of `statuses`, and returns it. Use it to
   * catch what a lost webhook would have told you (webhooks are sent once and never retried).
   * A read that fails after its own retries is tried again at the next interval.
   * @throws {StatusWaitTimeoutError} after `options.timeout` (default 10 min);
   * {@link APIUserAbortError} when `options.signal` aborts; {@link NotFoundError} for an unknown id;
   * {@link RequestValidationError} for an empty id, no statuses, or bad intervals.
   */
  async waitForStatus(
    id: string,
    statuses: AnyTaskStatus | readonly AnyTaskStatus[],
    options: WaitForStatusOptions = {},
  ): Promise<TaskWithId> {
    const wanted: readonly string[] = typeof statuses === 'string' ? [statuses] : statuses;
    const { intervalMs = 5000, timeout = 600_000, signal } = options;
    const issues: ValidationIssue[] = [];
    if (wanted.length === 0 || wanted.some((status) => typeof status !== 'string' || status === '')) {
      issues.push({ path: 'statuses', message: 'Expected one or more status strings', code: 'invalid_type' });
    }
    if (!Number.isInteger(intervalMs) || intervalMs < 1) {
      issues.push({ path: 'options.intervalMs', message: 'Expected a positive integer (ms)', code: 'invalid_option' });
    }
    if (!Number.isInteger(timeout) || timeout < 1 || timeout > 2_147_483_647) {
      issues.push({ path: 'options.timeout', message: 'Expected a positive integer (ms)', code: 'invalid_option' });
    }
    if (issues.length > 0) throw new RequestValidationError('tasks.waitForStatus', issues);
    taskPath(id, 'tasks.waitForStatus');
    // Aborts at the timeout, or with the caller's signal (checked first below to tell the two apart).
    const limit = deadline(timeout, 'total', signal);
    const combined = limit.signal;
    let lastStatus: string | undefined;
    const timedOut = () => new StatusWaitTimeoutError({ taskId: id, statuses: wanted, lastStatus, timeoutMs: timeout });
    try {
      for (;;) {
        try {
          const task = await this.retrieve(id, { ...options.request, signal: combined });
          lastStatus = task.status;
          if (task.status !== undefined && wanted.includes(task.status)) return task;
        } catch (error) {
          if (signal?.aborted) throw error;
          if (limit.signal.aborted) throw timedOut();
          if (!isRetryable(error)) throw error;
          this.#context.logger.warn(
            `waitForStatus: reading task ${id} failed, trying again: ${(error as Error).message}`,
          );
        }
        try {
          await sleep(intervalMs, combined);
        } catch {
          if (signal?.aborted)
            throw new APIUserAbortError({
              method: 'GET',
              url: taskPath(id, 'tasks.waitForStatus'),
              cause: signal.reason,
            });
          throw timedOut();
        }
      }
    } finally {
      limit.clear();
    }
  }
}
