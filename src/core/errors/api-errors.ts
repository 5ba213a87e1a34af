/**
 * The errors of a request to the service: its answer, by status, its connection and its abort (README
 * "Errors"). @module
 */
import { REASON_PHRASES } from '../http-status.js';
import { DeliveryError, type DeliveryErrorName } from './classes.js';
import {
  type APIErrorInit,
  attemptsText,
  baseUrlHint,
  describeConnectionCause,
  describeRequest,
  describeTarget,
  mentionsLowBalance,
  originOf,
  requestIdOf,
  serverCodeOf,
  serverMessageOf,
  truncate,
} from './messages.js';

/**
 * A non-2xx answer, subclassed by status (README "Errors"): `404 Not Found: GET /tasks/abc — Task not found`.
 */
export class APIError extends DeliveryError {
  protected static override readonly errorKind: DeliveryErrorName = 'APIError';
  readonly status: number;
  readonly headers: Headers;
  /** Parsed JSON body, the text when it is not JSON, or `undefined` when empty. */
  readonly body: unknown;
  /** The server's error code (`code`, `error.code` or `errors[0].code`), when it sent one. */
  readonly code: string | undefined;
  /** The server's request id (`x-request-id` and similar headers), when it sent one. Quote it to support. */
  readonly requestId: string | undefined;
  readonly method: string;
  /** Full URL of the request (it holds no secret: credentials travel in headers). */
  readonly url: string;
  readonly serverMessage: string | undefined;

  constructor(init: APIErrorInit) {
    const redact = init.redact ?? ((text: string) => text);
    const rawMessage = serverMessageOf(init.body);
    const serverMessage = rawMessage === undefined ? undefined : truncate(redact(rawMessage));
    const reason = REASON_PHRASES[init.status] ?? 'HTTP error';
    const hint = baseUrlHint(init);
    super(
      `${init.status} ${reason}: ${describeRequest(init)}${serverMessage ? ` — ${serverMessage}` : ''}${hint ? `; ${hint}` : ''}`,
    );
    this.status = init.status;
    this.headers = init.headers;
    this.body = init.body;
    this.code = serverCodeOf(init.body);
    this.requestId = requestIdOf(init.headers);
    this.method = init.method;
    this.url = init.url;
    this.serverMessage = serverMessage;
    if (this.requestId) this.message += ` (request id ${this.requestId})`;
  }

  /**
   * The subclass for a response; a 404 on an operation without an id is a plain {@link APIError} (check
   * `baseUrl`).
   */
  static generate(init: APIErrorInit): APIError {
    const { status } = init;
    if (status === 404 && init.urlTemplate !== undefined && !init.urlTemplate.includes('{'))
      return new APIError(init);
    if (init.operation === 'tasks.create' && status >= 400 && status < 500) {
      if (status === 402 || mentionsLowBalance(init.body)) return new InsufficientBalanceError(init);
    }
    const errorClass = STATUS_ERRORS[status] ?? (status >= 500 ? InternalServerError : APIError);
    return new errorClass(init);
  }
}

/** 400: the service rejected the request as malformed. */
export class BadRequestError extends APIError {
  protected static override readonly errorKind: DeliveryErrorName = 'BadRequestError';
  declare name: 'BadRequestError';
}
/** 401: missing or wrong API key or seller id. */
export class AuthenticationError extends APIError {
  protected static override readonly errorKind: DeliveryErrorName = 'AuthenticationError';
  declare name: 'AuthenticationError';
}
/** 403: the credentials may not do this. */
export class PermissionDeniedError extends APIError {
  protected static override readonly errorKind: DeliveryErrorName = 'PermissionDeniedError';
  declare name: 'PermissionDeniedError';
}
/** 404 on `GET tasks/{id}`: no such task. A 404 elsewhere is a plain {@link APIError} (README "Errors"). */
export class NotFoundError extends APIError {
  protected static override readonly errorKind: DeliveryErrorName = 'NotFoundError';
  declare name: 'NotFoundError';
}
/** 409: conflict with the current state. */
export class ConflictError extends APIError {
  protected static override readonly errorKind: DeliveryErrorName = 'ConflictError';
  declare name: 'ConflictError';
}
/** 422: the service understood the request but refused its content. */
export class UnprocessableEntityError extends APIError {
  protected static override readonly errorKind: DeliveryErrorName = 'UnprocessableEntityError';
  declare name: 'UnprocessableEntityError';
}
/** 429: rate limited. Reads are retried automatically, honouring `Retry-After`. */
export class RateLimitError extends APIError {
  protected static override readonly errorKind: DeliveryErrorName = 'RateLimitError';
  declare name: 'RateLimitError';
}
/**
 * ≥ 500: the service failed. Reads are retried automatically; a create is reconciled, never blindly resent.
 */
export class InternalServerError extends APIError {
  protected static override readonly errorKind: DeliveryErrorName = 'InternalServerError';
  declare name: 'InternalServerError';
}
/**
 * A create refused for a low wallet balance (README "Errors"): nothing created or charged;
 * `client.wallet.topUp`.
 */
export class InsufficientBalanceError extends APIError {
  protected static override readonly errorKind: DeliveryErrorName = 'InsufficientBalanceError';
  declare name: 'InsufficientBalanceError';
}

const STATUS_ERRORS: Readonly<Record<number, new (init: APIErrorInit) => APIError>> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

/**
 * No response: DNS, refused or reset connection, TLS. The message names origin, URL template, attempts and
 * cause, never ids or secrets.
 */
export class APIConnectionError extends DeliveryError {
  protected static override readonly errorKind: DeliveryErrorName = 'APIConnectionError';
  readonly method: string;
  readonly url: string;
  /** The operation's URL template (`/tasks/{id}`), when known. */
  readonly urlTemplate: string | undefined;
  /** Attempts made, the first included. */
  readonly attempts: number;
  /**
   * The system error code (`ECONNREFUSED`, `ENOTFOUND`, `DEPTH_ZERO_SELF_SIGNED_CERT`, …), when there is one.
   */
  readonly code: string | undefined;

  constructor(init: {
    method: string;
    url: string;
    urlTemplate?: string | undefined;
    attempts: number;
    code?: string | undefined;
    message?: string;
    cause?: unknown;
  }) {
    super(
      init.message ??
        `Connection error: no response from ${originOf(init.url)} to ${describeTarget(init)} after ${attemptsText(init.attempts)} (${describeConnectionCause(init.code, init.cause)})`,
      { cause: init.cause },
    );
    this.method = init.method;
    this.url = init.url;
    this.urlTemplate = init.urlTemplate;
    this.attempts = init.attempts;
    this.code = init.code;
  }
}

/**
 * `error` as after `attempts` attempts (a create resent after refused connections); timeouts unchanged.
 * Internal.
 */
export function connectionErrorAfter(error: APIConnectionError, attempts: number): APIConnectionError {
  if (attempts === error.attempts || error instanceof APIConnectionTimeoutError) return error;
  return new APIConnectionError({
    method: error.method,
    url: error.url,
    urlTemplate: error.urlTemplate,
    attempts,
    code: error.code,
    cause: error.cause,
  });
}

/** No complete response within the timeout, or `totalTimeout` elapsed (README "Retries and timeouts"). */
export class APIConnectionTimeoutError extends APIConnectionError {
  protected static override readonly errorKind: DeliveryErrorName = 'APIConnectionTimeoutError';
  declare name: 'APIConnectionTimeoutError';
  /** The timeout that elapsed, in ms. */
  readonly timeoutMs: number;

  /**
   * @param init.reason what the call was doing when its deadline passed, in place of "no complete response".
   */
  constructor(init: {
    method: string;
    url: string;
    urlTemplate?: string | undefined;
    attempts: number;
    timeoutMs: number;
    reason?: string | undefined;
    cause?: unknown;
  }) {
    super({
      method: init.method,
      url: init.url,
      urlTemplate: init.urlTemplate,
      attempts: init.attempts,
      cause: init.cause,
      message:
        init.reason === undefined
          ? `Timed out: no complete response from ${originOf(init.url)} to ${describeTarget(init)} within ${init.timeoutMs} ms (${attemptsText(init.attempts)})`
          : `Timed out: ${describeTarget(init)} to ${originOf(init.url)}: ${init.reason}`,
    });
    this.timeoutMs = init.timeoutMs;
  }
}

/** The caller's `AbortSignal` fired. `cause` is the signal's reason. */
export class APIUserAbortError extends DeliveryError {
  protected static override readonly errorKind: DeliveryErrorName = 'APIUserAbortError';
  declare name: 'APIUserAbortError';
  readonly method: string;
  readonly url: string;

  constructor(init: { method: string; url: string; cause?: unknown }) {
    super(`Aborted by the caller: ${describeRequest(init)}`, { cause: init.cause });
    this.method = init.method;
    this.url = init.url;
  }
}
