/**
 * The lookup of an order's tasks, by `tasks.findByOrderNumber` and creation (README "Finding the tasks of an
 * order").
 */
import {
  APIConnectionError,
  APIError,
  connectionErrorAfter,
  PaginationLimitError,
  type ValidationIssue,
} from '../../core/errors.js';
import type { RequestOptions } from '../../core/options.js';
import { sleep } from '../../internal/abort.js';
import type { ResourceContext } from '../../internal/context.js';
import { checkIntegerOption, checkRequestOptions } from '../../internal/request-checks.js';
import { retryRules } from '../../internal/retry.js';
import { sendOperation } from '../../internal/send-operation.js';
import type { Task, TaskWithId } from '../../schemas/task.js';
import { MAX_PAGE_SIZE } from '../../schemas/task-list.js';
import { TaskListPromise } from '../task-list/list-promise.js';
import { type FetchTaskPage, TaskPage } from '../task-list/page.js';
import { type CreateRun, LookupRun } from './create-run.js';

/** Options of `tasks.findByOrderNumber`, applied to each page. */
export interface FindByOrderNumberOptions extends RequestOptions {
  /**
   * List requests before `PaginationLimitError`, 1…1000. Default: the client's `reconciliation.maxPages`
   * (10).
   */
  maxPages?: number;
}

/**
 * `tasks.findByOrderNumber`: {@link findTasksOfOrder} under the call's own deadline, tasks with an id only.
 * @throws {RequestValidationError} for an empty order number or a bad option (nothing sent); as
 * {@link findTasksOfOrder}.
 */
export function findByOrderNumber(
  context: ResourceContext,
  orderNumber: string,
  options: FindByOrderNumberOptions,
): Promise<TaskWithId[]> {
  const { maxPages = context.reconciliation.maxPages, ...requestOptions } = options;
  const issues: ValidationIssue[] = [];
  if (typeof orderNumber !== 'string' || orderNumber === '') {
    issues.push({ path: 'orderNumber', message: 'Expected a non-empty string', code: 'invalid_type' });
  }
  checkIntegerOption(issues, 'maxPages', maxPages, 1, 1000);
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

/** `text` as a regular expression matching exactly that text (every metacharacter escaped). */
export function exactPattern(text: string): string {
  return `^${text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}$`;
}

/**
 * Every task whose `orderNumber` is exactly `orderNumber`, newest first, by an anchored pattern (a literal
 * search when the service refuses it: 400, 422); at most `maxPages` list requests counted by `run`, all
 * of them, their retries and waits within `run`'s deadline.
 * @throws {PaginationLimitError} when those are used up with more to read; request errors; `run.error()` at
 * its deadline.
 */
export async function findTasksOfOrder(
  context: ResourceContext,
  orderNumber: string,
  options: RequestOptions,
  run: CreateRun,
  maxPages = context.reconciliation.maxPages,
): Promise<Task[]> {
  const budget = { left: maxPages - run.listRequests, cap: maxPages };
  try {
    return await searchOrder(
      context,
      orderNumber,
      { search: exactPattern(orderNumber), literal: false },
      options,
      run,
      budget,
    );
  } catch (error) {
    if (!(error instanceof APIError && (error.status === 400 || error.status === 422))) throw error;
  }
  return searchOrder(context, orderNumber, { search: orderNumber, literal: true }, options, run, budget);
}

/** The exact matches of one search, walked by the list engine (`task-list/`). */
async function searchOrder(
  context: ResourceContext,
  orderNumber: string,
  query: { search: string; literal: boolean },
  options: RequestOptions,
  run: CreateRun,
  budget: { left: number; cap: number },
): Promise<Task[]> {
  const matches = new Map<string, Task>();
  const retries = retryRules(options.maxRetries ?? context.maxRetries);
  const fetchPage: FetchTaskPage = async (page, request) => {
    const signal = request?.signal ?? options.signal;
    // Retried here, not by the transport, so that every request sent counts against the budget; each
    // request is given what is left of the deadline, and so is each wait.
    for (let attempt = 1; ; attempt++) {
      if (budget.left <= 0) throw new PaginationLimitError(budget.cap);
      const pageOptions = { ...run.requestOptions(options), maxRetries: 0 };
      budget.left--;
      run.listRequests++;
      try {
        const { data: response } = await sendOperation(
          context,
          'tasks.list',
          {
            query: {
              limit: String(MAX_PAGE_SIZE),
              page: String(page),
              search: query.search,
              ignoreRegex: String(query.literal),
              sortBy: 'createdAt',
              sortOrder: '-1',
            },
            onRateLimited: request?.onRateLimited,
          },
          request?.signal === undefined ? pageOptions : { ...pageOptions, signal: request.signal },
          { call: run.call },
        );
        return new TaskPage(response, fetchPage);
      } catch (error) {
        if (run.expired) throw run.error();
        if (!retries.retries(error) || budget.left <= 0 || attempt > retries.limit) {
          // Each page request is sent once: the error says how many this page took.
          throw error instanceof APIConnectionError ? connectionErrorAfter(error, attempt) : error;
        }
        await sleep(Math.min(retries.delayMs(attempt, error), run.remaining()), signal);
        if (run.expired) throw run.error();
      }
    }
  };
  // One page at a time: every request counts against the budget, none is sent ahead and dropped.
  const listing = new TaskListPromise(fetchPage, 1, {
    maxPages: Number.POSITIVE_INFINITY,
    concurrency: 1,
    signal: options.signal,
  });
  for await (const { tasks } of listing.byPage()) {
    for (const task of tasks) {
      if (task.orderNumber === orderNumber) matches.set(task.id ?? `(no id ${matches.size})`, task);
    }
  }
  return [...matches.values()];
}
