/**
 * The request pipeline every resource method goes through: URL and auth headers (ky), one deadline
 * per attempt covering headers and body, the caller's signal and an optional total deadline,
 * retries by operation policy, redirects kept on the configured origin, typed errors with secrets
 * redacted, and debug logging.
 */
import ky, { type KyInstance } from 'ky';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  type DeliveryError,
  RequestValidationError,
  ResponseValidationError,
  type ValidationIssue,
} from '../errors.js';
import { DeadlineReason, deadline, raceAbort, sleep } from './abort.js';
import { parseJsonBody } from './json.js';
import type { LevelLogger } from './logger.js';
import { MAX_TIMER_MS } from './options.js';
import type { Redactor } from './redact.js';
import { RETRYABLE_STATUSES, retryDelayMs } from './retry.js';

/** Options every method accepts as its last argument. */
export interface RequestOptions {
  /** Cancels the call, including any wait between retries. The call then rejects with `APIUserAbortError`. */
  signal?: AbortSignal;
  /** Per-attempt timeout in ms, covering the response headers and the whole body. Default: the client's `timeout` (30 000 ms). */
  timeout?: number;
  /** Retries after the first attempt, for operations that are safe to repeat. Default: the client's `maxRetries` (2). */
  maxRetries?: number;
  /** Deadline for the whole call in ms, retries and waits included. Default: the client's `totalTimeout` (none). */
  totalTimeout?: number;
  /** Extra request headers. They cannot replace `Authorization` or `x-seller-id`. */
  headers?: Record<string, string>;
}

/** Whether an operation may be sent again after a failure (design § Reliability). */
export type RetryPolicy = 'idempotent' | 'never';

/** One logical request. */
export interface HttpRequest {
  /** SDK operation name, e.g. `tasks.retrieve`; appears in logs and decides error classes. */
  operation: string;
  method: 'GET' | 'POST';
  /** Path relative to the base URL, without a leading slash (`tasks/abc`). */
  path: string;
  query?: Record<string, string>;
  /** JSON body. */
  body?: unknown;
  retry: RetryPolicy;
}

/** A 2xx response with its parsed JSON body. */
export interface HttpResponse {
  status: number;
  headers: Headers;
  body: unknown;
  method: string;
  url: string;
  /** Attempts made, the first included. */
  attempts: number;
}

/** Configuration of a {@link Transport}; resolved and checked by `DeliveryClient`. */
export interface TransportConfig {
  /** Base URL ending with a slash. */
  baseUrl: string;
  apiKey: string;
  sellerId: string;
  fetch: typeof globalThis.fetch;
  timeout: number;
  maxRetries: number;
  totalTimeout: number | undefined;
  logger: LevelLogger;
  redactor: Redactor;
}

const MAX_REDIRECTS = 5;

/** System error codes that prove the request never reached the server. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_INVALID_URL',
]);

/** The first system error code (`ECONNREFUSED`, …) along an error's cause chain. */
export function systemErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && typeof current === 'object' && current !== null; depth++) {
    const { code, errors, cause } = current as { code?: unknown; errors?: unknown; cause?: unknown };
    if (typeof code === 'string') return code;
    if (Array.isArray(errors) && errors.length > 0) {
      const nested = systemErrorCode(errors[0]);
      if (nested) return nested;
    }
    current = cause;
  }
  return undefined;
}

/** True when a connection error proves the request never reached the server (safe to send again). */
export function provablyNotSent(error: unknown): boolean {
  if (!(error instanceof APIConnectionError) || error instanceof APIConnectionTimeoutError) return false;
  const code = error.code;
  return (
    code !== undefined &&
    (NOT_SENT_CODES.has(code) || /^(ERR_TLS|CERT_|UNABLE_TO_VERIFY|DEPTH_ZERO|SELF_SIGNED)/.test(code))
  );
}

/** True for a failure worth another attempt of an idempotent operation. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof APIError) return RETRYABLE_STATUSES.has(error.status);
  return error instanceof APIConnectionError;
}

/** ky's wrapper errors hold the request (with its auth headers); keep only the underlying cause. */
function underlyingCause(error: unknown): unknown {
  if (error instanceof Error && error.name === 'NetworkError' && 'request' in error) return error.cause;
  return error;
}

/**
 * Checks per-call options.
 * @throws {RequestValidationError} naming each bad option; nothing is sent.
 */
function checkRequestOptions(operation: string, options: RequestOptions): void {
  const issues: ValidationIssue[] = [];
  const integer = (name: 'timeout' | 'maxRetries' | 'totalTimeout', min: number, max: number) => {
    const value = options[name];
    if (value !== undefined && (!Number.isInteger(value) || value < min || value > max)) {
      issues.push({
        path: `options.${name}`,
        message: `Expected an integer from ${min} to ${max}`,
        code: 'invalid_option',
      });
    }
  };
  integer('timeout', 1, MAX_TIMER_MS);
  integer('totalTimeout', 1, MAX_TIMER_MS);
  integer('maxRetries', 0, 10);
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    issues.push({ path: 'options.signal', message: 'Expected an AbortSignal', code: 'invalid_option' });
  }
  if (issues.length > 0) throw new RequestValidationError(operation, issues);
}

/** Sends requests for one client. */
export class Transport {
  readonly #config: TransportConfig;
  readonly #ky: KyInstance;

  constructor(config: TransportConfig) {
    this.#config = config;
    this.#ky = ky.create({
      baseUrl: config.baseUrl,
      fetch: config.fetch,
      timeout: false,
      retry: 0,
      throwHttpErrors: false,
      redirect: 'manual',
    });
  }

  /** The base URL requests are resolved against (ends with `/`). */
  get baseUrl(): string {
    return this.#config.baseUrl;
  }

  /**
   * Sends a request, retrying by its policy, and returns the 2xx response with its JSON body.
   * @throws {APIError} (by status) for a non-2xx answer after the retries allowed.
   * @throws {APIConnectionError} / {APIConnectionTimeoutError} when no complete response came.
   * @throws {APIUserAbortError} when `options.signal` aborts.
   * @throws {ResponseValidationError} for a 2xx whose body is not JSON.
   */
  async send(request: HttpRequest, options: RequestOptions = {}): Promise<HttpResponse> {
    checkRequestOptions(request.operation, options);
    const maxRetries = request.retry === 'never' ? 0 : (options.maxRetries ?? this.#config.maxRetries);
    const timeout = options.timeout ?? this.#config.timeout;
    const totalTimeout = options.totalTimeout ?? this.#config.totalTimeout;
    const total = totalTimeout === undefined ? undefined : deadline(totalTimeout, 'total');
    const signals = [options.signal, total?.signal].filter((signal): signal is AbortSignal => signal !== undefined);
    const outer = signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
    const headers = this.#headers(request.operation, options.headers);
    const url = new URL(request.path, this.#config.baseUrl);
    if (request.query) for (const [name, value] of Object.entries(request.query)) url.searchParams.set(name, value);
    try {
      for (let attempt = 1; ; attempt++) {
        let failure: DeliveryError;
        try {
          return await this.#attempt(request, url, headers, options.signal, timeout, outer, attempt);
        } catch (error) {
          failure = error as DeliveryError;
        }
        if (attempt > maxRetries || !isRetryable(failure)) throw failure;
        const wait = retryDelayMs(attempt, failure instanceof APIError ? failure.headers : undefined);
        this.#config.logger.warn(
          `Retrying ${request.method} ${url.pathname} in ${wait} ms (retry ${attempt} of ${maxRetries}) after: ${failure.message}`,
        );
        try {
          await sleep(wait, outer);
        } catch (reason) {
          throw this.#failure(request.method, url, reason, options.signal, attempt);
        }
      }
    } finally {
      total?.clear();
    }
  }

  /**
   * Request headers: the caller's extras, then `accept` and both auth headers (which extras cannot replace).
   * @throws {RequestValidationError} for a header name or value fetch would refuse.
   */
  #headers(operation: string, extra: Record<string, string> | undefined): Headers {
    let headers: Headers;
    try {
      headers = new Headers(extra);
    } catch (error) {
      const message = error instanceof Error ? error.message : 'invalid header';
      throw new RequestValidationError(operation, [{ path: 'options.headers', message, code: 'invalid_header' }]);
    }
    headers.set('accept', 'application/json');
    headers.set('authorization', `apikey ${this.#config.apiKey}`);
    headers.set('x-seller-id', this.#config.sellerId);
    return headers;
  }

  /** The typed error for a request that got no response: the caller's abort, a deadline, or the network. */
  #failure(
    method: string,
    url: URL,
    reason: unknown,
    callerSignal: AbortSignal | undefined,
    attempts: number,
  ): DeliveryError {
    if (callerSignal?.aborted) return new APIUserAbortError({ method, url: url.href, cause: callerSignal.reason });
    if (reason instanceof DeadlineReason) {
      return new APIConnectionTimeoutError({ method, url: url.href, attempts, timeoutMs: reason.ms });
    }
    return new APIConnectionError({
      method,
      url: url.href,
      attempts,
      cause: underlyingCause(reason),
      code: systemErrorCode(reason),
    });
  }

  async #attempt(
    request: HttpRequest,
    initialUrl: URL,
    headers: Headers,
    callerSignal: AbortSignal | undefined,
    timeout: number,
    outer: AbortSignal | undefined,
    attempt: number,
  ): Promise<HttpResponse> {
    const { logger, redactor } = this.#config;
    const limit = deadline(timeout, 'attempt');
    const signal = outer ? AbortSignal.any([limit.signal, outer]) : limit.signal;
    const started = performance.now();
    let url = initialUrl;
    let method: string = request.method;
    let body = request.body;
    try {
      for (let redirects = 0; ; redirects++) {
        if (logger.enabled('debug')) {
          logger.debug(`→ ${method} ${url.href} (attempt ${attempt})`, {
            operation: request.operation,
            headers: redactor.headersObject(headers),
            body,
          });
        }
        let response: Response;
        let text: string;
        try {
          response = await this.#ky(url, {
            method,
            signal,
            headers,
            ...(body === undefined ? {} : { json: body }),
          });
          const received = response;
          text = await raceAbort(received.text(), signal).catch((error: unknown) => {
            received.body?.cancel().catch(() => {});
            throw error;
          });
        } catch (error) {
          if (signal.aborted) throw this.#failure(method, url, signal.reason, callerSignal, attempt);
          throw this.#failure(method, url, error, callerSignal, attempt);
        }
        const elapsed = Math.round(performance.now() - started);
        const parsed = parseJsonBody(text);
        if (logger.enabled('debug')) {
          logger.debug(`← ${response.status} ${method} ${url.href} (${elapsed} ms)`, {
            headers: redactor.headersObject(response.headers),
            body: parsed.ok ? parsed.value : text.slice(0, 2000),
          });
        }
        const { status } = response;
        if (status >= 300 && status < 400 && response.headers.has('location')) {
          const target = new URL(response.headers.get('location') ?? '', url);
          const keepsMethod = status === 307 || status === 308;
          if (target.origin !== initialUrl.origin || redirects >= MAX_REDIRECTS || (!keepsMethod && method !== 'GET')) {
            logger.warn(
              `Not following a ${status} redirect of ${method} ${url.pathname} to ${target.origin}${target.pathname}`,
            );
            throw this.#apiError(request, method, url, response, parsed.ok ? parsed.value : text);
          }
          url = target;
          if (!keepsMethod) {
            method = 'GET';
            body = undefined;
          }
          continue;
        }
        if (status < 200 || status >= 300) {
          throw this.#apiError(request, method, url, response, parsed.ok ? parsed.value : text);
        }
        if (!parsed.ok) {
          throw new ResponseValidationError({
            method,
            url: url.href,
            status,
            issues: [{ path: '', message: `Response body is not JSON (${parsed.reason})`, code: 'invalid_json' }],
            body: redactor.text(text.slice(0, 2000)),
          });
        }
        return { status, headers: response.headers, body: parsed.value, method, url: url.href, attempts: attempt };
      }
    } finally {
      limit.clear();
    }
  }

  #apiError(request: HttpRequest, method: string, url: URL, response: Response, body: unknown): APIError {
    const { redactor } = this.#config;
    return APIError.generate({
      status: response.status,
      headers: redactor.headers(response.headers),
      body: redactor.value(body),
      method,
      url: url.href,
      operation: request.operation,
      redact: redactor.text,
    });
  }
}
