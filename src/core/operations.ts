/**
 * The service's operations, declared once (README "Schema drift"; CONTRIBUTING.md "Adding an operation").
 * A load-bearing field is a field the response schema requires: the tolerant reader leaves out what it
 * cannot coerce, and a required field left out fails the answer (`ResponseValidationError`).
 * @module
 */
import { BranchListResponse } from '../schemas/branch.js';
import { Estimate } from '../schemas/estimate.js';
import type { RetryPolicy } from '../schemas/retry-policy.js';
import { Task } from '../schemas/task.js';
import { TaskCreateResponse } from '../schemas/task-create.js';
import { TaskListResponse } from '../schemas/task-list.js';
import { WalletBalance, WalletTopUp } from '../schemas/wallet.js';

/** One operation of the service. */
export interface OperationDefinition {
  readonly method: 'GET' | 'POST';
  /** Relative to the base URL (`/tasks/{id}`): the span's `url.template`, the mock's route. */
  readonly path: string;
  readonly operationId: string;
  /** Reads a 2xx body. */
  readonly response: import('zod/mini').ZodMiniType;
  /** Dotted paths the SDK cannot do without (`''`: the body). */
  readonly loadBearing: readonly string[];
  /** `never`: sent once (a create, a top-up link). */
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

/**
 * An operation's name (`tasks.retrieve`, …; docs/testing.md lists them): the SDK method that calls it, its
 * span's name, the mock's `MockOperation`.
 */
export type OperationName = keyof typeof OPERATIONS;

/** Every operation name, in the table's order. */
export const OPERATION_NAMES = Object.keys(OPERATIONS) as OperationName[];

/** A template's parameter names: `'id'` for `/tasks/{id}/cancel`. */
export type PathParamsOf<Path extends string> = Path extends `${string}{${infer Param}}${infer Rest}`
  ? Param | PathParamsOf<Rest>
  : never;

/** `{ id }` for `tasks.retrieve`, `{}` for a template without parameters. */
export type OperationParams<Name extends OperationName> = [
  PathParamsOf<(typeof OPERATIONS)[Name]['path']>,
] extends [never]
  ? Readonly<Record<string, never>>
  : Readonly<Record<PathParamsOf<(typeof OPERATIONS)[Name]['path']>, string>>;

/**
 * The path of `name`, each `{param}` percent-encoded; check the values first (a task id by `taskPath`'s
 * rules).
 */
export function pathOf<Name extends OperationName>(name: Name, params: OperationParams<Name>): string {
  const values: Readonly<Record<string, string>> = params;
  return OPERATIONS[name].path
    .slice(1)
    .replace(/\{(\w+)\}/g, (_, param: string) => encodeURIComponent(values[param] ?? ''));
}

/** What the table fixes of a request: the path of a template without parameters (else {@link pathOf}). */
export function requestOf<Name extends OperationName>(
  name: Name,
): { operation: Name; method: 'GET' | 'POST'; path: string; urlTemplate: string; retry: RetryPolicy } {
  const { method, path, retry } = OPERATIONS[name];
  return { operation: name, method, path: path.slice(1), urlTemplate: path, retry };
}
