/** `client.tasks`: OpenAPI `createTask`, "GET /tasks/{id}", `listTasks`, "POST /tasks/estimate". */

import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions, TaskCreateOptions } from '../core/options.js';
import type { ResourceContext } from '../internal/context.js';
import type { Estimate, EstimateParams } from '../schemas/estimate.js';
import type { AnyTaskStatus, TaskWithId } from '../schemas/task.js';
import type { TaskCreateParams } from '../schemas/task-create.js';
import type { TaskListParams } from '../schemas/task-list.js';
import { contextOf, type ResourceHandle } from './handle.js';
import { request } from './request.js';
import { type FindByOrderNumberOptions, findByOrderNumber } from './task-creation/order-lookup.js';
import type { TaskListPromise } from './task-list/list-promise.js';
import { listTasks, type TaskListOptions } from './task-list/list-tasks.js';
import { type WaitForStatusOptions, waitForStatus } from './task-wait.js';

export type { FindByOrderNumberOptions, TaskListOptions, WaitForStatusOptions };

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
    return request(this.#context, 'tasks.create', params, options);
  }

  /**
   * Every task whose `orderNumber` is exactly `orderNumber`, newest first: the lookup `tasks.create` uses
   * (README "Finding the tasks of an order"). A task created within `listingDelayMs` may not be listed yet.
   * @throws {RequestValidationError} (nothing sent); {@link PaginationLimitError} past `maxPages`; as {@link
   * retrieve}.
   */
  findByOrderNumber(orderNumber: string, options: FindByOrderNumberOptions = {}): Promise<TaskWithId[]> {
    return findByOrderNumber(this.#context, orderNumber, options);
  }

  /**
   * Reads one task (`GET tasks/{id}`), retried when safe; its `id` (or `_id`) must be `id`; an answer with
   * neither is given `id` and reported as drift (`onDrift`, README "Schema drift").
   * @throws {RequestValidationError} for an empty id; {@link NotFoundError}; {@link ResponseValidationError}
   * (a body that does not match, another task's id); {@link APIError} by status; {@link APIConnectionError}.
   */
  retrieve(id: string, options?: RequestOptions): APIPromise<TaskWithId> {
    return request(this.#context, 'tasks.retrieve', { id }, options);
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
    return listTasks(this.#context, params, options);
  }

  /**
   * Estimates distance, time and price (KWD) between two points or locations (`POST tasks/estimate`;
   * a location's `fullAddress` is not sent). Retried when safe.
   * @throws {RequestValidationError} (nothing sent); {@link APIError}; {@link APIConnectionError}; {@link
   * ResponseValidationError}.
   */
  estimate(params: EstimateParams, options?: RequestOptions): APIPromise<Estimate> {
    return request(this.#context, 'tasks.estimate', params, options);
  }

  /**
   * Polls `GET tasks/{id}` until its status is one of `statuses` (what a lost webhook would have said).
   * @throws {StatusWaitTimeoutError} after `options.timeout`; {@link APIUserAbortError};
   * {@link NotFoundError}; {@link RequestValidationError} for an empty id, no statuses, bad intervals.
   */
  waitForStatus(
    id: string,
    statuses: AnyTaskStatus | readonly AnyTaskStatus[],
    options: WaitForStatusOptions = {},
  ): Promise<TaskWithId> {
    return waitForStatus(this.#context, id, statuses, options);
  }
}
