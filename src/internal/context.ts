/** What resource classes share with their client: the transport, validation mode, logger, redactor. */
import type * as z from 'zod/mini';
import { type Answered, APIPromise } from '../api-promise.js';
import type { ReconciliationOptions, RequestOptions, ValidationMode } from '../options.js';
import type { DeliveryStore } from '../store.js';
import type { HttpRequest, Transport } from './http.js';
import type { LevelLogger } from './logger.js';
import type { Redactor } from './redact.js';
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
  /** How long a created order → task is remembered, ms. */
  readonly orderTtlMs: number;
  readonly validation: ValidationMode;
  readonly logger: LevelLogger;
  readonly redactor: Redactor;
  readonly maxRetries: number;
  readonly reconciliation: ReconciliationOptions;
}

/**
 * Sends a request and validates its 2xx body against `schema`, keeping the response's status and headers.
 * `request` may be a function, called here: what it throws (a `RequestValidationError`) rejects.
 */
export async function answer<T extends Schema>(
  context: ResourceContext,
  schema: T,
  request: HttpRequest | (() => HttpRequest),
  options?: RequestOptions,
): Promise<Answered<z.core.output<T>>> {
  const response = await context.transport.send(typeof request === 'function' ? request() : request, options);
  const data = parseResponse(schema, response.body, {
    method: response.method,
    // Redacted only when a message needs it (a mismatch): not on every call.
    get url() {
      return response.url;
    },
    status: response.status,
    mode: context.validation,
    logger: context.logger,
    redactor: context.redactor,
  });
  return { data, head: { status: response.status, headers: response.headers } };
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
