/** `is…` type guards, true also for errors from another copy of the SDK. @module */
import type {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InsufficientBalanceError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
} from './api-errors.js';
import type {
  ConfigurationError,
  DeliveryError,
  DuplicateTaskError,
  PaginationLimitError,
  RequestValidationError,
  ResponseTooLargeError,
  ResponseValidationError,
  StatusWaitTimeoutError,
  StoreUnavailableError,
  TaskCreationOutcomeUnknownError,
  WebhookEventTimeoutError,
  WebhookPayloadError,
} from './classes.js';
import { hasKind as isKind } from './kinds.js';

/** True for any SDK error, also across realms (another copy of the SDK, a worker). */
export const isDeliveryError = (error: unknown): error is DeliveryError => isKind(error, 'DeliveryError');
/** True for {@link APIError} and its subclasses (the service answered non-2xx). */
export const isAPIError = (error: unknown): error is APIError => isKind(error, 'APIError');
/** True for {@link BadRequestError} (a 400 answer). */
export const isBadRequestError = (error: unknown): error is BadRequestError => isKind(error, 'BadRequestError');
/** True for {@link AuthenticationError} (a 401 answer). */
export const isAuthenticationError = (error: unknown): error is AuthenticationError =>
  isKind(error, 'AuthenticationError');
/** True for {@link PermissionDeniedError} (a 403 answer). */
export const isPermissionDeniedError = (error: unknown): error is PermissionDeniedError =>
  isKind(error, 'PermissionDeniedError');
/** True for {@link NotFoundError} (a 404 answer). */
export const isNotFoundError = (error: unknown): error is NotFoundError => isKind(error, 'NotFoundError');
/** True for {@link ConflictError} (a 409 answer). */
export const isConflictError = (error: unknown): error is ConflictError => isKind(error, 'ConflictError');
/** True for {@link UnprocessableEntityError} (a 422 answer). */
export const isUnprocessableEntityError = (error: unknown): error is UnprocessableEntityError =>
  isKind(error, 'UnprocessableEntityError');
/** True for {@link RateLimitError} (a 429 answer). */
export const isRateLimitError = (error: unknown): error is RateLimitError => isKind(error, 'RateLimitError');
/** True for {@link InternalServerError} (a ≥ 500 answer). */
export const isInternalServerError = (error: unknown): error is InternalServerError =>
  isKind(error, 'InternalServerError');
/** True for {@link ConfigurationError} (a client option missing or invalid). */
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
