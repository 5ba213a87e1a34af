/**
 * The service's operations, declared once (README "Schema drift"; CONTRIBUTING.md "Adding an operation").
 * A load-bearing field is a field the response schema requires: the tolerant reader leaves out what it
 * cannot coerce, and a required field left out fails the answer (`ResponseValidationError`).
 * @module
 */
import type * as z from 'zod/mini';
import { readBranches } from '../schemas/branch.js';
import { Estimate, EstimateRequestParams, estimateBody } from '../schemas/estimate.js';
import type { RetryPolicy } from '../schemas/retry-policy.js';
import { Task } from '../schemas/task.js';
import { TaskCreateParams, TaskCreateResponse } from '../schemas/task-create.js';
import { TaskListResponse } from '../schemas/task-list.js';
import type { Drift } from '../schemas/tolerant-read.js';
import { WalletBalance, WalletTopUp, WalletTopUpParams } from '../schemas/wallet.js';

/** How a row reads a 2xx body: by its `response` schema, or by a `read` of its own. */
type OperationReader =
  | {
      /** Reads a 2xx body, tolerantly: its required fields are the load-bearing ones. */
      readonly response: z.ZodMiniType;
      readonly read?: never;
    }
  | {
      /**
       * Reads a 2xx body, leaving out and reporting what it cannot read. Its answer's shape is documented by
       * a schema of `delivery-task-sdk/schemas` (`BranchListResponse`), which the client does not load.
       */
      readonly read: (body: unknown) => { value: unknown; drifts: Drift[] };
      readonly response?: never;
    };

/**
 * One operation of the service: the whole call, read by the one request pipeline (`resources/request.ts`).
 * A call's input holds the path's `{params}` by name (each checked by a task id's rules) and the `params`
 * schema's fields, sent as the body of a POST.
 */
export type OperationDefinition = OperationReader & {
  readonly method: 'GET' | 'POST';
  /** Relative to the base URL (`/tasks/{id}`): the span's `url.template`, the mock's route. */
  readonly path: string;
  readonly operationId: string;
  /**
   * The body's parameters, checked before anything is sent (`RequestValidationError` naming each field). The
   * whole input is checked and sent, so a row whose path has parameters declares them here too, and sends
   * them in its body as well (`body` can leave them out).
   */
  readonly params?: z.ZodMiniType;
  /** What of the checked `params` is sent, when not all of it; `dropped` names what is not (a debug log). */
  readonly body?: (params: never) => { body: unknown; dropped: readonly string[] };
  /** The answer is the task the path's `{id}` names: its `id` (or `_id`) must be that id. */
  readonly answersFor?: 'id';
  /** `never`: sent once (a create, a top-up link). */
  readonly retry: RetryPolicy;
  /**
   * How the call is sent: `'exactly-once'`, the create of an order (README "Exactly-once creation"); else
   * as one request, retried by `retry`.
   */
  readonly send?: 'exactly-once';
};

/** Every operation of the service, by the name of the SDK method that calls it. */
export const OPERATIONS = {
  'tasks.create': {
    method: 'POST',
    path: '/tasks',
    operationId: 'createTask',
    params: TaskCreateParams,
    response: TaskCreateResponse,
    retry: 'never',
    send: 'exactly-once',
  },
  'tasks.retrieve': {
    method: 'GET',
    path: '/tasks/{id}',
    operationId: 'retrieveTask',
    response: Task,
    retry: 'idempotent',
    answersFor: 'id',
  },
  'tasks.list': {
    method: 'GET',
    path: '/tasks',
    operationId: 'listTasks',
    response: TaskListResponse,
    retry: 'idempotent',
  },
  'tasks.estimate': {
    method: 'POST',
    path: '/tasks/estimate',
    operationId: 'estimateTask',
    params: EstimateRequestParams,
    body: estimateBody,
    response: Estimate,
    retry: 'idempotent',
  },
  'branches.list': {
    method: 'GET',
    path: '/tasks/branches',
    operationId: 'listBranches',
    retry: 'idempotent',
    read: readBranches,
  },
  'wallet.retrieveBalance': {
    method: 'GET',
    path: '/tasks/wallet-balance',
    operationId: 'retrieveWalletBalance',
    response: WalletBalance,
    retry: 'idempotent',
  },
  'wallet.topUp': {
    method: 'POST',
    path: '/tasks/wallet-topup',
    operationId: 'topUpWallet',
    params: WalletTopUpParams,
    response: WalletTopUp,
    retry: 'never',
  },
} as const satisfies Record<string, OperationDefinition>;

/**
 * An operation's name (`tasks.retrieve`, …; docs/testing.md lists them): the SDK method that calls it, its
 * span's name, the mock's `MockOperation`.
 */
export type OperationName = keyof typeof OPERATIONS;

/** Every operation name, in the table's order. */
export const OPERATION_NAMES = /* @__PURE__ */ Object.keys(OPERATIONS) as readonly OperationName[];

/** A template's parameter names: `'id'` for `/tasks/{id}/cancel`. */
export type PathParamsOf<Path extends string> = Path extends `${string}{${infer Param}}${infer Rest}`
  ? Param | PathParamsOf<Rest>
  : never;

type Row<Name extends OperationName> = (typeof OPERATIONS)[Name];

/** `{ id }` for `tasks.retrieve`, `{}` for a template without parameters. */
export type OperationParams<Name extends OperationName> = [PathParamsOf<Row<Name>['path']>] extends [never]
  ? Readonly<Record<string, never>>
  : Readonly<Record<PathParamsOf<Row<Name>['path']>, string>>;

/** What a call of `name` takes: the path's parameters, and the fields of its `params` schema. */
export type OperationInput<Name extends OperationName> =
  Row<Name> extends {
    params: infer Params extends z.ZodMiniType;
  }
    ? ([PathParamsOf<Row<Name>['path']>] extends [never] ? unknown : OperationParams<Name>) & z.input<Params>
    : OperationParams<Name>;

/**
 * What a call of `name` resolves with: its `read`'s value, else what its `response` schema reads, with the
 * `id` it was asked for when it `answersFor` one.
 */
export type OperationOutput<Name extends OperationName> =
  Row<Name> extends {
    read: (body: unknown) => { value: infer Value };
  }
    ? Value
    : Row<Name> extends { response: infer Response extends z.ZodMiniType }
      ? z.output<Response> & (Row<Name> extends { answersFor: 'id' } ? { id: string } : unknown)
      : never;

/** What the table fixes of a request: its span's name and template, its method and retry policy. */
export function requestOf<Name extends OperationName>(
  name: Name,
): { operation: Name; method: 'GET' | 'POST'; path: string; urlTemplate: string; retry: RetryPolicy } {
  const { method, path, retry } = OPERATIONS[name];
  return { operation: name, method, path: path.slice(1), urlTemplate: path, retry };
}
