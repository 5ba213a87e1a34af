/**
 * The request pipeline of every resource method: auth headers (ky), a deadline per attempt and per call,
 * retries by operation policy, same-origin redirects, typed errors with secrets redacted, one span per call.
 */
import ky, { type KyInstance, type Options } from 'ky';
import {
  APIError,
  DeliveryError,
  RequestValidationError,
  ResponseTooLargeError,
  ResponseValidationError,
} from '../core/errors.js';
import type { RequestOptions } from '../core/options.js';
import { deadline, sleep } from './abort.js';
import { readBodyText } from './body.js';
import { isRetryable } from './failure.js';
import { headerIssues } from './headers.js';
import { noResponseError, refusedError, statusError, unexpectedError } from './http-failures.js';
import {
  type CallTraceOptions,
  type HttpRequest,
  type HttpResponse,
  type TracedCall,
  type TransportConfig,
  userAgent,
} from './http-request.js';
import { parseJsonBody } from './json.js';
import { checkQuery, checkRequestOptions, refusedBeforeSending } from './request-checks.js';
import { retryDelayMs } from './retry.js';
import { recordFailure, type SpanAttributes, SpanKind, startSpan, type TraceSpan } from './tracing.js';

/** A call of one request: retries are events of the transport's own. */
const SINGLE_REQUEST: CallTraceOptions<HttpResponse> = {
  outcome: (response) => response,
};

/** Shared, so the common call checks nothing. */
const NO_OPTIONS: RequestOptions = Object.freeze({});

const MAX_REDIRECTS = 5;

/** Carries an attempt's signal through ky to fetch (ky passes unknown options on). */
const ATTEMPT_SIGNAL = 'attemptSignal';

interface AttemptInit extends RequestInit {
  [ATTEMPT_SIGNAL]: AbortSignal;
}

/** Sends requests for one client. */
export class Transport {
  readonly #config: TransportConfig;
  readonly #ky: KyInstance;
  readonly #server: { address: string; port: number };

  constructor(config: TransportConfig) {
    this.#config = config;
    const base = new URL(config.baseUrl);
    this.#server = {
      address: base.hostname,
      port: base.port === '' ? (base.protocol === 'https:' ? 443 : 80) : Number(base.port),
    };
    this.#ky = ky.create({
      // As ky's own `signal`, ky would join it to its own with `AbortSignal.any` on every request.
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

  get baseUrl(): string {
    return this.#config.baseUrl;
  }

  /**
   * Sends a request, retried by its policy: the 2xx response, traced as its own span or an event of `call`'s.
   * @throws {DeliveryError} redacted: `APIError` by status (a redirect not followed too), connection,
   * timeout and abort errors, `ResponseTooLargeError`, `ResponseValidationError` (not JSON, too deep).
   */
  send(request: HttpRequest, options: RequestOptions = NO_OPTIONS, call?: TracedCall): Promise<HttpResponse> {
    if (call !== undefined) return this.#inCall(request, options, call);
    return this.trace(request, SINGLE_REQUEST, (own) => this.#redacted(request, options, own.span));
  }

  /**
   * Runs `work` as one call: a CLIENT span (with a tracer provider), its requests' `send(…, call)` events on
   * it.
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
    const call: TracedCall = { span, requests: 0, posts: 0 };
    if (span === undefined) return work(call);
    try {
      const value = await work(call);
      const { status, attempts } = trace.outcome(value, call);
      if (status !== undefined) span.setAttribute('http.response.status_code', status);
      span.setAttribute('delivery.retry_count', Math.max(0, attempts - 1));
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

  /** A request of `tasks.create`, the one call of several: its POST or a lookup, as an event. */
  async #inCall(request: HttpRequest, options: RequestOptions, call: TracedCall): Promise<HttpResponse> {
    const number = ++call.requests;
    const post = request.method === 'POST';
    if (post) call.posts++;
    let outcome: SpanAttributes = {};
    try {
      const response = await this.#redacted(request, options, call.span);
      call.answered = response;
      outcome = { 'http.response.status_code': response.status };
      return response;
    } catch (error) {
      outcome = { 'error.type': error instanceof Error ? error.name : 'Error' };
      throw error;
    } finally {
      call.span?.addEvent(post ? 'delivery.create.request' : 'delivery.reconciliation.lookup', {
        'delivery.operation': request.operation,
        'delivery.request_number': number,
        ...outcome,
      });
    }
  }

  /** The one exit of every failure: secrets leave message, stack, url, body and the cause chain here. */
  async #redacted(
    request: HttpRequest,
    options: RequestOptions,
    span: TraceSpan | undefined,
  ): Promise<HttpResponse> {
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

  async #send(
    request: HttpRequest,
    options: RequestOptions,
    span: TraceSpan | undefined,
  ): Promise<HttpResponse> {
    if (options !== NO_OPTIONS) checkRequestOptions(request.operation, options);
    const maxRetries = request.retry === 'never' ? 0 : (options.maxRetries ?? this.#config.maxRetries);
    const timeout = options.timeout ?? this.#config.timeout;
    const totalTimeout = options.totalTimeout ?? this.#config.totalTimeout;
    const total = totalTimeout === undefined ? undefined : deadline(totalTimeout, 'total', options.signal);
    const outer = total?.signal ?? options.signal;
    const headers =
      options.headers === undefined ? undefined : this.#headers(request.operation, options.headers);
    if (request.query) checkQuery(request.operation, request.query);
    const url = new URL(request.path, this.#config.baseUrl);
    if (request.query)
      for (const [name, value] of Object.entries(request.query)) url.searchParams.set(name, value);
    try {
      for (let attempt = 1; ; attempt++) {
        let failure: DeliveryError;
        try {
          return await this.#attempt(request, url, headers, options.signal, timeout, outer, attempt);
        } catch (error) {
          failure = unexpectedError(this.#config.redactor, request.method, url, error, attempt);
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
          throw noResponseError(
            this.#config.redactor,
            request,
            request.method,
            url,
            reason,
            options.signal,
            attempt,
          );
        }
      }
    } finally {
      total?.clear();
    }
  }

  /**
   * The caller's extra headers under `accept` and the auth headers, which they cannot replace.
   * @throws {RequestValidationError} naming each header fetch would refuse or over the bounds of
   * `headers.ts`.
   */
  #headers(operation: string, extra: Record<string, string>): Headers {
    const issues = headerIssues(extra);
    if (issues.length > 0) throw new RequestValidationError(operation, issues);
    let headers: Headers;
    try {
      headers = new Headers(extra);
    } catch (error) {
      const message = error instanceof Error ? error.message : 'invalid header';
      throw new RequestValidationError(operation, [
        { path: 'options.headers', message, code: 'invalid_header' },
      ]);
    }
    return this.#authHeaders(headers);
  }

  #authHeaders(headers: Headers): Headers {
    headers.set('accept', 'application/json');
    headers.set('authorization', `apikey ${this.#config.apiKey}`);
    headers.set('x-seller-id', this.#config.sellerId);
    return headers;
  }

  /** One attempt: the request, same-origin redirects, the body under the size cap. */
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
            throw refusedError(redactor, request.operation, error);
          }
          throw noResponseError(
            redactor,
            request,
            method,
            url,
            signal.aborted ? signal.reason : error,
            callerSignal,
            attempt,
          );
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
            throw statusError(redactor, request, method, url, response, value);
          }
          url = target;
          if (!keepsMethod) {
            method = 'GET';
            body = undefined;
          }
          continue;
        }
        if (status < 200 || status >= 300) throw statusError(redactor, request, method, url, response, value);
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

  /** A redirect target on the configured origin, else `undefined`. */
  #redirectTarget(location: string, from: URL, initialUrl: URL): URL | undefined {
    let target: URL;
    try {
      target = new URL(location, from);
    } catch {
      return undefined;
    }
    return target.origin === initialUrl.origin ? target : undefined;
  }
}
