/**
 * The kind chain that lets `instanceof` and the `is…` guards recognise errors from any copy of the SDK
 * (ESM and CommonJS in one process, or two installed versions): global symbols, not classes.
 * @module
 */

/** Set (to `true`) on every SDK error, by every copy and version of the SDK. */
export const BRAND = Symbol.for('delivery-task-sdk.error');
/** The error's kind and its ancestors', e.g. `['NotFoundError', 'APIError', 'DeliveryError']`. */
export const KINDS = Symbol.for('delivery-task-sdk.error.kinds');

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

export const ANCESTRY: Readonly<Record<DeliveryErrorName, readonly DeliveryErrorName[]>> = {
  DeliveryError: [],
  RequestValidationError: ['DeliveryError'],
  ResponseValidationError: ['DeliveryError'],
  ConfigurationError: ['DeliveryError'],
  APIError: ['DeliveryError'],
  BadRequestError: ['APIError', 'DeliveryError'],
  AuthenticationError: ['APIError', 'DeliveryError'],
  PermissionDeniedError: ['APIError', 'DeliveryError'],
  NotFoundError: ['APIError', 'DeliveryError'],
  ConflictError: ['APIError', 'DeliveryError'],
  UnprocessableEntityError: ['APIError', 'DeliveryError'],
  RateLimitError: ['APIError', 'DeliveryError'],
  InternalServerError: ['APIError', 'DeliveryError'],
  InsufficientBalanceError: ['APIError', 'DeliveryError'],
  APIConnectionError: ['DeliveryError'],
  APIConnectionTimeoutError: ['APIConnectionError', 'DeliveryError'],
  APIUserAbortError: ['DeliveryError'],
  TaskCreationOutcomeUnknownError: ['DeliveryError'],
  DuplicateTaskError: ['DeliveryError'],
  WebhookPayloadError: ['DeliveryError'],
  PaginationLimitError: ['DeliveryError'],
  StatusWaitTimeoutError: ['DeliveryError'],
  ResponseTooLargeError: ['DeliveryError'],
  WebhookEventTimeoutError: ['DeliveryError'],
  StoreUnavailableError: ['DeliveryError'],
};

/** Whether `error` is an SDK error of `kind` or one of its subclasses, from any copy of the SDK. */
export function isKind(error: unknown, kind: DeliveryErrorName): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const branded = error as Record<symbol, unknown>;
  const kinds = branded[KINDS];
  if (Array.isArray(kinds)) return kinds.includes(kind);
  if (branded[BRAND] !== true) return false;
  // A copy of the SDK older than the kind chain: judged by its name.
  const name = (error as { name?: unknown }).name;
  if (typeof name !== 'string' || !Object.hasOwn(ANCESTRY, name)) return false;
  return name === kind || ANCESTRY[name as DeliveryErrorName].includes(kind);
}
