/**
 * The request pipeline every resource method goes through: URL and auth headers (ky), one deadline
 * per attempt covering headers and body, the caller's signal and an optional total deadline,
 * retries by operation policy, redirects kept on the configured origin, typed errors with secrets
 * redacted, and debug logging.
 */
import ky, { type KyInstance, type Options } from 'ky';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  DeliveryError,
  RequestValidationError,
  ResponseTooLargeError,
  ResponseValidationError,
} from '../core/errors.js';
import type { RequestOptions } from '../core/options.js';
import { VERSION } from '../core/version.js';
import { DeadlineReason, deadline, sleep } from './abort.js';
import { readBodyText } from './body.js';
import { detectRuntime } from './env.js';
import { isRetryable, systemErrorCode } from './failure.js';
import { headerIssues } from './headers.js';
import { parseJsonBody } from './json.js';
import type { LevelLogger } from './logger.js';
import type { Redactor } from './redact.js';
import { checkQuery, checkRequestOptions, refusedBeforeSending, underlyingCause } from './request-checks.js';
import { retryDelayMs } from './retry.js';
import { recordFailure, type SpanAttributes, SpanKind, startSpan, type TraceSpan } from './tracing.js';

/**
 * The `User-Agent` every request carries: `delivery-task-sdk/<version> (<runtime>/<version>)`, for
 * example `delivery-task-sdk/0.1.0 (node/24.1.0)`. A call's `headers: { 'user-agent': … }` replaces it.
 */
export function userAgent(): string {
  const runtime = detectRuntime();
  return `delivery-task-sdk/${VERSION} (${runtime.name}/${runtime.version})`;
}

/** Whether an operation may be sent again after a failure. */
export type RetryPolicy = 'idempotent' | 'never';

/** One logical request. */
export interface HttpRequest {
  /** SDK operation name, e.g. `tasks.retrieve`; appears in logs and decides error classes. */
  operation: string;
  method: 'GET' | 'POST';
  /** Path relative to the base URL, without a leading slash (`tasks/abc`). */
  path: string;
  /** The operation's URL template (`/tasks/{id}`), for spans: ids never appear in span attributes. */
  urlTemplate?: string;
  query?: Record<string, string>;
  /** JSON body. */
  body?: unknown;
  retry: RetryPolicy;
  /** Called each time the service answers 429, before any retry (a list walk halves its concurrency). */
  onRateLimited?: (() => void) | undefined;
  /**
   * Reads the 2xx body (schema check, tolerant reading) while the call's span is open, so drift is an
   * event on it and a `ResponseValidationError` leaves through the same redaction as every failure.
   * What it returns becomes the response's `body`.
   */
  read?: ((response: HttpResponse, span: TraceSpan | undefined) => unknown) | undefined;
}

/** A 2xx response with its parsed JSON body. */
export interface HttpResponse {
  status: number;
  headers: Headers;
  body: unknown;
  method: string;
  /** The URL answered, secrets redacted (worked out when first read: most calls never read it). */
  readonly url: string;
  /** Attempts made, the first included. */
  attempts: number;
  /** The body's text as received (decoded: after gzip, deflate or brotli), for `asResponse()`. */
  text: string;
}

/** A call traced as one span (see `Transport.trace`), and the requests sent under it. */
export interface TracedCall {
  readonly span: TraceSpan | undefined;
  /** The event each request of the call is recorded as. */
  readonly eventOf: (request: HttpRequest) => string;
  /** Requests sent so far. */
  requests: number;
  /** The last 2xx response. */
  answered: HttpResponse | undefined;
}

/** How {@link Transport.trace} records a call. */
export interface CallTraceOptions<T> {
  /** Set at the start, beside method, URL template and server. */
  readonly attributes?: SpanAttributes;
  readonly eventOf: (request: HttpRequest) => string;
  /** The status of the answer the value came from, and the retries made. */
  readonly outcome: (value: T, call: TracedCall) => { status: number | undefined; retries: number };
}

/** A call of one request: retries are events of the transport's own. */
const SINGLE_REQUEST: CallTraceOptions<HttpResponse> = {
  eventOf: (request) => request.operation,
  outcome: (response) => ({ status: response.status, retries: response.attempts - 1 }),
};

/** Per-call options when the caller gives none: shared, so the common call checks nothing. */
const NO_OPTIONS: RequestOptions = Object.freeze({});

/** Configuration of a {@link Transport}; resolved and checked by `DeliveryClient`. */
export interface TransportConfig {
  /** Base URL ending with a slash. */
  baseUrl: string;
  apiKey: string;
  sellerId: string;
  fetch: typeof globalThis.fetch;
  /** `fetch` is the caller's own (the `fetch` option), not the global one. */
  callerFetch: boolean;
  timeout: number;
  maxRetries: number;
  totalTimeout: number | undefined;
  /** Largest response body read, in decoded bytes. */
  maxResponseBytes: number;
  logger: LevelLogger;
  redactor: Redactor;
}

const MAX_REDIRECTS = 5;

/** The option that carries an attempt's signal through ky to fetch (ky passes options it does not know on). */
const ATTEMPT_SIGNAL = 'deliveryAttemptSignal';

/** What ky hands the client's fetch: the options it does not know, ours among them. */
interface AttemptInit extends RequestInit {
  [ATTEMPT_SIGNAL]: AbortSignal;
}

/** Sends requests for one client. */
export class Transport {
  readonly #config: TransportConfig;
  readonly #ky: KyInstance;
  /** `server.address` and `server.port` of spans. */
  readonly #server: { address: string; port: number };

  constructor(config: TransportConfig) {
    this.#config = config;
    const base = new URL(config.baseUrl);
    this.#server = {
      address: base.hostname,
      port: base.port === '' ? (base.protocol === 'https:' ? 443 : 80) : Number(base.port),
    };
    // Everything that does not change between calls is set once here, so a call passes only its method
    // and signal (ky merges per-call options into these on every request).
    this.#ky = ky.create({
      baseUrl: config.baseUrl,
      // With the global fetch, the attempt's signal reaches it as `init.signal`, through an option ky does
      // not know (ky hands those to fetch as they are): given as ky's own `signal`, ky would combine it
      // with its internal one through `AbortSignal.any` on every request (about 10 µs a call, the
      // largest item of the SDK's own in a profile). A caller's fetch gets it on the Request, where any
      // fetch wrapper looks.
      fetch: config.callerFetch
        ? config.fetch
        : (request, init) => config.fetch(request, { signal: (init as AttemptInit)[ATTEMPT_SIGNAL] }),
      timeout: false,
      retry: 0,
      throwHttpErrors: false,
      redirect: 'manual',
      headers: this.#authHeaders(new Headers({ 'user-agent': userAgent() })),
    });
  }

  /** The base URL requests are resolved against (ends with `/`). */
  get baseUrl(): string {
    return this.#config.baseUrl;
  }

  /**
   * Sends a request, retrying by its policy, and returns the 2xx response with its JSON body; its own
   * span, or an event on `call`'s. Every failure is a {@link DeliveryError} with the client's secrets removed.
   * @throws {APIError} (by status) for a non-2xx answer after the retries allowed, and for a redirect
   * not followed (another origin, too many, an unreadable `Location`).
   * @throws {APIConnectionError} / {APIConnectionTimeoutError} when no complete response came.
   * @throws {APIUserAbortError} when `options.signal` aborts.
   * @throws {ResponseTooLargeError} for a body over `maxResponseBytes` (decoded).
   * @throws {ResponseValidationError} for a 2xx whose body is not JSON, and for JSON nested over 64 levels.
   */
  send(request: HttpRequest, options: RequestOptions = NO_OPTIONS, call?: TracedCall): Promise<HttpResponse> {
    if (call !== undefined) return this.#inCall(request, options, call);
    return this.trace(request, SINGLE_REQUEST, (own) => this.#redacted(request, options, own.span));
  }

  /**
   * Runs `work` as one call: a CLIENT span named by the operation (when a tracer provider is registered),
   * the requests `work` sends with `send(…, call)` events on it. The answer's status and the retries
   * come from `trace.outcome`; a failure sets `error.type`, its status, and the exception.
   */
  async trace<T>(
    request: Pick<HttpRequest, 'operation' | 'method' | 'path' | 'urlTemplate'>,
    trace: CallTraceOptions<T>,
    work: (call: TracedCall) => Promise<T>,
  ): Promise<T> {
    const span = startSpan(request.operation, SpanKind.CLIENT, () => ({
      'http.request.method': request.method,
      'url.template': request.urlTemplate ?? request.path,
      'server.address': this.#server.address,
      'server.port': this.#server.port,
      'delivery.retry_count': 0,
      ...trace.attributes,
    }));
    const call: TracedCall = { span, eventOf: trace.eventOf, requests: 0, answered: undefined };
    if (span === undefined) return work(call);
    try {
      const value = await work(call);
      const { status, retries } = trace.outcome(value, call);
      if (status !== undefined) span.setAttribute('http.response.status_code', status);
      span.setAttribute('delivery.retry_count', retries);
      return value;
    } catch (error) {
      if (error instanceof APIError && error.status !== undefined) {
        span.setAttribute('http.response.status_code', error.status);
      }
      span.setAttribute('error.type', error instanceof Error ? error.name : 'Error');
      recordFailure(span, error);
      throw error;
    } finally {
      span.end();
    }
  }

  /** One request of a traced call: an event on its span. */
  async #inCall(request: HttpRequest, options: RequestOptions, call: TracedCall): Promise<HttpResponse> {
    const number = ++call.requests;
    const event = (outcome: SpanAttributes) =>
      call.span?.addEvent(call.eventOf(request), {
        'delivery.operation': request.operation,
        'delivery.request_number': number,
        ...outcome,
      });
    try {
      const response = await this.#redacted(request, options, call.span);
      call.answered = response;
      event({ 'http.response.status_code': response.status });
      return response;
    } catch (error) {
      event({ 'error.type': error instanceof Error ? error.name : 'Error' });
      throw error;
    }
  }

  /** The one exit of every failure: secrets leave message, stack, url, body and the cause chain here. */
  async #redacted(request: HttpRequest, options: RequestOptions, span: TraceSpan | undefined): Promise<HttpResponse> {
    try {
      const response = await this.#send(request, options, span);
      if (request.read !== undefined) response.body = request.read(response, span);
      return response;
    } catch (error) {
      throw this.#config.redactor.error(
        error instanceof DeliveryError
          ? error
          : new DeliveryError(`Unexpected failure: ${request.method} ${request.path}`, { cause: error }),
      );
    }
  }

  async #send(request: HttpRequest, options: RequestOptions, span: TraceSpan | undefined): Promise<HttpResponse> {
    if (options !== NO_OPTIONS) checkRequestOptions(request.operation, options);
    const maxRetries = request.retry === 'never' ? 0 : (options.maxRetries ?? this.#config.maxRetries);
    const timeout = options.timeout ?? this.#config.timeout;
    const totalTimeout = options.totalTimeout ?? this.#config.totalTimeout;
    // The caller's signal and the total deadline, as one signal: every attempt and wait follows it.
    const total = totalTimeout === undefined ? undefined : deadline(totalTimeout, 'total', options.signal);
    const outer = total?.signal ?? options.signal;
    const headers = options.headers === undefined ? undefined : this.#headers(request.operation, options.headers);
    if (request.query) checkQuery(request.operation, request.query);
    const url = new URL(request.path, this.#config.baseUrl);
    if (request.query) for (const [name, value] of Object.entries(request.query)) url.searchParams.set(name, value);
    try {
      for (let attempt = 1; ; attempt++) {
        let failure: DeliveryError;
        try {
          return await this.#attempt(request, url, headers, options.signal, timeout, outer, attempt);
        } catch (error) {
          failure = this.#typed(request.method, url, error, attempt);
        }
        if (failure instanceof APIError && failure.status === 429) request.onRateLimited?.();
        if (attempt > maxRetries || !isRetryable(failure)) throw failure;
        const wait = retryDelayMs(attempt, failure instanceof APIError ? failure.headers : undefined);
        this.#config.logger.warn(
          `Retrying ${request.method} ${url.pathname} in ${wait} ms (retry ${attempt} of ${maxRetries}) after: ${failure.message}`,
        );
        if (span !== undefined) {
          span.addEvent('delivery.retry', {
            'delivery.operation': request.operation,
            'delivery.retry_count': attempt,
            'delivery.retry_delay_ms': wait,
            'error.type': failure.name,
            ...(failure instanceof APIError && failure.status !== undefined
              ? { 'http.response.status_code': failure.status }
              : {}),
          });
          span.setAttribute('delivery.retry_count', attempt);
        }
        try {
          await sleep(wait, outer);
        } catch (reason) {
          throw this.#failure(request, request.method, url, reason, options.signal, attempt);
        }
      }
    } finally {
      total?.clear();
    }
  }

  /**
   * Request headers: the caller's extras, then `accept` and both auth headers (which extras cannot replace).
   * A `user-agent` among the extras replaces the SDK's (set on the ky instance, which merges these over it).
   * @throws {RequestValidationError} naming each header whose name or value fetch would refuse (a control
   * character, DEL, a character past U+00FF), and for more or longer headers than the bounds of
   * `internal/headers.ts` (64 headers, names of 256 and values of 8192 characters).
   */
  #headers(operation: string, extra: Record<string, string>): Headers {
    const issues = headerIssues(extra);
    if (issues.length > 0) throw new RequestValidationError(operation, issues);
    let headers: Headers;
    try {
      headers = new Headers(extra);
    } catch (error) {
      const message = error instanceof Error ? error.message : 'invalid header';
      throw new RequestValidationError(operation, [{ path: 'options.headers', message, code: 'invalid_header' }]);
    }
    return this.#authHeaders(headers);
  }

  /** Sets `accept` and both auth headers on `headers` (over any the caller gave) and returns it. */
  #authHeaders(headers: Headers): Headers {
    headers.set('accept', 'application/json');
    headers.set('authorization', `apikey ${this.#config.apiKey}`);
    headers.set('x-seller-id', this.#config.sellerId);
    return headers;
  }

  /**
   * The typed error for a request fetch refused before sending it (undici's `UND_ERR_INVALID_ARG`, such as
   * a header a caller's `fetch` added with a control character): nothing left, and sending it again would
   * be refused the same way, so it is a {@link RequestValidationError} (never retried; a create is not
   * reconciled and never ends "outcome unknown").
   */
  #refused(operation: string, error: unknown): RequestValidationError {
    // The message of the link that carries the code (`invalid x-trace header`), not fetch's "fetch failed".
    let link: unknown = error;
    for (
      let depth = 0;
      depth < 6 && link instanceof Error && (link as { code?: unknown }).code === undefined;
      depth++
    ) {
      link = link.cause;
    }
    const message = link instanceof Error ? link.message : 'invalid argument';
    return new RequestValidationError(operation, [
      {
        path: 'options.headers',
        message: `fetch refused the request before sending it (${this.#config.redactor.text(message).slice(0, 200)})`,
        code: 'not_sendable',
      },
    ]);
  }

  /** The typed error for a request that got no response: the caller's abort, a deadline, or the network. */
  #failure(
    request: HttpRequest,
    method: string,
    url: URL,
    reason: unknown,
    callerSignal: AbortSignal | undefined,
    attempts: number,
  ): DeliveryError {
    const shownUrl = this.#config.redactor.text(url.href);
    if (callerSignal?.aborted) return new APIUserAbortError({ method, url: shownUrl, cause: callerSignal.reason });
    const { urlTemplate } = request;
    if (reason instanceof DeadlineReason) {
      return new APIConnectionTimeoutError({ method, url: shownUrl, urlTemplate, attempts, timeoutMs: reason.ms });
    }
    return new APIConnectionError({
      method,
      url: shownUrl,
      urlTemplate,
      attempts,
      cause: underlyingCause(reason),
      code: systemErrorCode(reason),
    });
  }

  /** Any failure of an attempt as a {@link DeliveryError}: SDK errors as they are, anything else wrapped. */
  #typed(method: string, url: URL, error: unknown, attempts: number): DeliveryError {
    if (error instanceof DeliveryError) return error;
    return new DeliveryError(
      `Unexpected failure: ${method} ${this.#config.redactor.text(url.pathname)} (attempt ${attempts}): ${
        error instanceof Error
          ? `${error.name}: ${this.#config.redactor.text(error.message)}`
          : 'a non-error was thrown'
      }`,
      { cause: error },
    );
  }

  /** One attempt: the request, then redirects on the same origin, then the body under the size cap. */
  async #attempt(
    request: HttpRequest,
    initialUrl: URL,
    headers: Headers | undefined,
    callerSignal: AbortSignal | undefined,
    timeout: number,
    outer: AbortSignal | undefined,
    attempt: number,
  ): Promise<HttpResponse> {
    const { logger, redactor, maxResponseBytes } = this.#config;
    const limit = deadline(timeout, 'attempt', outer);
    const { signal } = limit;
    const started = performance.now();
    let url = initialUrl;
    let method: string = request.method;
    let body = request.body;
    try {
      for (let redirects = 0; ; redirects++) {
        if (logger.enabled('debug')) {
          logger.debug(`→ ${method} ${url.href} (attempt ${attempt})`, {
            operation: request.operation,
            headers: redactor.headersObject(headers ?? this.#authHeaders(new Headers())),
            body,
          });
        }
        let response: Response;
        let read: Awaited<ReturnType<typeof readBodyText>>;
        try {
          const init: Options & Partial<AttemptInit> = this.#config.callerFetch
            ? { method, signal }
            : { method, [ATTEMPT_SIGNAL]: signal };
          if (headers !== undefined) init.headers = headers;
          if (body !== undefined) init.json = body;
          response = await this.#ky(url, init);
          read = await readBodyText(response, maxResponseBytes, signal);
        } catch (error) {
          if (!signal.aborted && refusedBeforeSending(error)) {
            throw this.#refused(request.operation, error);
          }
          throw this.#failure(request, method, url, signal.aborted ? signal.reason : error, callerSignal, attempt);
        }
        const { status } = response;
        const shownUrl = () => redactor.text(url.href);
        if (!read.complete) {
          logger.warn(
            `${method} ${redactor.text(url.pathname)} (${status}): body over ${maxResponseBytes} bytes, not read`,
          );
          throw new ResponseTooLargeError({ method, url: shownUrl(), status, maxBytes: maxResponseBytes });
        }
        const { text } = read;
        const parsed = parseJsonBody(text);
        if (logger.enabled('debug')) {
          logger.debug(`← ${status} ${method} ${url.href} (${Math.round(performance.now() - started)} ms)`, {
            headers: redactor.headersObject(response.headers),
            body: parsed.ok ? parsed.value : redactor.excerpt(text, 2000),
          });
        }
        if (!parsed.ok && (parsed.tooDeep || (status >= 200 && status < 300))) {
          throw new ResponseValidationError({
            method,
            url: shownUrl(),
            status,
            issues: [
              {
                path: '',
                message: `Response body is not JSON (${parsed.reason})`,
                code: parsed.tooDeep ? 'too_deep' : 'invalid_json',
              },
            ],
            body: redactor.excerpt(text, 2000),
          });
        }
        const value = parsed.ok ? parsed.value : text;
        if (status >= 300 && status < 400 && response.headers.has('location')) {
          const target = this.#redirectTarget(response.headers.get('location') ?? '', url, initialUrl);
          const keepsMethod = status === 307 || status === 308;
          if (target === undefined || redirects >= MAX_REDIRECTS || (!keepsMethod && method !== 'GET')) {
            logger.warn(`Not following a ${status} redirect of ${method} ${redactor.text(url.pathname)}`);
            throw this.#apiError(request, method, url, response, value);
          }
          url = target;
          if (!keepsMethod) {
            method = 'GET';
            body = undefined;
          }
          continue;
        }
        if (status < 200 || status >= 300) throw this.#apiError(request, method, url, response, value);
        const answered = url.href;
        return {
          status,
          headers: response.headers,
          body: value,
          method,
          get url() {
            return redactor.text(answered);
          },
          attempts: attempt,
          text,
        };
      }
    } finally {
      limit.clear();
    }
  }

  /** Where a redirect leads, when it may be followed: an http(s) URL on the configured origin. */
  #redirectTarget(location: string, from: URL, initialUrl: URL): URL | undefined {
    let target: URL;
    try {
      target = new URL(location, from);
    } catch {
      return undefined;
    }
    return target.origin === initialUrl.origin ? target : undefined;
  }

  #apiError(request: HttpRequest, method: string, url: URL, response: Response, body: unknown): APIError {
    const { redactor } = this.#config;
    return APIError.generate({
      status: response.status,
      headers: redactor.headers(response.headers),
      body: redactor.value(body),
      method,
      url: redactor.text(url.href),
      operation: request.operation,
      urlTemplate: request.urlTemplate,
      redact: redactor.text,
    });
  }
}
