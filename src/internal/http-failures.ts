/** What a failed attempt throws: the typed error, its secrets redacted. @module */
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  DeliveryError,
  RequestValidationError,
} from '../core/errors.js';
import { DeadlineReason } from './abort.js';
import { systemErrorCode } from './failure.js';
import type { HttpRequest } from './http-request.js';
import type { Redactor } from './redact.js';
import { underlyingCause } from './request-checks.js';

/**
 * A throw of an attempt, of its wait or of ky as the `DeliveryError` ky's policy and the caller see; `signal`
 * aborted means the attempt's deadline or the caller's abort ended it; `url` is the hop's.
 */
export type Failure = (error: unknown, signal?: AbortSignal, url?: URL) => DeliveryError;

/** A request fetch refused before sending: nothing left, so never retried nor reconciled. */
export function refusedError(redactor: Redactor, operation: string, error: unknown): RequestValidationError {
  // The message of the link that carries the code, not fetch's "fetch failed".
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
      message: `fetch refused the request before sending it (${redactor.text(message).slice(0, 200)})`,
      code: 'not_sendable',
    },
  ]);
}

/** No response: the caller's abort, a deadline, or the network. */
export function noResponseError(
  redactor: Redactor,
  request: HttpRequest,
  method: string,
  url: URL,
  reason: unknown,
  callerSignal: AbortSignal | undefined,
  attempts: number,
): DeliveryError {
  const shownUrl = redactor.text(url.href);
  if (callerSignal?.aborted)
    return new APIUserAbortError({ method, url: shownUrl, cause: callerSignal.reason });
  const { urlTemplate } = request;
  if (reason instanceof DeadlineReason) {
    return new APIConnectionTimeoutError({
      method,
      url: shownUrl,
      urlTemplate,
      attempts,
      timeoutMs: reason.ms,
    });
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

/** Any other throw, as a `DeliveryError` (one already is kept). */
export function unexpectedError(
  redactor: Redactor,
  method: string,
  url: URL,
  error: unknown,
  attempts: number,
): DeliveryError {
  if (error instanceof DeliveryError) return error;
  return new DeliveryError(
    `Unexpected failure: ${method} ${redactor.text(url.pathname)} (attempt ${attempts}): ${
      error instanceof Error ? `${error.name}: ${redactor.text(error.message)}` : 'a non-error was thrown'
    }`,
    { cause: error },
  );
}

/** The `APIError` of a response answered with an error status, or a redirect not followed. */
export function statusError(
  redactor: Redactor,
  request: HttpRequest,
  method: string,
  url: URL,
  response: Response,
  body: unknown,
): APIError {
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
