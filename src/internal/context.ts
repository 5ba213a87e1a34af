/** What resource classes share with their client: the transport, validation mode, logger, redactor. */
import type * as z from 'zod/mini';
import { type Answered, APIPromise } from '../core/api-promise.js';
import { requestOf } from '../core/operations.js';
import type { ReconciliationOptions, RequestOptions, ValidationMode } from '../core/options.js';
import type { DeliveryStore } from '../core/store.js';
import { Task, type TaskWithId } from '../schemas/task.js';
import type { DriftReporter } from './drift-report.js';
import type { Transport } from './http.js';
import type { HttpRequest, HttpResponse } from './http-request.js';
import type { LevelLogger } from './logger.js';
import { taskPath } from './path.js';
import type { Redactor } from './redact.js';
import { assertTaskId, taskIdIssue } from './task-identity.js';
import type { TraceSpan } from './tracing.js';
import { parseResponse, type Schema } from './validate.js';

export interface ResourceContext {
  /** Sends requests: the client's `Transport`, or a wrapper that also records answers (`tasks.create`). */
  readonly transport: Pick<Transport, 'send' | 'baseUrl'>;
  /** Base URL and seller id, for state shared by the seller's clients in this process. Never shown. */
  readonly sellerScope: string;
  readonly sellerId: string;
  /** Shared state (leases, remembered orders), every call bounded by the store timeout. */
  readonly store: DeliveryStore;
  readonly sharedStore: boolean;
  /** The client's `lookupFirst`; `undefined`: by the store (`tasks.create`'s option). */
  readonly lookupFirst: boolean | undefined;
  readonly attemptTimeoutMs: number;
  /** The client's `totalTimeout`, ms (a call's own wins); `undefined` for none. */
  readonly totalTimeoutMs: number | undefined;
  readonly orderTtlMs: number;
  readonly validation: ValidationMode;
  /** Reports drift read tolerantly: `onDrift`, one warning per (operation, path), a span event. */
  readonly reportDrift: DriftReporter;
  readonly logger: LevelLogger;
  readonly redactor: Redactor;
  readonly maxRetries: number;
  readonly reconciliation: ReconciliationOptions;
  readonly listingDelayMs: number;
}

/**
 * Sends a request and validates its 2xx body against `schema`, keeping status and headers. `check` takes
 * the parsed body and returns what to resolve with, or throws (not retried).
 */
export async function requestParsed<T extends Schema>(
  context: ResourceContext,
  schema: T,
  request: HttpRequest | (() => HttpRequest),
  options?: RequestOptions,
  check?: (data: z.core.output<T>, response: HttpResponse, span: TraceSpan | undefined) => z.core.output<T>,
): Promise<Answered<z.core.output<T>>> {
  const sent = typeof request === 'function' ? request() : request;
  const parse = (response: HttpResponse, span: TraceSpan | undefined): z.core.output<T> =>
    parseResponse(schema, response.body, {
      operation: sent.operation,
      method: response.method,
      get url() {
        return response.url;
      },
      status: response.status,
      mode: context.validation,
      redactor: context.redactor,
      report: (drifts) => context.reportDrift(sent.operation, drifts, span),
    });
  const read = (response: HttpResponse, span: TraceSpan | undefined): unknown =>
    check === undefined ? parse(response, span) : check(parse(response, span), response, span);
  const response = await context.transport.send({ ...sent, read }, options);
  return {
    data: response.body as z.core.output<T>,
    head: { status: response.status, headers: response.headers, body: response.text },
  };
}

/** {@link requestParsed} as an {@link APIPromise} of the parsed body: what resource methods return. */
export function apiRequest<T extends Schema>(
  context: ResourceContext,
  schema: T,
  request: HttpRequest | (() => HttpRequest),
  options?: RequestOptions,
): APIPromise<z.core.output<T>> {
  return new APIPromise(requestParsed(context, schema, request, options));
}

/**
 * `GET tasks/{id}`, retried when safe; the answer's `id` (or `_id`) must equal `id`. An answer without
 * either (every response field is optional) is given `id` and reported as drift, unless `confirming`: a
 * read that confirms which task it is (a remembered order's task) needs the id present.
 * @throws {RequestValidationError} for an empty id; {@link ResponseValidationError} for another id (or none,
 * confirming).
 */
export async function retrieveTask(
  context: ResourceContext,
  id: string,
  operation: string,
  options?: RequestOptions,
  confirming = false,
): Promise<Answered<TaskWithId>> {
  return requestParsed(
    context,
    Task,
    () => ({ ...requestOf('tasks.retrieve'), path: taskPath(id, operation) }),
    options,
    (task, response, span): TaskWithId => {
      if (!confirming && taskIdIssue(id, task)?.code === 'invalid_type') {
        const received = task.id === undefined ? 'undefined' : typeof task.id;
        context.reportDrift(
          operation,
          [{ path: 'id', expected: 'string', received, action: 'coerced' }],
          span,
        );
        return { ...task, id };
      }
      return assertTaskId(id, task, response, context.redactor);
    },
  ) as Promise<Answered<TaskWithId>>;
}
