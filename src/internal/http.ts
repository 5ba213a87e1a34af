/**
 * The request pipeline of every resource method: auth headers (ky), a deadline per attempt and per call,
 * retries by operation policy (ky's loop, `retry.ts`), same-origin redirects, typed errors with
 * secrets redacted, one span per call.
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
import { deadline, sleep, untilAborted } from './abort.js';
import { readBodyText } from './body.js';
import { headerIssues } from './headers.js';
import {
  type Failure,
  noResponseError,
  refusedError,
  statusError,
  unexpectedError,
} from './http-failures.js';
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
import { KY_RETRY, retryRules } from './retry.js';
import { recordFailure, type SpanAttributes, SpanKind, startSpan, type TraceSpan } from './tracing.js';

/** A call of one request: retries are events of the transport's own. */
const SINGLE_REQUEST: CallTraceOptions<HttpResponse> = {
  outcome: (response) => response,
};

/** Shared, so the common call checks nothing. */
const NO_OPTIONS: RequestOptions = Object.freeze({});

const MAX_REDIRECTS = 5;

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
      timeout: false,
      retry: KY_RETRY,
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
    const { redactor, logger } = this.#config;
    const callerSignal = options.signal;
    const retries = retryRules(
      request.retry === 'never' ? 0 : (options.maxRetries ?? this.#config.maxRetries),
    );
    const timeout = options.timeout ?? this.#config.timeout;
    const totalTimeout = options.totalTimeout ?? this.#config.totalTimeout;
    const total = totalTimeout === undefined ? undefined : deadline(totalTimeout, 'total', callerSignal);
    const outer = total?.signal ?? callerSignal;
    const headers =
      options.headers === undefined ? undefined : this.#headers(request.operation, options.headers);
    if (request.query) checkQuery(request.operation, request.query);
    const url = new URL(request.path, this.#config.baseUrl);
    if (request.query)
      for (const [name, value] of Object.entries(request.query)) url.searchParams.set(name, value);
    let attempts = 0;
    let answer: HttpResponse | undefined;
    /** A throw as ky's policy and the caller see it: kept, refused before sending, else no response. */
    const failure: Failure = (error, signal, at = url) => {
      if (error instanceof DeliveryError) return error;
      if (!signal?.aborted && refusedBeforeSending(error)) {
        return refusedError(redactor, request.operation, error);
      }
      const reason = signal?.aborted ? signal.reason : error;
      return noResponseError(redactor, request, request.method, at, reason, callerSignal, attempts || 1);
    };
    const init: Options = {
      method: request.method,
      // Only extra headers: ky merges each call's `headers` into the instance's anew.
      ...(headers && { headers }),
      json: request.body,
      // Each attempt is ours: ky's `timeout` ends at the headers, its `signal` is joined by AbortSignal.any.
      fetch: async (first) => {
        const limit = deadline(timeout, 'attempt', outer);
        try {
          answer = await this.#exchange(
            request,
            url,
            headers,
            first as Request,
            limit.signal,
            ++attempts,
            failure,
          );
          return new Response(null);
        } catch (error) {
          const failed = unexpectedError(redactor, request.method, url, error, attempts);
          if (failed instanceof APIError && failed.status === 429) request.onRateLimited?.();
          throw failed;
        } finally {
          limit.clear();
        }
      },
      retry: { limit: retries.limit },
      hooks: {
        beforeRetry: [
          async ({ error, retryCount: retry }) => {
            const wait = retries.delayMs(retry, error);
            logger.warn(
              `Retrying ${request.method} ${url.pathname} in ${wait} ms (retry ${retry} of ${retries.limit}) after: ${error.message}`,
            );
            span?.addEvent('delivery.retry', {
              'delivery.operation': request.operation,
              'delivery.retry_count': retry,
              'delivery.retry_delay_ms': wait,
              'error.type': error.name,
              ...(error instanceof APIError && error.status !== undefined
                ? { 'http.response.status_code': error.status }
                : {}),
            });
            span?.setAttribute('delivery.retry_count', retry);
            await sleep(wait, outer).catch((reason: unknown) => {
              throw failure(reason, outer);
            });
          },
        ],
      },
    };
    try {
      await this.#ky(url, init);
      return answer as HttpResponse;
    } catch (error) {
      throw failure(error);
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

  /**
   * One attempt, ky's `fetch`, within the attempt's deadline (`signal`): the request, same-origin redirects,
   * the body under the size cap; the 2xx answer, else the failure thrown for ky's retry policy.
   */
  async #exchange(
    request: HttpRequest,
    initialUrl: URL,
    headers: Headers | undefined,
    first: Request,
    signal: AbortSignal,
    attempt: number,
    failure: Failure,
  ): Promise<HttpResponse> {
    const { logger, redactor, maxResponseBytes, fetch, callerFetch } = this.#config;
    const started = performance.now();
    let url = initialUrl;
    const { method, body } = request;
    let outgoing = first;
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
        // A caller's `fetch` gets one Request, the signal on it; the global one the signal beside the
        // Request (the same request: it builds that Request itself). Raced with the signal as well: a `fetch`
        // that ignores it cannot hold the attempt past its deadline.
        const sent = callerFetch ? fetch(new Request(outgoing, { signal })) : fetch(outgoing, { signal });
        response = await untilAborted(sent, signal);
        read = await readBodyText(response, maxResponseBytes, signal);
      } catch (error) {
        throw failure(error, signal, url);
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
        let target: URL | undefined;
        try {
          target = new URL(response.headers.get('location') ?? '', url);
        } catch {}
        // A redirect is followed only on the configured origin.
        const keepsMethod = status === 307 || status === 308;
        if (
          target?.origin !== initialUrl.origin ||
          redirects >= MAX_REDIRECTS ||
          (!keepsMethod && method !== 'GET')
        ) {
          logger.warn(`Not following a ${status} redirect of ${method} ${redactor.text(url.pathname)}`);
          throw statusError(redactor, request, method, url, response, value);
        }
        // Only a GET follows a 301, 302 or 303: every hop keeps the method, headers and body.
        url = target;
        const json = body === undefined ? null : JSON.stringify(body);
        outgoing = new Request(url, { method, headers: first.headers, body: json });
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
  }
}
