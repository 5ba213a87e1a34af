/**
 * `tasks.list` (README "Pagination"): the parameters and options checked once, the query each page sends,
 * and the creation window applied on the client (`creation-window.ts`).
 * @module
 */
import type { ValidationIssue } from '../../core/errors.js';
import type { RequestOptions } from '../../core/options.js';
import type { ResourceContext } from '../../internal/context.js';
import { checkIntegerOption, checkRequestOptions } from '../../internal/request-checks.js';
import { sendOperation } from '../../internal/send-operation.js';
import { parseParams } from '../../internal/validate.js';
import {
  instantOf,
  MAX_PAGE_SIZE,
  type TaskListParams,
  TaskListRequestParams,
} from '../../schemas/task-list.js';
import { type CreationWindow, creationWindow, type WindowQuery } from './creation-window.js';
import { TaskListPromise } from './list-promise.js';
import {
  DEFAULT_LIST_CONCURRENCY,
  DEFAULT_MAX_PAGES,
  type FetchTaskPage,
  MAX_LIST_CONCURRENCY,
  pageHeads,
  TaskPage,
} from './page.js';

/**
 * Options of `tasks.list` (README "Pagination"): `timeout`, `maxRetries` and `headers` apply to each
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
  checkIntegerOption(issues, 'concurrency', concurrency, 1, MAX_LIST_CONCURRENCY);
  checkRequestOptions('tasks.list', options, issues);
}

/** The query every page sends: the checked parameters, `limit` 10 by default, `search` literal by default. */
function listQuery(params: WindowQuery): Record<string, string> {
  const query: Record<string, string> = { limit: String(params.limit ?? MAX_PAGE_SIZE) };
  if (params.search !== undefined) {
    query.search = params.search;
    query.ignoreRegex = String(params.ignoreRegex ?? true);
  } else if (params.ignoreRegex !== undefined) {
    query.ignoreRegex = String(params.ignoreRegex);
  }
  if (params.sortBy !== undefined) query.sortBy = params.sortBy;
  if (params.sortOrder !== undefined) query.sortOrder = String(params.sortOrder);
  return query;
}

/**
 * The walk of `GET tasks` that `tasks.list` returns; a bad parameter or option rejects it on await or
 * iteration (`RequestValidationError`, nothing sent).
 */
export function listTasks(
  context: ResourceContext,
  params: TaskListParams,
  options: TaskListOptions,
): TaskListPromise {
  let parsed: WindowQuery;
  let window: CreationWindow | undefined;
  try {
    checkListOptions(options);
    const { createdAfter, createdBefore, ...query } = parseParams(
      TaskListRequestParams,
      params,
      'tasks.list',
    );
    window = creationWindow(instantOf(createdAfter), instantOf(createdBefore), query, (drift) =>
      context.reportDrift('tasks.list', [drift], undefined),
    );
    parsed = window?.query ?? query;
  } catch (error) {
    return new TaskListPromise(() => Promise.reject(error), 1, { maxPages: 1, concurrency: 1 });
  }
  // Pages requested ahead of a walk that stops at a creation bound would lie past it.
  const defaultConcurrency = window?.stops ? 1 : DEFAULT_LIST_CONCURRENCY;
  const { maxPages = DEFAULT_MAX_PAGES, concurrency = defaultConcurrency, ...requestOptions } = options;
  // The client's totalTimeout, like a call's own, bounds the whole walk (README "Retries and timeouts").
  const totalTimeout = requestOptions.totalTimeout ?? context.totalTimeoutMs;
  const walk = { maxPages, concurrency, signal: requestOptions.signal, totalTimeout };
  const filter = window?.filter;
  const query = listQuery(parsed);
  const firstPage = parsed.page ?? 1;
  const fetchPage: FetchTaskPage = async (page, request) => {
    const { data: response, head } = await sendOperation(
      context,
      'tasks.list',
      { query: { ...query, page: String(page) }, onRateLimited: request?.onRateLimited },
      request === undefined
        ? requestOptions
        : {
            ...requestOptions,
            ...(request.signal === undefined ? {} : { signal: request.signal }),
            ...(request.totalTimeout === undefined ? {} : { totalTimeout: request.totalTimeout }),
          },
    );
    const taskPage = new TaskPage(response, fetchPage, filter);
    // Only the first page keeps its response, the one `withResponse()` reads: a walk holds its pages ahead.
    if (page === firstPage) pageHeads.set(taskPage, head);
    return taskPage;
  };
  return new TaskListPromise(fetchPage, firstPage, walk);
}
