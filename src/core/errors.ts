/**
 * Every failure the SDK surfaces is a {@link DeliveryError}. HTTP status → class is decided in one
 * place, {@link APIError.generate}; the README has the same table.
 *
 * | status / condition | class |
 * |---|---|
 * | 400 | {@link BadRequestError} |
 * | 401 | {@link AuthenticationError} |
 * | 402 on create, or a 4xx on create whose code/message mentions the balance | {@link InsufficientBalanceError} |
 * | 403 | {@link PermissionDeniedError} |
 * | 404 on `GET tasks/{id}` | {@link NotFoundError} |
 * | 404 on any other operation (a missing route: check `baseUrl`) | {@link APIError} |
 * | 409 | {@link ConflictError} |
 * | 422 | {@link UnprocessableEntityError} |
 * | 429 | {@link RateLimitError} |
 * | ≥ 500 | {@link InternalServerError} |
 * | any other non-2xx | {@link APIError} |
 * | no response: network | {@link APIConnectionError} |
 * | no response: timeout | {@link APIConnectionTimeoutError} |
 * | caller's `signal` aborted | {@link APIUserAbortError} |
 * | list iteration reached `maxPages` | {@link PaginationLimitError} |
 * | `tasks.waitForStatus` ran out of time | {@link StatusWaitTimeoutError} |
 * | a response body over the client's `maxResponseBytes` | {@link ResponseTooLargeError} |
 * | a webhook `onEvent` still running after `eventTimeoutMs` | {@link WebhookEventTimeoutError} |
 * | the shared store (`store` option) failed or did not answer in time | {@link StoreUnavailableError} |
 *
 * Messages carry the method, path, status and the server's message, never the API key or seller id.
 * @module
 */

import { REASON_PHRASES } from './http-status.js';

/** Set (to `true`) on every SDK error, by every copy and version of the SDK. */
const BRAND = Symbol.for('delivery-task-sdk.error');
/**
 * The kind chain of an SDK error, e.g. `['NotFoundError', 'APIError', 'DeliveryError']`: set by the
 * constructor from the class's static `errorKind`, read by `instanceof` and the `is…` guards. A global symbol,
 * so the ESM and CommonJS copies of the SDK (or two installed copies) read each other's errors.
 */
const KINDS = Symbol.for('delivery-task-sdk.error.kinds');

/** Names of every error class, for the cross-realm type guards. */
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
 * Base class of every error the SDK throws. Check with `instanceof` or {@link isDeliveryError}.
 *
 * `instanceof` works across copies of the SDK: when both the ESM build (`import`) and the CommonJS one
 * (`require`) are loaded in one process, as when an app imports the SDK and one of its dependencies
 * requires it, an error thrown by one copy is `instanceof` the other copy's class. Every class checks
 * the error's kind chain (set by the constructor under a global symbol), so `instanceof NotFoundError`
 * is true for a `NotFoundError` (and its subclasses) from either copy and false for any other error. A
 * subclass you write yourself is matched by its prototype chain only, as usual.
 */
export class DeliveryError extends Error {
  /** This class's kind; the constructor records it and its ancestors on the instance. */
  protected static readonly errorKind: DeliveryErrorName = 'DeliveryError';
  /** The class's kind (its static `errorKind`), e.g. `'NotFoundError'`; each subclass narrows the type. */
  declare name: DeliveryErrorName;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    const kind = new.target.errorKind;
    // An own, enumerable property, as a class field would define it (a subclass's getter cannot block it).
    Object.defineProperty(this, 'name', { value: kind, enumerable: true, writable: true, configurable: true });
    Object.defineProperty(this, BRAND, { value: true, enumerable: false });
    Object.defineProperty(this, KINDS, { value: Object.freeze([kind, ...ANCESTRY[kind]]), enumerable: false });
  }

  /**
   * `error instanceof ThisClass`: true when the prototype chain says so, or, for the SDK's own classes,
   * when the error's kind chain (from any copy of the SDK) includes this class's kind.
   */
  static override [Symbol.hasInstance]<T>(this: abstract new (...args: never) => T, value: unknown): value is T {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class right of instanceof, a subclass too
    return isInstance(this, value);
  }
}

/** `value instanceof errorClass`, by prototype chain or, for the SDK's own classes, by kind chain. */
function isInstance(errorClass: abstract new (...args: never) => unknown, value: unknown): boolean {
  if (Function.prototype[Symbol.hasInstance].call(errorClass, value)) return true;
  // Only the SDK's own classes declare `errorKind`; a subclass an app writes inherits it.
  if (!Object.hasOwn(errorClass, 'errorKind')) return false;
  return isKind(value, (errorClass as unknown as { errorKind: DeliveryErrorName }).errorKind);
}

/** One problem found by a schema: where (`path`, dotted, e.g. `deliveryLocation.latitude`) and what. */
export interface ValidationIssue {
  /** Dotted path of the offending field; empty for the whole value. */
  path: string;
  /** What is wrong, in words. */
  message: string;
  /** zod's issue code (`too_big`, `invalid_type`, `custom`, …). */
  code: string;
}

/** Formats issues as `path: message; path: message`. */
function describeIssues(issues: readonly ValidationIssue[]): string {
  return issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join('; ');
}

/**
 * Parameters were rejected before anything was sent. `issues` lists every problem with its path.
 * Thrown by every method on bad input; nothing reaches the network.
 */
export class RequestValidationError extends DeliveryError {
  protected static override readonly errorKind: DeliveryErrorName = 'RequestValidationError';
  declare name: 'RequestValidationError';
  /** Every problem found, with its dotted path. */
  readonly issues: readonly ValidationIssue[];
  /** The operation whose parameters were rejected, e.g. `tasks.create`. */
  readonly operation: string;

  constructor(operation: string, issues: readonly ValidationIssue[]) {
    super(`Invalid ${operation} parameters (nothing was sent): ${describeIssues(issues)}`);
    this.operation = operation;
    this.issues = issues;
  }
}

/**
 * A 2xx response whose body does not match the expected schema (with `validation: 'strict'`), or is
 * not JSON at all. `body` holds what was received (parsed JSON or, if not JSON, the text).
 */
export class ResponseValidationError extends DeliveryError {
  protected static override readonly errorKind: DeliveryErrorName = 'ResponseValidationError';
  declare name: 'ResponseValidationError';
  readonly issues: readonly ValidationIssue[];
  /** The received body: parsed JSON, or the raw text when it was not JSON. */
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

/** Initial data of an {@link APIError}. */
export interface APIErrorInit {
  status: number;
  headers: Headers;
  /** Parsed JSON body, or the text when it is not JSON, or `undefined` when empty. */
  body: unknown;
  method: string;
  url: string;
  /** The SDK operation, e.g. `tasks.create`; used to recognise a low-balance rejection. */
  operation?: string;
  /**
   * The operation's URL template, e.g. `/tasks/{id}`: a 404 on a template without an id is a missing
   * route (a wrong `baseUrl`), not a missing task.
   */
  urlTemplate?: string | undefined;
  /** Redacts secrets from the server's message (the server may echo a header back). */
  redact?: (text: string) => string;
}

const REQUEST_ID_HEADERS = ['x-request-id', 'request-id', 'x-amzn-requestid', 'x-correlation-id', 'cf-ray'];
const MAX_MESSAGE_LENGTH = 500;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function firstString(...values: unknown[]): string | undefined {
  for (const value of values) if (typeof value === 'string' && value.trim() !== '') return value;
  return undefined;
}

/**
 * The server's message, from `message`, `error`, `error.message`, `errors[0].message`, else the
 * text of the body (README "Errors").
 */
export function serverMessageOf(body: unknown): string | undefined {
  if (typeof body === 'string') return body.trim() === '' ? undefined : body;
  if (!isRecord(body)) return undefined;
  const error = body.error;
  const errors = body.errors;
  const firstOfErrors = Array.isArray(errors) ? errors[0] : undefined;
  return firstString(
    body.message,
    error,
    isRecord(error) ? error.message : undefined,
    isRecord(firstOfErrors) ? firstOfErrors.message : firstOfErrors,
    body.detail,
  );
}

/** The server's error code, from `code`, `error.code` or `errors[0].code`. */
function serverCodeOf(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const error = body.error;
  const errors = body.errors;
  const firstOfErrors = Array.isArray(errors) ? errors[0] : undefined;
  const code = [
    body.code,
    isRecord(error) ? error.code : undefined,
    isRecord(firstOfErrors) ? firstOfErrors.code : undefined,
  ].find((value) => typeof value === 'string' || typeof value === 'number');
  return code === undefined ? undefined : String(code);
}

function pathOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
}

/** A request as every message shows it: `GET /tasks/abc?page=2` (the path and query; the host is the client's). */
function describeRequest(request: { method: string; url: string }): string {
  return `${request.method} ${pathOf(request.url)}`;
}

function truncate(text: string): string {
  const singleLine = text.replace(/\s+/g, ' ').trim();
  return singleLine.length > MAX_MESSAGE_LENGTH ? `${singleLine.slice(0, MAX_MESSAGE_LENGTH)}…` : singleLine;
}

const LOW_BALANCE = /balance|insufficient|wallet|funds/i;

/** Words of a web server's or framework's answer for a path it has no route for (`Cannot GET /x`, `No route`). */
const ROUTE_WORDS = /\broute\b|cannot (?:get|post)\b|no such (?:path|endpoint)|\bendpoint\b|<html|<!doctype/i;

/**
 * Why a 404 is likely a wrong `baseUrl` rather than a missing task, as the message's hint, or `undefined`:
 * - the operation has no id in its path (everything but `tasks.retrieve`): the route itself is missing;
 * - a `GET tasks/{id}` answered with a body that is not the service's JSON error (empty, text, HTML, or a
 *   message about a route).
 */
function baseUrlHint(init: APIErrorInit): string | undefined {
  if (init.status !== 404 || init.urlTemplate === undefined) return undefined;
  if (!init.urlTemplate.includes('{')) {
    return 'no such route (this operation has no id): check baseUrl';
  }
  const message = serverMessageOf(init.body);
  const serviceLike = isRecord(init.body) && !ROUTE_WORDS.test(message ?? '');
  return serviceLike ? undefined : "not the service's usual answer: check baseUrl if every task answers 404";
}

/**
 * The service answered with a non-2xx status. Subclasses by status; see the table in this module.
 * The message reads `404 Not Found: GET /tasks/abc — Task not found`.
 */
export class APIError extends DeliveryError {
  protected static override readonly errorKind: DeliveryErrorName = 'APIError';
  /** HTTP status code. */
  readonly status: number;
  /** Response headers. */
  readonly headers: Headers;
  /** Parsed JSON body, the text when it is not JSON, or `undefined` when empty. */
  readonly body: unknown;
  /** The server's error code (`code`, `error.code` or `errors[0].code`), when it sent one. */
  readonly code: string | undefined;
  /** The server's request id (`x-request-id` and similar headers), when it sent one. Quote it to support. */
  readonly requestId: string | undefined;
  /** HTTP method of the request. */
  readonly method: string;
  /** Full URL of the request (it holds no secret: credentials travel in headers). */
  readonly url: string;
  /** The server's message, when it sent one. */
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
    this.requestId = REQUEST_ID_HEADERS.map((header) => init.headers.get(header)).find((value) => value) ?? undefined;
    this.method = init.method;
    this.url = init.url;
    this.serverMessage = serverMessage;
    if (this.requestId) this.message += ` (request id ${this.requestId})`;
  }

  /**
   * Builds the {@link APIError} subclass for a response: the one place where status → class is decided.
   * A 404 on an operation without an id in its path (`urlTemplate` such as `/tasks/wallet-balance`) is a
   * plain {@link APIError} whose message says to check `baseUrl`, never a {@link NotFoundError}: the
   * route is missing, not a task.
   */
  static generate(init: APIErrorInit): APIError {
    const { status } = init;
    if (status === 404 && init.urlTemplate !== undefined && !init.urlTemplate.includes('{')) return new APIError(init);
    if (init.operation === 'tasks.create' && status >= 400 && status < 500) {
      const text = `${serverCodeOf(init.body) ?? ''} ${serverMessageOf(init.body) ?? ''}`;
      if (status === 402 || LOW_BALANCE.test(text)) return new InsufficientBalanceError(init);
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
/**
 * 404 on `GET tasks/{id}`: no such task (or, when the message says so, a wrong `baseUrl`). A 404 on an
 * operation without an id (create, list, estimate, branches, wallet) is a plain {@link APIError}, not
 * this class (README "Errors").
 */
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
/**
 * Task creation was rejected because the wallet balance is below the required minimum (spec
 * README "Errors"). No task was created and nothing was charged; top up with `client.wallet.topUp`.
 */
export class InsufficientBalanceError extends APIError {
  protected static override readonly errorKind: DeliveryErrorName = 'InsufficientBalanceError';
  declare name: 'InsufficientBalanceError';
}

/** The class of each status with one of its own (after the low-balance check of a create). */
const STATUS_ERRORS: Readonly<Record<number, new (init: APIErrorInit) => APIError>> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

/** What the common system error codes of a connection mean, for messages (others show the code alone). */
const CONNECTION_CAUSES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'DNS lookup failed',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed',
};
const CERTIFICATE_CODE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/;

/**
 * `ECONNREFUSED: connection refused`, `DEPTH_ZERO_SELF_SIGNED_CERT: certificate refused`, the bare code,
 * or without a code the innermost message of the cause chain (`bad port`), at most 100 characters.
 */
function describeConnectionCause(code: string | undefined, cause: unknown): string {
  if (code === undefined) {
    let message: string | undefined;
    for (let link = cause, depth = 0; link instanceof Error && depth < 4; link = link.cause, depth++) {
      message = link.message;
    }
    return message === undefined || message === '' ? 'no system error code' : message.slice(0, 100);
  }
  const meaning = CONNECTION_CAUSES[code] ?? (CERTIFICATE_CODE.test(code) ? 'certificate refused' : undefined);
  return meaning === undefined ? code : `${code}: ${meaning}`;
}

/** The origin of a URL (`https://api.example.com`): never its path, which may hold ids. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the service';
  }
}

/** `GET /tasks/{id}`: the operation's URL template when known (never the ids of the path). */
function describeTarget(init: { method: string; urlTemplate?: string | undefined }): string {
  return init.urlTemplate === undefined ? init.method : `${init.method} ${init.urlTemplate}`;
}

const attemptsText = (attempts: number) => `${attempts} attempt${attempts === 1 ? '' : 's'}`;

/**
 * No response was received: DNS failure, refused or reset connection, TLS failure. The message names
 * the service's origin, the operation's URL template, the attempts made and the cause, e.g.
 * `Connection error: no response from http://127.0.0.1:4010 to GET /tasks/{id} after 3 attempts
 * (ECONNREFUSED: connection refused)`; never the path's ids, the API key or the
 * seller id.
 */
export class APIConnectionError extends DeliveryError {
  protected static override readonly errorKind: DeliveryErrorName = 'APIConnectionError';
  readonly method: string;
  readonly url: string;
  /** The operation's URL template (`/tasks/{id}`), when known. */
  readonly urlTemplate: string | undefined;
  /** Attempts made, the first included. */
  readonly attempts: number;
  /** The system error code of the failure (`ECONNREFUSED`, `ENOTFOUND`, `DEPTH_ZERO_SELF_SIGNED_CERT`, …), when there is one. */
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
 * `error` as after `attempts` attempts: a create resent after refused connections (each send one
 * attempt) reports them all. Timeouts are left as they are. Not exported from the package.
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

/**
 * No complete response within the timeout (headers and body both count), or a call's `totalTimeout`
 * elapsed before it could finish (README "Retries and timeouts"). A `tasks.create` that ends with this
 * error sent nothing that could have created a task; the message says so (`attempts`: the POSTs sent,
 * each answered as not processed, 0 when nothing was sent).
 */
export class APIConnectionTimeoutError extends APIConnectionError {
  protected static override readonly errorKind: DeliveryErrorName = 'APIConnectionTimeoutError';
  declare name: 'APIConnectionTimeoutError';
  /** The timeout that elapsed, in ms. */
  readonly timeoutMs: number;

  /**
   * @param init.reason what the call was doing when its deadline passed, in place of "had no complete
   * response" (a create's "totalTimeout of 1500 ms elapsed while …; nothing was sent").
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

/**
 * A create whose outcome could not be established: the request may or may not have created a task.
 * Thrown when the create had no `orderNumber` to reconcile by, or reconciliation could not decide.
 * Before creating again, look the order up (`client.tasks.list({ search: orderNumber })`).
 */
export class TaskCreationOutcomeUnknownError extends DeliveryError {
  protected static override readonly errorKind: DeliveryErrorName = 'TaskCreationOutcomeUnknownError';
  declare name: 'TaskCreationOutcomeUnknownError';
  /** The order number of the create, when it had one. */
  readonly orderNumber: string | undefined;
  /**
   * Ms from when the error was thrown after which creating the order again can decide its outcome (the
   * service lists a new task within `listingDelayMs`): 0 when a retry can decide at once; `undefined`
   * when no retry can (no `orderNumber`). README "Exactly-once creation".
   */
  readonly retryAfterMs: number | undefined;
  /**
   * Ids of tasks with this exact order number found outside the create's time window (created before it
   * began, or the service's clock disagrees): one may be this create's task. Empty when none were found.
   */
  readonly candidateTaskIds: readonly string[];

  /** `reason` is this error's own words; another error's message never goes in it (pass it as `cause`). */
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

/** A webhook body that is not a valid webhook. `field` names the first offending field. */
export class WebhookPayloadError extends DeliveryError {
  protected static override readonly errorKind: DeliveryErrorName = 'WebhookPayloadError';
  declare name: 'WebhookPayloadError';
  /** Dotted path of the first offending field, or empty when the body as a whole is wrong. */
  readonly field: string;
  readonly issues: readonly ValidationIssue[];

  constructor(issues: readonly ValidationIssue[]) {
    super(`Invalid webhook payload: ${describeIssues(issues)}`);
    this.issues = issues;
    this.field = issues[0]?.path ?? '';
  }
}

/**
 * Iteration over a list stopped at its page cap (`maxPages`) while the service still reported more
 * pages: a guard against a service that serves the same page forever.
 */
export class PaginationLimitError extends DeliveryError {
  protected static override readonly errorKind: DeliveryErrorName = 'PaginationLimitError';
  declare name: 'PaginationLimitError';
  /** The cap that was reached. */
  readonly maxPages: number;

  constructor(maxPages: number) {
    super(`Stopped after ${maxPages} pages while the service still reported more; raise maxPages to read further`);
    this.maxPages = maxPages;
  }
}

/** `client.tasks.waitForStatus` gave up: the task did not reach one of the statuses in time. */
export class StatusWaitTimeoutError extends DeliveryError {
  protected static override readonly errorKind: DeliveryErrorName = 'StatusWaitTimeoutError';
  declare name: 'StatusWaitTimeoutError';
  readonly taskId: string;
  /** The statuses waited for. */
  readonly statuses: readonly string[];
  /** The last status seen, when a read succeeded. */
  readonly lastStatus: string | undefined;
  /** The wait that elapsed, in ms. */
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
 * A response body (decoded: after gzip, deflate or brotli) exceeded the client's `maxResponseBytes`.
 * Reading stopped there and the transfer was cancelled. Not retried: the same answer would come again.
 * A create answered this way is reconciled, never sent again blindly.
 */
export class ResponseTooLargeError extends DeliveryError {
  protected static override readonly errorKind: DeliveryErrorName = 'ResponseTooLargeError';
  declare name: 'ResponseTooLargeError';
  readonly method: string;
  readonly url: string;
  /** HTTP status of the oversized response. */
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
 * A webhook handler's `onEvent` did not settle within `eventTimeoutMs`. Its processing slot was freed
 * (the next events go on); the call itself cannot be stopped and may still finish later. Passed to
 * `onError` with the event.
 */
export class WebhookEventTimeoutError extends DeliveryError {
  protected static override readonly errorKind: DeliveryErrorName = 'WebhookEventTimeoutError';
  declare name: 'WebhookEventTimeoutError';
  /** The task of the event. */
  readonly taskId: string;
  /** The event kind (the webhook body's `status`). */
  readonly kind: string;
  /** The deadline that elapsed, in ms. */
  readonly timeoutMs: number;

  constructor(init: { taskId: string; kind: string; timeoutMs: number }) {
    super(`Webhook onEvent for task ${init.taskId} (${init.kind}) did not settle within ${init.timeoutMs} ms`);
    this.taskId = init.taskId;
    this.kind = init.kind;
    this.timeoutMs = init.timeoutMs;
  }
}

/**
 * The shared store (the `store` option: Redis or your own `DeliveryStore`) failed or gave no answer
 * within its timeout. A create fails closed with it: nothing was sent, so no second fee is risked; try
 * again once the store is back. `operation` names the store call; the key is never shown.
 */
export class StoreUnavailableError extends DeliveryError {
  protected static override readonly errorKind: DeliveryErrorName = 'StoreUnavailableError';
  declare name: 'StoreUnavailableError';
  /** The store operation that failed: `setIfAbsent`, `get`, `compareAndSet` or `delete`. */
  readonly operation: string;

  constructor(init: { operation: string; reason: string; cause?: unknown }) {
    super(`Shared store unavailable (${init.operation}): ${init.reason}`, { cause: init.cause });
    this.operation = init.operation;
  }
}

const ANCESTRY: Record<DeliveryErrorName, readonly DeliveryErrorName[]> = {
  DeliveryError: [],
  APIError: ['DeliveryError'],
  BadRequestError: ['APIError', 'DeliveryError'],
  AuthenticationError: ['APIError', 'DeliveryError'],
  InsufficientBalanceError: ['APIError', 'DeliveryError'],
  PermissionDeniedError: ['APIError', 'DeliveryError'],
  NotFoundError: ['APIError', 'DeliveryError'],
  ConflictError: ['APIError', 'DeliveryError'],
  UnprocessableEntityError: ['APIError', 'DeliveryError'],
  RateLimitError: ['APIError', 'DeliveryError'],
  InternalServerError: ['APIError', 'DeliveryError'],
  APIConnectionError: ['DeliveryError'],
  APIConnectionTimeoutError: ['APIConnectionError', 'DeliveryError'],
  APIUserAbortError: ['DeliveryError'],
  RequestValidationError: ['DeliveryError'],
  ResponseValidationError: ['DeliveryError'],
  ConfigurationError: ['DeliveryError'],
  TaskCreationOutcomeUnknownError: ['DeliveryError'],
  DuplicateTaskError: ['DeliveryError'],
  WebhookPayloadError: ['DeliveryError'],
  PaginationLimitError: ['DeliveryError'],
  StatusWaitTimeoutError: ['DeliveryError'],
  ResponseTooLargeError: ['DeliveryError'],
  WebhookEventTimeoutError: ['DeliveryError'],
  StoreUnavailableError: ['DeliveryError'],
};

function isKind(error: unknown, kind: DeliveryErrorName): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const branded = error as Record<symbol, unknown>;
  const kinds = branded[KINDS];
  if (Array.isArray(kinds)) return kinds.includes(kind);
  if (branded[BRAND] !== true) return false;
  // An error from a copy of the SDK older than the kind chain: judged by its name.
  const name = (error as { name?: unknown }).name;
  if (typeof name !== 'string' || !Object.hasOwn(ANCESTRY, name)) return false;
  return name === kind || ANCESTRY[name as DeliveryErrorName].includes(kind);
}

/** True for any SDK error, also across realms (another copy of the SDK, a worker). */
export const isDeliveryError = (error: unknown): error is DeliveryError => isKind(error, 'DeliveryError');
/** True for {@link APIError} and its subclasses (the service answered non-2xx). */
export const isAPIError = (error: unknown): error is APIError => isKind(error, 'APIError');
/** True for {@link BadRequestError} (a 400 answer), also from another copy of the SDK. */
export const isBadRequestError = (error: unknown): error is BadRequestError => isKind(error, 'BadRequestError');
/** True for {@link AuthenticationError} (a 401 answer), also from another copy of the SDK. */
export const isAuthenticationError = (error: unknown): error is AuthenticationError =>
  isKind(error, 'AuthenticationError');
/** True for {@link PermissionDeniedError} (a 403 answer), also from another copy of the SDK. */
export const isPermissionDeniedError = (error: unknown): error is PermissionDeniedError =>
  isKind(error, 'PermissionDeniedError');
/** True for {@link NotFoundError} (a 404 answer), also from another copy of the SDK. */
export const isNotFoundError = (error: unknown): error is NotFoundError => isKind(error, 'NotFoundError');
/** True for {@link ConflictError} (a 409 answer), also from another copy of the SDK. */
export const isConflictError = (error: unknown): error is ConflictError => isKind(error, 'ConflictError');
/** True for {@link UnprocessableEntityError} (a 422 answer), also from another copy of the SDK. */
export const isUnprocessableEntityError = (error: unknown): error is UnprocessableEntityError =>
  isKind(error, 'UnprocessableEntityError');
/** True for {@link RateLimitError} (a 429 answer), also from another copy of the SDK. */
export const isRateLimitError = (error: unknown): error is RateLimitError => isKind(error, 'RateLimitError');
/** True for {@link InternalServerError} (a ≥ 500 answer), also from another copy of the SDK. */
export const isInternalServerError = (error: unknown): error is InternalServerError =>
  isKind(error, 'InternalServerError');
/** True for {@link ConfigurationError} (a client option missing or invalid), also from another copy of the SDK. */
export const isConfigurationError = (error: unknown): error is ConfigurationError =>
  isKind(error, 'ConfigurationError');
/** True for {@link APIConnectionError} and {@link APIConnectionTimeoutError}. */
export const isAPIConnectionError = (error: unknown): error is APIConnectionError =>
  isKind(error, 'APIConnectionError');
/** True for {@link APIConnectionTimeoutError}. */
export const isAPIConnectionTimeoutError = (error: unknown): error is APIConnectionTimeoutError =>
  isKind(error, 'APIConnectionTimeoutError');
/** True for {@link APIUserAbortError}. */
export const isAPIUserAbortError = (error: unknown): error is APIUserAbortError => isKind(error, 'APIUserAbortError');
/** True for {@link InsufficientBalanceError}. */
export const isInsufficientBalanceError = (error: unknown): error is InsufficientBalanceError =>
  isKind(error, 'InsufficientBalanceError');
/** True for {@link RequestValidationError}. */
export const isRequestValidationError = (error: unknown): error is RequestValidationError =>
  isKind(error, 'RequestValidationError');
/** True for {@link ResponseValidationError}. */
export const isResponseValidationError = (error: unknown): error is ResponseValidationError =>
  isKind(error, 'ResponseValidationError');
/** True for {@link TaskCreationOutcomeUnknownError}. */
export const isTaskCreationOutcomeUnknownError = (error: unknown): error is TaskCreationOutcomeUnknownError =>
  isKind(error, 'TaskCreationOutcomeUnknownError');
/** True for {@link DuplicateTaskError}. */
export const isDuplicateTaskError = (error: unknown): error is DuplicateTaskError =>
  isKind(error, 'DuplicateTaskError');
/** True for {@link WebhookPayloadError}. */
export const isWebhookPayloadError = (error: unknown): error is WebhookPayloadError =>
  isKind(error, 'WebhookPayloadError');
/** True for {@link PaginationLimitError}. */
export const isPaginationLimitError = (error: unknown): error is PaginationLimitError =>
  isKind(error, 'PaginationLimitError');
/** True for {@link StatusWaitTimeoutError}. */
export const isStatusWaitTimeoutError = (error: unknown): error is StatusWaitTimeoutError =>
  isKind(error, 'StatusWaitTimeoutError');
/** True for {@link ResponseTooLargeError}. */
export const isResponseTooLargeError = (error: unknown): error is ResponseTooLargeError =>
  isKind(error, 'ResponseTooLargeError');
/** True for {@link WebhookEventTimeoutError}. */
export const isWebhookEventTimeoutError = (error: unknown): error is WebhookEventTimeoutError =>
  isKind(error, 'WebhookEventTimeoutError');
/** True for {@link StoreUnavailableError}. */
export const isStoreUnavailableError = (error: unknown): error is StoreUnavailableError =>
  isKind(error, 'StoreUnavailableError');
