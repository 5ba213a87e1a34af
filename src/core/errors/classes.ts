/**
 * The base class and the errors raised before or beside a request; `./api-errors.ts` holds the answers'
 * and the connection's (README "Errors"). An error class is one class: its static `errorKind` is its
 * `name`, and its place in the class chain is all `instanceof` needs, in this copy of the SDK or another.
 * @module
 */
import { BRAND, hasKind, KINDS, kindsOf } from './kinds.js';
import { describeIssues, describeRequest, type ValidationIssue } from './messages.js';

/** Names of every error class, each its instances' `name` (and its static `errorKind`). */
export type DeliveryErrorName =
  | 'DeliveryError'
  | 'APIError'
  | 'BadRequestError'
  | 'AuthenticationError'
  | 'InsufficientBalanceError'
  | 'PermissionDeniedError'
  | 'NotFoundError'
  | 'ConflictError'
  | 'UnprocessableEntityError'
  | 'RateLimitError'
  | 'InternalServerError'
  | 'APIConnectionError'
  | 'APIConnectionTimeoutError'
  | 'APIUserAbortError'
  | 'RequestValidationError'
  | 'ResponseValidationError'
  | 'ConfigurationError'
  | 'TaskCreationOutcomeUnknownError'
  | 'DuplicateTaskError'
  | 'WebhookPayloadError'
  | 'PaginationLimitError'
  | 'StatusWaitTimeoutError'
  | 'ResponseTooLargeError'
  | 'WebhookEventTimeoutError'
  | 'StoreUnavailableError';

/**
 * Base class of every SDK error. `instanceof` also matches errors of another copy of the SDK (ESM and
 * CommonJS in one process), by the kind chain under a global symbol.
 */
export class DeliveryError extends Error {
  /** The class's kind, its instances' `name`; every SDK class owns one, an app's subclass inherits it. */
  protected static readonly errorKind: DeliveryErrorName = 'DeliveryError';
  /** The class's kind, e.g. `'NotFoundError'`; each subclass narrows the type. */
  declare name: DeliveryErrorName;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    const kinds = kindsOf(new.target);
    Object.defineProperty(this, 'name', {
      value: kinds[0],
      enumerable: true,
      writable: true,
      configurable: true,
    });
    Object.defineProperty(this, BRAND, { value: true });
    Object.defineProperty(this, KINDS, { value: kinds });
  }

  /** `error instanceof ThisClass`, by prototype chain or, for the SDK's own classes, by kind chain. */
  static override [Symbol.hasInstance]<T>(
    this: abstract new (
      ...args: never
    ) => T,
    value: unknown,
  ): value is T {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class right of instanceof, a subclass too
    const errorClass = this as unknown as typeof DeliveryError;
    if (Function.prototype[Symbol.hasInstance].call(errorClass, value)) return true;
    // An app's subclass owns no kind: matched by its prototype chain alone.
    return Object.hasOwn(errorClass, 'errorKind') && hasKind(value, errorClass.errorKind);
  }
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
    const retryAfterMs =
      init.orderNumber === undefined ? undefined : Math.max(0, Math.ceil(init.retryAfterMs ?? 0));
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

/**
 * A webhook body that is not a valid webhook. `field` names the first offending field (empty: the whole
 * body).
 */
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
    super(
      `Stopped after ${maxPages} pages while the service still reported more; raise maxPages to read further`,
    );
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
    super(
      `Webhook onEvent for task ${init.taskId} (${init.kind}) did not settle within ${init.timeoutMs} ms`,
    );
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
