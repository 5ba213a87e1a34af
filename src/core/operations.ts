/**
 * The service's operations, declared once (README "Schema drift"; the OpenAPI document's operation ids):
 * for each, its method, URL template, response schema, the fields the SDK cannot do without
 * (load-bearing: strict in every validation mode), and whether it is safe to repeat. The resources send
 * from it, tracing names spans' `url.template` from it, the mock routes and lists operations from it, and
 * the OpenAPI document takes its paths and methods from it.
 *
 * | operation | request | load-bearing |
 * |---|---|---|
 * | `tasks.create` | `POST /tasks` | `data.createTask.id` |
 * | `tasks.retrieve` | `GET /tasks/{id}` | the task object |
 * | `tasks.list` | `GET /tasks` | `tasks`, `page`, `limit`, `totalPages`, `total` |
 * | `tasks.estimate` | `POST /tasks/estimate` | the estimate object |
 * | `branches.list` | `GET /tasks/branches` | a list of branches |
 * | `wallet.retrieveBalance` | `GET /tasks/wallet-balance` | `walletAmount` |
 * | `wallet.topUp` | `POST /tasks/wallet-topup` | `paymentUrl` |
 *
 * A load-bearing field is a field the response schema requires: the tolerant reader leaves out what it
 * cannot coerce, and a required field left out fails the answer (`ResponseValidationError`).
 * @module
 */
import type { RetryPolicy } from '../internal/http.js';
import { BranchListResponse } from '../schemas/branch.js';
import { Estimate } from '../schemas/estimate.js';
import { Task } from '../schemas/task.js';
import { TaskCreateResponse } from '../schemas/task-create.js';
import { TaskListResponse } from '../schemas/task-list.js';
import { WalletBalance, WalletTopUp } from '../schemas/wallet.js';

/** One operation of the service; see this module's table. */
export interface OperationDefinition {
  readonly method: 'GET' | 'POST';
  /** URL template relative to the base URL (`/tasks/{id}`): the span's `url.template` and the mock's route. */
  readonly path: string;
  /** The OpenAPI document's `operationId`. */
  readonly operationId: string;
  /** The schema a 2xx body is read with. */
  readonly response: import('zod/mini').ZodMiniType;
  /** Dotted paths the SDK cannot do without (`''`: the body itself); the response schema requires each. */
  readonly loadBearing: readonly string[];
  /** `idempotent`: retried when the failure allows; `never`: sent once (a create or a top-up link). */
  readonly retry: RetryPolicy;
}

/** Every operation of the service, by the name of the SDK method that calls it. */
export const OPERATIONS = {
  'tasks.create': {
    method: 'POST',
    path: '/tasks',
    operationId: 'createTask',
    response: TaskCreateResponse,
    loadBearing: ['data', 'data.createTask', 'data.createTask.id'],
    retry: 'never',
  },
  'tasks.retrieve': {
    method: 'GET',
    path: '/tasks/{id}',
    operationId: 'retrieveTask',
    response: Task,
    loadBearing: [''],
    retry: 'idempotent',
  },
  'tasks.list': {
    method: 'GET',
    path: '/tasks',
    operationId: 'listTasks',
    response: TaskListResponse,
    loadBearing: ['tasks', 'page', 'limit', 'totalPages', 'total'],
    retry: 'idempotent',
  },
  'tasks.estimate': {
    method: 'POST',
    path: '/tasks/estimate',
    operationId: 'estimateTask',
    response: Estimate,
    loadBearing: [''],
    retry: 'idempotent',
  },
  'branches.list': {
    method: 'GET',
    path: '/tasks/branches',
    operationId: 'listBranches',
    response: BranchListResponse,
    loadBearing: [''],
    retry: 'idempotent',
  },
  'wallet.retrieveBalance': {
    method: 'GET',
    path: '/tasks/wallet-balance',
    operationId: 'retrieveWalletBalance',
    response: WalletBalance,
    loadBearing: ['walletAmount'],
    retry: 'idempotent',
  },
  'wallet.topUp': {
    method: 'POST',
    path: '/tasks/wallet-topup',
    operationId: 'topUpWallet',
    response: WalletTopUp,
    loadBearing: ['paymentUrl'],
    retry: 'never',
  },
} as const satisfies Record<string, OperationDefinition>;

/** The name of an operation (`tasks.retrieve`, …): the SDK method that calls it. */
export type OperationName = keyof typeof OPERATIONS;

/** Every operation name, in the table's order. */
export const OPERATION_NAMES = Object.keys(OPERATIONS) as OperationName[];

/** The parameter names of a URL template: `'id'` for `/tasks/{id}/cancel`. */
export type PathParamsOf<Path extends string> = Path extends `${string}{${infer Param}}${infer Rest}`
  ? Param | PathParamsOf<Rest>
  : never;

/** The path parameters of operation `Name`: `{ id }` for `tasks.retrieve`, `{}` for the others. */
export type OperationParams<Name extends OperationName> = [PathParamsOf<(typeof OPERATIONS)[Name]['path']>] extends [
  never,
]
  ? Readonly<Record<string, never>>
  : Readonly<Record<PathParamsOf<(typeof OPERATIONS)[Name]['path']>, string>>;

/**
 * The path of operation `name` relative to the base URL, each `{param}` set from `params`
 * percent-encoded (`pathOf('tasks.retrieve', { id: 'a/b' })` → `tasks/a%2Fb`). Check the values first: a
 * task id by `taskPath`'s rules.
 */
export function pathOf<Name extends OperationName>(name: Name, params: OperationParams<Name>): string {
  const values: Readonly<Record<string, string>> = params;
  return OPERATIONS[name].path
    .slice(1)
    .replace(/\{(\w+)\}/g, (_, param: string) => encodeURIComponent(values[param] ?? ''));
}

/**
 * The parts of a request that the table fixes for `name`: operation (the span's name), method, URL
 * template (the span's `url.template`), retry policy, and the path of a template without parameters
 * (else set it with {@link pathOf}). The caller sets the query and body.
 */
export function requestOf<Name extends OperationName>(
  name: Name,
): { operation: Name; method: 'GET' | 'POST'; path: string; urlTemplate: string; retry: RetryPolicy } {
  const { method, path, retry } = OPERATIONS[name];
  return { operation: name, method, path: path.slice(1), urlTemplate: path, retry };
}
