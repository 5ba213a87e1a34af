/**
 * The send stage of the one request pipeline (`resources/request.ts`): a row of the operations table, the
 * call's path parameters, query and body, sent by the client's `Transport` and read by the row's reader.
 * @module
 */
import type { Answered, ResponseHead } from '../core/api-promise.js';
import {
  OPERATIONS,
  type OperationDefinition,
  type OperationName,
  type OperationOutput,
} from '../core/operations.js';
import type { RequestOptions } from '../core/options.js';
import type { TaskWithId } from '../schemas/task.js';
import type { Drift } from '../schemas/tolerant-read.js';
import type { ResourceContext } from './context.js';
import type { HttpResponse, TracedCall } from './http-request.js';
import { pathOf } from './path.js';
import { assertTaskId, taskIdIssue } from './task-identity.js';
import type { TraceSpan } from './tracing.js';
import { parseParams, parseResponse } from './validate.js';

/** What a call sends besides what the table fixes. */
export interface OperationRequest {
  /** The path's `{params}` by name (task ids). */
  readonly params?: Readonly<Record<string, unknown>>;
  readonly query?: Record<string, string>;
  /** Already checked; else the body is the path parameters' siblings, checked by the row ({@link bodyOf}). */
  readonly body?: unknown;
  /** Called on each 429, before any retry. */
  readonly onRateLimited?: (() => void) | undefined;
}

/** Where a request belongs when it is one of several of a call (the requests of one `tasks.create`). */
export interface CallScope {
  /** The call's span: the request is an event of it, not a span of its own. */
  readonly call?: TracedCall | undefined;
  /** Names the request in its errors (`tasks.create` reading back its task). */
  readonly operation?: string;
  /**
   * The answer must carry the id it was read for (`answersFor`): it confirms which task it is. Otherwise an
   * answer without any id is given it, and that is reported as drift.
   */
  readonly confirming?: boolean;
}

/**
 * Sends operation `name` and reads its 2xx body by the row (`read`, else `response` read tolerantly or
 * strictly by the client's `validation`; `answersFor` checked), keeping status and headers.
 * @throws {RequestValidationError} for a bad path parameter (nothing sent); the transport's errors
 * (`APIError` by status, connection, timeout and abort errors); {@link ResponseValidationError}.
 */
export async function sendOperation<Name extends OperationName>(
  context: ResourceContext,
  name: Name,
  request: OperationRequest,
  options?: RequestOptions,
  scope: CallScope = {},
): Promise<Answered<OperationOutput<Name>>> {
  const row: OperationDefinition = OPERATIONS[name];
  const params = request.params ?? {};
  const path = pathOf(row.path, params, scope.operation ?? name);
  const body = request.body ?? bodyOf(context, name, params);
  const read = (response: HttpResponse, span: TraceSpan | undefined): unknown => {
    const report = (drifts: readonly Drift[]) => context.reportDrift(name, drifts, span);
    if (row.read !== undefined) {
      const { value, drifts } = row.read(response.body);
      if (drifts.length > 0) report(drifts);
      return value;
    }
    const value = parseResponse(row.response, response.body, {
      operation: name,
      method: response.method,
      get url() {
        return response.url;
      },
      status: response.status,
      mode: context.validation,
      redactor: context.redactor,
      report,
    });
    if (row.answersFor === undefined) return value;
    const id = params[row.answersFor] as string;
    const task = value as TaskWithId;
    if (scope.confirming !== true && taskIdIssue(id, task)?.code === 'invalid_type') {
      const received = task.id === undefined ? 'undefined' : typeof task.id;
      report([{ path: 'id', expected: 'string', received, action: 'coerced' }]);
      return { ...task, id };
    }
    return assertTaskId(id, task, response, context.redactor);
  };
  const response = await context.transport.send(
    {
      ...request,
      body,
      operation: name,
      method: row.method,
      path,
      urlTemplate: row.path,
      retry: row.retry,
      read,
    },
    options,
    scope.call,
  );
  return { data: response.body as OperationOutput<Name>, head: headOf(response) };
}

/** The status, headers and body text of `response`, for `withResponse()`. */
export function headOf(response: HttpResponse): ResponseHead {
  return { status: response.status, headers: response.headers, body: response.text };
}

/**
 * The row's `params` checked, then as sent (the row's `body`); what is not sent is logged at debug;
 * `undefined` for a row without `params`.
 * @throws {RequestValidationError} naming each bad field; nothing is sent.
 */
export function bodyOf(context: ResourceContext, name: OperationName, fields: unknown): unknown {
  const row: OperationDefinition = OPERATIONS[name];
  if (row.params === undefined) return undefined;
  const checked = parseParams(row.params, fields, name);
  if (row.body === undefined) return checked;
  const { body, dropped } = row.body(checked as never);
  if (dropped.length > 0) context.logger.debug(`${name}: not sending ${dropped.join(', ')}`);
  return body;
}
