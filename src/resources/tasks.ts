/** `client.tasks`: OpenAPI `createTask`, "GET /tasks/{id}", `listTasks`, "POST /tasks/estimate". */

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
import { deadline, sleep } from '../internal/abort.js';
import { apiRequest, type ResourceContext, requestParsed, retrieveTask } from '../internal/context.js';
import { isRetryable } from '../internal/failure.js';
import type { Transport } from '../internal/http.js';
import type { CallTraceOptions } from '../internal/http-request.js';
import { taskPath } from '../internal/path.js';
import { checkRequestOptions } from '../internal/request-checks.js';
import { parseParams } from '../internal/validate.js';
import {
  type Estimate,
  type EstimateParams,
  EstimateRequestParams,
  estimateBody,
} from '../schemas/estimate.js';
import type { AnyTaskStatus, TaskWithId } from '../schemas/task.js';
import { TaskCreateParams } from '../schemas/task-create.js';
import {
  instantOf,
  MAX_PAGE_SIZE,
  type TaskListParams,
  TaskListRequestParams,
} from '../schemas/task-list.js';
import { contextOf, type ResourceHandle } from './handle.js';
import { LookupRun } from './task-creation/create-run.js';
import { createTask } from './task-creation/exactly-once-creation.js';
import { findTasksOfOrder } from './task-creation/order-lookup.js';
import { type CreationWindow, creationWindow } from './task-list/creation-window.js';
import { TaskListPromise } from './task-list/list-promise.js';
import {
  DEFAULT_LIST_CONCURRENCY,
  DEFAULT_MAX_PAGES,
  type FetchTaskPage,
  MAX_LIST_CONCURRENCY,
  pageHeads,
  TaskPage,
} from './task-list/page.js';

/**
 * Options of {@link Tasks.list} (README "Pagination"): `timeout`, `maxRetries` and `headers` apply to each
 * page; `totalTimeout` (ms) bounds the whole iteration, your loop's time included.
 */
export interface TaskListOptions extends RequestOptions {
  /** Pages one iteration reads before `PaginationLimitError`: integer ≥ 1 or `Infinity`. Default 1000. */
  maxPages?: number;
  /**
   * Pages an iteration requests at once (yielded in page order), integer 1…1000; a 429 halves it.
   * Default 16, or 1 for a walk that stops at `createdAfter`.
   */
  concurrency?: number;
}

/** @throws {RequestValidationError} naming each bad option of `tasks.list`; nothing is sent. */
function checkListOptions(options: TaskListOptions): void {
  const issues: ValidationIssue[] = [];
  const { maxPages, concurrency } = options;
  if (
    maxPages !== undefined &&
    maxPages !== Number.POSITIVE_INFINITY &&
    !(Number.isSafeInteger(maxPages) && maxPages >= 1)
  ) {
    issues.push({
      path: 'options.maxPages',
      message: 'Expected an integer ≥ 1 or Infinity',
      code: 'invalid_option',
    });
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

/** Options of {@link Tasks.findByOrderNumber}, applied to each page. */
export interface FindByOrderNumberOptions extends RequestOptions {
  /**
   * List requests before `PaginationLimitError`, 1…1000. Default: the client's `reconciliation.maxPages`
   * (10).
   */
  maxPages?: number;
}

/** Options of {@link Tasks.waitForStatus}. */
export interface WaitForStatusOptions {
  /** Rejects the wait with `APIUserAbortError`. */
  signal?: AbortSignal;
  /** Time between reads in ms. Default 5000. */
  intervalMs?: number;
  /**
   * Longest wait in ms before `StatusWaitTimeoutError`, reads included. Default: the client's `totalTimeout`,
   * else 600 000 (10 min).
   */
  timeout?: number;
  request?: Omit<RequestOptions, 'signal'>;
}

/** The answer that produced each created task, for creates that join its flight. */
const createdHeads = new WeakMap<TaskWithId, ResponseHead>();

/** The seller's delivery tasks. */
export class Tasks {
  readonly #context: ResourceContext;

  /** @internal Built by `DeliveryClient`. */
  constructor(handle: ResourceHandle) {
    this.#context = contextOf(handle);
  }

  /**
   * Creates a delivery task (`POST tasks`); a wallet account pays the fee now. Never sent twice blindly
   * (README "Exactly-once creation"): creates of one `orderNumber` share one request; without a `store`
   * the order is looked up before the first POST (`lookupFirst`: one list request, within `totalTimeout`),
   * so an order created by an earlier process is returned; a create without `orderNumber` cannot look.
   * An unknown outcome is looked up (at most 10 list requests in all), resent only when no task carries
   * the order after `listingDelayMs`. A created order is remembered for `orderTtlMs` (24 h): creating it
   * again reads it back.
   * @throws {RequestValidationError} for bad params (nothing sent); {@link InsufficientBalanceError} (no
   * fee);
   * {@link TaskCreationOutcomeUnknownError} (`retryAfterMs`, `candidateTaskIds`; creating again looks
   * first, or pass `resendUnknownOutcome: true`); {@link DuplicateTaskError}; {@link APIError} by status;
   * the lookup's errors before sending (`PaginationLimitError`, …; nothing sent).
   */
  create(params: TaskCreateParams, options: TaskCreateOptions = {}): APIPromise<TaskWithId> {
    const context = this.#context;
    const orderNumber = typeof params?.orderNumber === 'string' ? params.orderNumber : undefined;
    // The span's attempts are the POSTs, not the lookups beside them.
    let posts = 0;
    const trace: CallTraceOptions<Answered<TaskWithId>> = {
      attributes: orderNumber === undefined ? {} : { 'delivery.order_number': orderNumber },
      outcome: ({ head }) => ({ status: head?.status, attempts: posts }),
    };
    // The client's own transport: only this call's requests go through a wrapper.
    const transport = context.transport as Transport;
    const created = transport.trace(requestOf('tasks.create'), trace, async (call) => {
      const traced: ResourceContext = {
        ...context,
        transport: {
          baseUrl: transport.baseUrl,
          send: (request, options) => {
            if (request.operation === 'tasks.create') posts++;
            return transport.send(request, options, call);
          },
        },
      };
      const body = parseParams(TaskCreateParams, params, 'tasks.create') as TaskCreateParams;
      const task = await createTask(traced, body, options);
      const { answered } = call;
      if (answered !== undefined) {
        createdHeads.set(task, { status: answered.status, headers: answered.headers, body: answered.text });
      }
      return { data: task, head: createdHeads.get(task) };
    });
    return new APIPromise(created);
  }

  /**
   * Every task whose `orderNumber` is exactly `orderNumber`, newest first: the lookup `tasks.create` uses
   * (README "Finding the tasks of an order"). A task created within `listingDelayMs` may not be listed yet.
   * @throws {RequestValidationError} (nothing sent); {@link PaginationLimitError} past `maxPages`; as {@link
   * retrieve}.
   */
  findByOrderNumber(orderNumber: string, options: FindByOrderNumberOptions = {}): Promise<TaskWithId[]> {
    const context = this.#context;
    const { maxPages = context.reconciliation.maxPages, ...requestOptions } = options;
    const issues: ValidationIssue[] = [];
    if (typeof orderNumber !== 'string' || orderNumber === '') {
      issues.push({ path: 'orderNumber', message: 'Expected a non-empty string', code: 'invalid_type' });
    }
    if (!(maxPages >= 1 && maxPages <= 1000 && maxPages % 1 === 0)) {
      issues.push({
        path: 'options.maxPages',
        message: 'Expected an integer from 1 to 1000',
        code: 'invalid_option',
      });
    }
    try {
      checkRequestOptions('tasks.findByOrderNumber', requestOptions, issues);
    } catch (error) {
      return Promise.reject(error);
    }
    const run = new LookupRun(
      undefined,
      requestOptions.totalTimeout ?? context.totalTimeoutMs,
      requestOptions.signal,
    );
    return findTasksOfOrder(context, orderNumber, requestOptions, run, maxPages)
      .then((tasks) =>
        tasks.filter((task): task is TaskWithId => typeof task.id === 'string' && task.id !== ''),
      )
      .finally(() => run.clear());
  }

  /**
   * Reads one task (`GET tasks/{id}`), retried when safe; its `id` (or `_id`) must be `id`; an answer with
   * neither is given `id` and reported as drift (`onDrift`, README "Schema drift").
   * @throws {RequestValidationError} for an empty id; {@link NotFoundError}; {@link ResponseValidationError}
   * (a body that does not match, another task's id); {@link APIError} by status; {@link APIConnectionError}.
   */
  retrieve(id: string, options?: RequestOptions): APIPromise<TaskWithId> {
    return new APIPromise(retrieveTask(this.#context, id, 'tasks.retrieve', options));
  }

  /**
   * Lists tasks (`GET tasks`, 10 per page): `await` for one {@link TaskPage}, `for await` for every task
   * (README "Pagination"). `search` is literal unless `ignoreRegex: false`; `createdAfter`/`createdBefore`
   * (ISO 8601 or `Date`) filter on the client, stopping early only on an order seen to hold, else reading
   * on and reporting drift (docs/pagination.md "By creation time").
   * @throws {RequestValidationError} on await/iteration (nothing sent); {@link PaginationLimitError}
   * past `maxPages`; request errors as {@link retrieve}, at the failed page's position.
   */
  list(params: TaskListParams = {}, options: TaskListOptions = {}): TaskListPromise {
    let parsed: Omit<TaskListParams, 'createdAfter' | 'createdBefore'>;
    let window: CreationWindow | undefined;
    try {
      checkListOptions(options);
      const { createdAfter, createdBefore, ...query } = parseParams(
        TaskListRequestParams,
        params,
        'tasks.list',
      );
      window = creationWindow(instantOf(createdAfter), instantOf(createdBefore), query, (drift) =>
        this.#context.reportDrift('tasks.list', [drift], undefined),
      );
      parsed = window?.query ?? query;
    } catch (error) {
      return new TaskListPromise(() => Promise.reject(error), 1, { maxPages: 1, concurrency: 1 });
    }
    // Pages requested ahead of a walk that stops at a creation bound would lie past it.
    const defaultConcurrency = window?.stops === true ? 1 : DEFAULT_LIST_CONCURRENCY;
    const { maxPages = DEFAULT_MAX_PAGES, concurrency = defaultConcurrency, ...requestOptions } = options;
    // The client's totalTimeout, like a call's own, bounds the whole walk (README "Retries and timeouts").
    const totalTimeout = requestOptions.totalTimeout ?? this.#context.totalTimeoutMs;
    const walk = { maxPages, concurrency, signal: requestOptions.signal, totalTimeout };
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
      const { data: response, head } = await requestParsed(
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
   * Estimates distance, time and price (KWD) between two points or locations (`POST tasks/estimate`;
   * a location's `fullAddress` is not sent). Retried when safe.
   * @throws {RequestValidationError} (nothing sent); {@link APIError}; {@link APIConnectionError}; {@link
   * ResponseValidationError}.
   */
  estimate(params: EstimateParams, options?: RequestOptions): APIPromise<Estimate> {
    return apiRequest(
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
   * Polls `GET tasks/{id}` until its status is one of `statuses` (what a lost webhook would have said).
   * @throws {StatusWaitTimeoutError} after `options.timeout`; {@link APIUserAbortError};
   * {@link NotFoundError}; {@link RequestValidationError} for an empty id, no statuses, bad intervals.
   */
  async waitForStatus(
    id: string,
    statuses: AnyTaskStatus | readonly AnyTaskStatus[],
    options: WaitForStatusOptions = {},
  ): Promise<TaskWithId> {
    const wanted: readonly string[] = typeof statuses === 'string' ? [statuses] : statuses;
    const { intervalMs = 5000, timeout = this.#context.totalTimeoutMs ?? 600_000, signal } = options;
    const issues: ValidationIssue[] = [];
    if (wanted.length === 0 || wanted.some((status) => typeof status !== 'string' || status === '')) {
      issues.push({ path: 'statuses', message: 'Expected one or more status strings', code: 'invalid_type' });
    }
    if (!Number.isInteger(intervalMs) || intervalMs < 1) {
      issues.push({
        path: 'options.intervalMs',
        message: 'Expected a positive integer (ms)',
        code: 'invalid_option',
      });
    }
    if (!Number.isInteger(timeout) || timeout < 1 || timeout > 2_147_483_647) {
      issues.push({
        path: 'options.timeout',
        message: 'Expected a positive integer (ms)',
        code: 'invalid_option',
      });
    }
    if (issues.length > 0) throw new RequestValidationError('tasks.waitForStatus', issues);
    taskPath(id, 'tasks.waitForStatus');
    const limit = deadline(timeout, 'total', signal);
    const combined = limit.signal;
    let lastStatus: string | undefined;
    const timedOut = () =>
      new StatusWaitTimeoutError({ taskId: id, statuses: wanted, lastStatus, timeoutMs: timeout });
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
