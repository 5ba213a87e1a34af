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
  type ValidationIssue,
} from '../core/errors.js';
import type { OperationName } from '../core/operations.js';
import type { RequestOptions } from '../core/options.js';
import { VERSION } from '../core/version.js';
import type { RetryPolicy } from '../schemas/retry-policy.js';
import { DeadlineReason, deadline, sleep } from './abort.js';
import { readBodyText } from './body.js';
import { detectRuntime } from './env.js';
import { isRetryable, systemErrorCode } from './failure.js';
import { headerIssues } from './headers.js';
import { parseJsonBody } from './json.js';
import type { LevelLogger } from './logger.js';
import { MAX_TIMER_MS } from './options.js';
import type { Redactor } from './redact.js';
import { retryDelayMs } from './retry.js';
import { recordFailure, SpanKind, startSpan, type TraceSpan } from './tracing.js';

/**
 * The `User-Agent` every request carries: `delivery-task-sdk/<version> (<runtime>/<version>)`, for
 * example `delivery-task-sdk/0.1.0 (node/24.1.0)`. A call's `headers: { 'user-agent': … }` replaces it.
 */
export function userAgent(): string {
  const runtime = detectRuntime();
  return `delivery-task-sdk/${VERSION} (${runtime.name}/${runtime.version})`;
}

/** One logical request. */
export interface HttpRequest {
  /** The table's operation (`tasks.retrieve`): the span's name; appears in logs and decides error classes. */
  operation: OperationName;
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

/** Longest value of one query parameter (`search`, `sortBy`, …) sent, in characters. */
export const MAX_QUERY_VALUE_LENGTH = 4096;

/** undici's code for a request it refuses before sending anything (an argument it cannot put on the wire). */
const REFUSED_BEFORE_SENDING = 'UND_ERR_INVALID_ARG';

/** The option that carries an attempt's signal through ky to fetch (ky passes options it does not know on). */
const ATTEMPT_SIGNAL = 'deliveryAttemptSignal';

/** What ky hands the client's fetch: the options it does not know, ours among them. */
interface AttemptInit extends RequestInit {
  [ATTEMPT_SIGNAL]: AbortSignal;
}

/** ky's wrapper errors hold the request (with its auth headers); keep only the underlying cause. */
function underlyingCause(error: unknown): unknown {
  if (error instanceof Error && error.name === 'NetworkError' && 'request' in error) return error.cause;
  return error;
}

/**
 * Checks per-call options (`timeout`, `totalTimeout`, `maxRetries`, `signal`), after the caller's own
 * (`issues` it found already, such as `tasks.list`'s walk options).
 * @throws {RequestValidationError} naming each bad option; nothing is sent.
 */
export function checkRequestOptions(operation: string, options: RequestOptions, issues: ValidationIssue[] = []): void {
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

/**
 * Refuses a query value longer than {@link MAX_QUERY_VALUE_LENGTH}: building, logging and redacting a URL
 * of megabytes blocks the event loop for a tenth of a second, and servers refuse such URLs anyway (431).
 * @throws {RequestValidationError} naming the parameter (`search`, `sortBy`, …); nothing is sent.
 */
function checkQuery(operation: string, query: Record<string, string>): void {
  const issues: ValidationIssue[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (value.length > MAX_QUERY_VALUE_LENGTH) {
      issues.push({
        path: name,
        message: `At most ${MAX_QUERY_VALUE_LENGTH} characters, got ${value.length}`,
        code: 'too_big',
      });
    }
  }
  if (issues.length > 0) throw new RequestValidationError(operation, issues);
}

/**
 * True for a request fetch refused before sending anything: undici's `UND_ERR_INVALID_ARG` along the
 * cause chain, or the `TypeError` of `Headers` for a header name or value it cannot carry (thrown, say,
 * by a caller's `fetch` that builds a `Request`). A browser's network failure is a `TypeError` too, but
 * with another message ("Failed to fetch"), so it stays a connection error.
 */
function refusedBeforeSending(error: unknown): boolean {
  if (systemErrorCode(error) === REFUSED_BEFORE_SENDING) return true;
  const cause = underlyingCause(error);
  return cause instanceof TypeError && HEADERS_REFUSAL.test(cause.message);
}

/** The messages of `Headers` refusing a name or value (undici, browsers' "not a valid HTTP header"). */
const HEADERS_REFUSAL = /invalid header (?:name|value)|not a valid HTTP header|convert argument to a ByteString/i;

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
   * Sends a request, retrying by its policy, and returns the 2xx response with its JSON body. Every
   * failure is a {@link DeliveryError}, with the client's secrets removed from every field.
   * @throws {APIError} (by status) for a non-2xx answer after the retries allowed, and for a redirect
   * that is not followed (another origin, too many, or an unreadable `Location`).
   * @throws {APIConnectionError} / {APIConnectionTimeoutError} when no complete response came.
   * @throws {APIUserAbortError} when `options.signal` aborts.
   * @throws {ResponseTooLargeError} for a body over `maxResponseBytes` (decoded).
   * @throws {ResponseValidationError} for a 2xx whose body is not JSON, and for any answer whose JSON
   * nests deeper than 64 levels.
   */
  async send(
    request: HttpRequest,
    options: RequestOptions = NO_OPTIONS,
    callSpan?: TraceSpan | undefined,
  ): Promise<HttpResponse> {
    // One CLIENT span per call when a tracer provider is registered; a call made of several requests
    // (`tasks.create`) passes its own span, and its requests' retries become events on it.
    const own =
      callSpan === undefined
        ? startSpan(request.operation, SpanKind.CLIENT, () => ({
            'http.request.method': request.method,
            'url.template': request.urlTemplate ?? request.path,
            'server.address': this.#server.address,
            'server.port': this.#server.port,
            'delivery.retry_count': 0,
          }))
        : undefined;
    const span = own ?? callSpan;
    try {
      const response = await this.#send(request, options, span);
      if (request.read !== undefined) response.body = request.read(response, span);
      if (own !== undefined) {
        own.setAttribute('http.response.status_code', response.status);
        own.setAttribute('delivery.retry_count', response.attempts - 1);
      }
      return response;
    } catch (error) {
      // The one exit of every failure: secrets leave message, stack, url, body and the cause chain here.
      const failure = this.#config.redactor.error(
        error instanceof DeliveryError
          ? error
          : new DeliveryError(`Unexpected failure: ${request.method} ${request.path}`, { cause: error }),
      );
      if (own !== undefined) {
        if (failure instanceof APIError && failure.status !== undefined) {
          own.setAttribute('http.response.status_code', failure.status);
        }
        own.setAttribute('error.type', failure.name);
        recordFailure(own, failure);
      }
      throw failure;
    } finally {
      own?.end();
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
