/** What resource classes share with their client: the transport, validation mode, logger, redactor. */
import type * as z from 'zod/mini';
import { type Answered, APIPromise } from '../core/api-promise.js';
import { requestOf } from '../core/operations.js';
import type { ReconciliationOptions, RequestOptions, ValidationMode } from '../core/options.js';
import type { DeliveryStore } from '../core/store.js';
import { Task, type TaskWithId } from '../schemas/task.js';
import type { DriftReporter } from './drift-report.js';
import type { HttpRequest, HttpResponse, Transport } from './http.js';
import type { LevelLogger } from './logger.js';
import { taskPath } from './path.js';
import type { Redactor } from './redact.js';
import { assertTaskId } from './task-identity.js';
import type { TraceSpan } from './tracing.js';
import { parseResponse, type Schema } from './validate.js';

/** Shared by the resources of one client. */
export interface ResourceContext {
  /** Sends requests: the client's `Transport`, or a wrapper that also records answers (`tasks.create`). */
  readonly transport: Pick<Transport, 'send' | 'baseUrl'>;
  /**
   * Identifies the service and seller (base URL and seller id) for state shared by every client of the
   * same seller in this process, such as creates in flight. Never shown: it holds the seller id.
   */
  readonly sellerScope: string;
  /** The seller id, for store keys (never shown). */
  readonly sellerId: string;
  /** Shared state (leases, remembered orders), every call bounded by the store timeout. */
  readonly store: DeliveryStore;
  /** True when the store was given (shared by processes), false for the client's own memory store. */
  readonly sharedStore: boolean;
  /** The client's per-attempt timeout, ms: how long one POST may be in flight. */
  readonly attemptTimeoutMs: number;
  /** The client's `totalTimeout`, ms (a call's own wins); `undefined` for none. */
  readonly totalTimeoutMs: number | undefined;
  /** How long a created order → task is remembered, ms. */
  readonly orderTtlMs: number;
  readonly validation: ValidationMode;
  /** Reports drift read tolerantly: `onDrift`, one warning per (operation, path), a span event. */
  readonly reportDrift: DriftReporter;
  readonly logger: LevelLogger;
  readonly redactor: Redactor;
  readonly maxRetries: number;
  readonly reconciliation: ReconciliationOptions;
  /** The client's `listingDelayMs`: how long the service may take to list a new task, ms. */
  readonly listingDelayMs: number;
}

/**
 * Sends a request and validates its 2xx body against `schema`, keeping the response's status and headers.
 * `request` may be a function, called here: what it throws (a `RequestValidationError`) rejects.
 * `check`, when given, takes the parsed body (and the answer) and returns what to resolve with, or throws
 * (not retried, as for a body that does not match).
 */
export async function answer<T extends Schema>(
  context: ResourceContext,
  schema: T,
  request: HttpRequest | (() => HttpRequest),
  options?: RequestOptions,
  check?: (data: z.core.output<T>, response: HttpResponse) => z.core.output<T>,
): Promise<Answered<z.core.output<T>>> {
  const sent = typeof request === 'function' ? request() : request;
  const parse = (response: HttpResponse, span: TraceSpan | undefined): z.core.output<T> =>
    parseResponse(schema, response.body, {
      operation: sent.operation,
      method: response.method,
      // Redacted only when a message needs it (a mismatch): not on every call.
      get url() {
        return response.url;
      },
      status: response.status,
      mode: context.validation,
      redactor: context.redactor,
      report: (drifts) => context.reportDrift(sent.operation, drifts, span),
    });
  const read = (response: HttpResponse, span: TraceSpan | undefined): unknown =>
    check === undefined ? parse(response, span) : check(parse(response, span), response);
  const response = await context.transport.send({ ...sent, read }, options);
  return {
    data: response.body as z.core.output<T>,
    head: { status: response.status, headers: response.headers, body: response.text },
  };
}

/** {@link answer} as an {@link APIPromise} of the parsed body: what resource methods return. */
export function call<T extends Schema>(
  context: ResourceContext,
  schema: T,
  request: HttpRequest | (() => HttpRequest),
  options?: RequestOptions,
): APIPromise<z.core.output<T>> {
  return new APIPromise(answer(context, schema, request, options));
}

/**
 * `GET tasks/{id}`, as `tasks.retrieve` and the create path (a remembered order, a reconciliation) read
 * a task: retried when safe. The answer must be the task asked for: its `id` (or `_id`, the webhook form,
 * which then gives `id`) equal to `id` exactly.
 * @throws {RequestValidationError} for an empty id (named as an argument of `operation`);
 * {@link ResponseValidationError} (an issue on `id` or `_id`) for an answer whose id differs from `id`, or
 * that has none; the errors of {@link answer}.
 */
export async function retrieveTask(
  context: ResourceContext,
  id: string,
  operation: string,
  options?: RequestOptions,
): Promise<Answered<TaskWithId>> {
  return answer(
    context,
    Task,
    () => ({ ...requestOf('tasks.retrieve'), path: taskPath(id, operation) }),
    options,
    (task, response): TaskWithId => assertTaskId(id, task, response, context.redactor),
  ) as Promise<Answered<TaskWithId>>;
}
