/** The error classes; {@link APIError.generate} alone maps a status to its class (README "Errors"). @module */
import { REASON_PHRASES } from '../http-status.js';
import { ANCESTRY, BRAND, type DeliveryErrorName, isKind, KINDS } from './kinds.js';
import {
  type APIErrorInit,
  attemptsText,
  baseUrlHint,
  describeConnectionCause,
  describeIssues,
  describeRequest,
  describeTarget,
  mentionsLowBalance,
  originOf,
  requestIdOf,
  serverCodeOf,
  serverMessageOf,
  truncate,
  type ValidationIssue,
} from './messages.js';

/**
 * Base class of every SDK error. `instanceof` also matches errors of another copy of the SDK (ESM and
 * CommonJS in one process), by the kind chain under a global symbol.
 */
export class DeliveryError extends Error {
  protected static readonly errorKind: DeliveryErrorName = 'DeliveryError';
  /** The class's kind, e.g. `'NotFoundError'`; each subclass narrows the type. */
  declare name: DeliveryErrorName;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    const kind = new.target.errorKind;
    Object.defineProperty(this, 'name', { value: kind, enumerable: true, writable: true, configurable: true });
    Object.defineProperty(this, BRAND, { value: true });
    Object.defineProperty(this, KINDS, { value: Object.freeze([kind, ...ANCESTRY[kind]]) });
  }

  /** `error instanceof ThisClass`, by prototype chain or, for the SDK's own classes, by kind chain. */
  static override [Symbol.hasInstance]<T>(this: abstract new (...args: never) => T, value: unknown): value is T {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class right of instanceof, a subclass too
    return isInstance(this, value);
  }
}

function isInstance(errorClass: abstract new (...args: never) => unknown, value: unknown): boolean {
  if (Function.prototype[Symbol.hasInstance].call(errorClass, value)) return true;
  if (!Object.hasOwn(errorClass, 'errorKind')) return false;
  return isKind(value, (errorClass as unknown as { errorKind: DeliveryErrorName }).errorKind);
}

/** Parameters were rejected before anything was sent; `issues` lists every problem with its path. */
export class RequestValidationError extends DeliveryError {
  protected static override readonly errorKind: DeliveryErrorName = 'RequestValidationError';
  declare name: 'RequestValidationError';
  readonly issues: readonly ValidationIssue[];
  /** The operation whose parameters were rejected, e.g. `tasks.create`. */
  readonly operation: string;

  constructor(operation: string, issues: readonly ValidationIssue[]) {
    super(`Invalid ${operation} parameters (nothing was sent): ${describeIssues(issues)}`);
    this.operation = operation;
    this.issues = issues;
  }
}

/** A 2xx body that does not match its schema (`validation: 'strict'`) or is not JSON; `body` is what came. */
export class ResponseValidationError extends DeliveryError {
  protected static override readonly errorKind: DeliveryErrorName = 'ResponseValidationError';
  declare name: 'ResponseValidationError';
  readonly issues: readonly ValidationIssue[];
  readonly body: unknown;
  readonly method: string;
  readonly url: string;
  readonly status: number;

  constructor(init: {
    method: string;
    url: string;
    status: number;
    issues: readonly ValidationIssue[];
    body: unknown;
  }) {
    super(`Unexpected response to ${describeRequest(init)} (${init.status}): ${describeIssues(init.issues)}`);
    this.issues = init.issues;
    this.body = init.body;
    this.method = init.method;
    this.url = init.url;
    this.status = init.status;
  }
}

/** A client option is missing or invalid. The message names the option and its environment variable. */
export class ConfigurationError extends DeliveryError {
  protected static override readonly errorKind: DeliveryErrorName = 'ConfigurationError';
  declare name: 'ConfigurationError';
  /** The option at fault, e.g. `apiKey`. */
  readonly option: string;

  constructor(option: string, message: string) {
    super(message);
    this.option = option;
  }
}

/** A non-2xx answer, subclassed by status (README "Errors"): `404 Not Found: GET /tasks/abc — Task not found`. */
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

  /** The subclass for a response; a 404 on an operation without an id is a plain {@link APIError} (check `baseUrl`). */
  static generate(init: APIErrorInit): APIError {
    const { status } = init;
    if (status === 404 && init.urlTemplate !== undefined && !init.urlTemplate.includes('{')) return new APIError(init);
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
/** ≥ 500: the service failed. Reads are retried automatically; a create is reconciled, never blindly resent. */
export class InternalServerError extends APIError {
  protected static override readonly errorKind: DeliveryErrorName = 'InternalServerError';
  declare name: 'InternalServerError';
}
/** A create refused for a low wallet balance (README "Errors"): nothing created or charged; `client.wallet.topUp`. */
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
  /** The system error code (`ECONNREFUSED`, `ENOTFOUND`, `DEPTH_ZERO_SELF_SIGNED_CERT`, …), when there is one. */
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

/** `error` as after `attempts` attempts (a create resent after refused connections); timeouts unchanged. Internal. */
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

  /** @param init.reason what the call was doing when its deadline passed, in place of "no complete response". */
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

/**
 * A create whose outcome could not be established: a task may or may not exist (no `orderNumber` to
 * reconcile by, or reconciliation could not decide). README "Exactly-once creation".
 */
export class TaskCreationOutcomeUnknownError extends DeliveryError {
  protected static override readonly errorKind: DeliveryErrorName = 'TaskCreationOutcomeUnknownError';
  declare name: 'TaskCreationOutcomeUnknownError';
  readonly orderNumber: string | undefined;
  /**
   * Ms after which creating the order again decides its outcome (that create looks the order up first: in
   * this process, in any sharing its `store`, and without a store in a new one, unless `lookupFirst: false`):
   * 0 at once, `undefined` never (no `orderNumber`).
   */
  readonly retryAfterMs: number | undefined;
  /** Tasks with this order number found outside the create's time window: one may be this create's. */
  readonly candidateTaskIds: readonly string[];

  /** `reason` is this error's own words; another error goes in `cause`, never in `reason`. */
  constructor(init: {
    orderNumber: string | undefined;
    reason: string;
    cause?: unknown;
    retryAfterMs?: number;
    candidateTaskIds?: readonly string[];
  }) {
    const retryAfterMs = init.orderNumber === undefined ? undefined : Math.max(0, Math.ceil(init.retryAfterMs ?? 0));
    const candidates = init.candidateTaskIds ?? [];
    const advice =
      candidates.length > 0
        ? `check ${candidates.join(', ')} first (resendUnknownOutcome)`
        : retryAfterMs === undefined
          ? 'check before creating it again'
          : `creating it again ${retryAfterMs > 0 ? `in ${retryAfterMs} ms ` : ''}looks it up first`;
    super(
      `Task creation outcome unknown${init.orderNumber === undefined ? ' (no orderNumber to reconcile by)' : ` for order ${JSON.stringify(init.orderNumber)}`}: ${init.reason.replace(/[.\s]+$/, '')}. A task may or may not exist; ${advice}`,
      { cause: init.cause },
    );
    this.orderNumber = init.orderNumber;
    this.retryAfterMs = retryAfterMs;
    this.candidateTaskIds = candidates;
  }
}

/** Reconciliation found several tasks with the same `orderNumber`; their ids are in `taskIds`. */
export class DuplicateTaskError extends DeliveryError {
  protected static override readonly errorKind: DeliveryErrorName = 'DuplicateTaskError';
  declare name: 'DuplicateTaskError';
  readonly orderNumber: string;
  readonly taskIds: readonly string[];

  constructor(init: { orderNumber: string; taskIds: readonly string[] }) {
    super(
      `Found ${init.taskIds.length} tasks for order ${JSON.stringify(init.orderNumber)} (${init.taskIds.join(', ')}); expected at most one`,
    );
    this.orderNumber = init.orderNumber;
    this.taskIds = init.taskIds;
  }
}

/** A webhook body that is not a valid webhook. `field` names the first offending field (empty: the whole body). */
export class WebhookPayloadError extends DeliveryError {
  protected static override readonly errorKind: DeliveryErrorName = 'WebhookPayloadError';
  declare name: 'WebhookPayloadError';
  readonly field: string;
  readonly issues: readonly ValidationIssue[];

  constructor(issues: readonly ValidationIssue[]) {
    super(`Invalid webhook payload: ${describeIssues(issues)}`);
    this.issues = issues;
    this.field = issues[0]?.path ?? '';
  }
}

/** A list's iteration stopped at its page cap (`maxPages`) while the service still reported more pages. */
export class PaginationLimitError extends DeliveryError {
  protected static override readonly errorKind: DeliveryErrorName = 'PaginationLimitError';
  declare name: 'PaginationLimitError';
  readonly maxPages: number;

  constructor(maxPages: number) {
    super(`Stopped after ${maxPages} pages while the service still reported more; raise maxPages to read further`);
    this.maxPages = maxPages;
  }
}

/** `client.tasks.waitForStatus` gave up: the task did not reach one of `statuses` within `timeoutMs` (ms). */
export class StatusWaitTimeoutError extends DeliveryError {
  protected static override readonly errorKind: DeliveryErrorName = 'StatusWaitTimeoutError';
  declare name: 'StatusWaitTimeoutError';
  readonly taskId: string;
  readonly statuses: readonly string[];
  /** The last status seen, when a read succeeded. */
  readonly lastStatus: string | undefined;
  readonly timeoutMs: number;

  constructor(init: {
    taskId: string;
    statuses: readonly string[];
    lastStatus: string | undefined;
    timeoutMs: number;
  }) {
    super(
      `Task ${init.taskId} did not reach ${init.statuses.join(' or ')} within ${init.timeoutMs} ms (last status: ${init.lastStatus ?? 'unknown'})`,
    );
    this.taskId = init.taskId;
    this.statuses = init.statuses;
    this.lastStatus = init.lastStatus;
    this.timeoutMs = init.timeoutMs;
  }
}

/**
 * A response body (decoded) exceeded the client's `maxResponseBytes`; reading stopped there. Not
 * retried; a create answered this way is reconciled, never sent again blindly.
 */
export class ResponseTooLargeError extends DeliveryError {
  protected static override readonly errorKind: DeliveryErrorName = 'ResponseTooLargeError';
  declare name: 'ResponseTooLargeError';
  readonly method: string;
  readonly url: string;
  readonly status: number;
  /** The cap that was exceeded, in bytes (decoded). */
  readonly maxBytes: number;

  constructor(init: { method: string; url: string; status: number; maxBytes: number }) {
    super(
      `Response too large: ${describeRequest(init)} (${init.status}) sent more than ${init.maxBytes} bytes; reading stopped`,
    );
    this.method = init.method;
    this.url = init.url;
    this.status = init.status;
    this.maxBytes = init.maxBytes;
  }
}

/**
 * A webhook handler's `onEvent` did not settle within `eventTimeoutMs` (ms): its slot was freed, the call
 * itself may still finish. Passed to `onError` with the event. `kind` is the body's `status`.
 */
export class WebhookEventTimeoutError extends DeliveryError {
  protected static override readonly errorKind: DeliveryErrorName = 'WebhookEventTimeoutError';
  declare name: 'WebhookEventTimeoutError';
  readonly taskId: string;
  readonly kind: string;
  readonly timeoutMs: number;

  constructor(init: { taskId: string; kind: string; timeoutMs: number }) {
    super(`Webhook onEvent for task ${init.taskId} (${init.kind}) did not settle within ${init.timeoutMs} ms`);
    this.taskId = init.taskId;
    this.kind = init.kind;
    this.timeoutMs = init.timeoutMs;
  }
}

/**
 * The shared store (`store` option) failed or did not answer in time. A create fails closed with it:
 * nothing was sent. `operation` names the store call (`setIfAbsent`, `get`, `compareAndSet`, `delete`).
 */
export class StoreUnavailableError extends DeliveryError {
  protected static override readonly errorKind: DeliveryErrorName = 'StoreUnavailableError';
  declare name: 'StoreUnavailableError';
  readonly operation: string;

  constructor(init: { operation: string; reason: string; cause?: unknown }) {
    super(`Shared store unavailable (${init.operation}): ${init.reason}`, { cause: init.cause });
    this.operation = init.operation;
  }
}
