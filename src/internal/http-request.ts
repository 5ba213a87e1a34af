/**
 * One logical request of the transport, its 2xx answer, the call traced around it, the transport's
 * configuration and the user agent it sends.
 * @module
 */
import type { OperationName } from '../core/operations.js';
import { VERSION } from '../core/version.js';
import type { RetryPolicy } from '../schemas/retry-policy.js';
import { detectRuntime } from './env.js';
import type { LevelLogger } from './logger.js';
import type { Redactor } from './redact.js';
import type { SpanAttributes, TraceSpan } from './tracing.js';

/** One logical request. */
export interface HttpRequest {
  /** The table's operation (`tasks.retrieve`): the span's name; appears in logs and decides error classes. */
  operation: OperationName;
  method: 'GET' | 'POST';
  /** Path relative to the base URL, without a leading slash (`tasks/abc`). */
  path: string;
  /** `/tasks/{id}`, …: spans carry no ids. */
  urlTemplate?: string;
  query?: Record<string, string> | undefined;
  body?: unknown;
  retry: RetryPolicy;
  /** Called on each 429, before any retry. */
  onRateLimited?: (() => void) | undefined;
  /** Reads the 2xx body into `body` while the span is open, its errors redacted like every failure. */
  read?: ((response: HttpResponse, span: TraceSpan | undefined) => unknown) | undefined;
}

/** A 2xx response with its parsed JSON body. */
export interface HttpResponse {
  status: number;
  headers: Headers;
  body: unknown;
  method: string;
  /** The URL answered, redacted when read. */
  readonly url: string;
  attempts: number;
  /** The decoded body text, for `asResponse()`. */
  text: string;
}

/** A call traced as one span (see `Transport.trace`), and the requests sent under it. */
export interface TracedCall {
  readonly span: TraceSpan | undefined;
  requests: number;
  /** The POSTs among `requests`: a create's attempts. */
  posts: number;
  /** The last 2xx response. */
  answered?: HttpResponse;
}

/** How `Transport.trace` records a call. */
export interface CallTraceOptions<T> {
  readonly attributes?: SpanAttributes;
  /** The status of the answer the value came from, and the attempts made. */
  readonly outcome: (value: T, call: TracedCall) => { status: number | undefined; attempts: number };
}

/**
 * `delivery-task-sdk/<version> (<runtime>/<version>)`; a call's `headers: { 'user-agent': … }` replaces it.
 */
export function userAgent(): string {
  const runtime = detectRuntime();
  return `delivery-task-sdk/${VERSION} (${runtime.name}/${runtime.version})`;
}

/** Configuration of a `Transport` (`http.ts`); resolved and checked by `DeliveryClient`. */
export interface TransportConfig {
  baseUrl: string;
  apiKey: string;
  sellerId: string;
  fetch: typeof globalThis.fetch;
  /** `fetch` is the caller's `fetch` option. */
  callerFetch: boolean;
  timeout: number;
  maxRetries: number;
  totalTimeout: number | undefined;
  /** Decoded bytes. */
  maxResponseBytes: number;
  logger: LevelLogger;
  redactor: Redactor;
}
