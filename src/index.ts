/**
 * delivery-task-sdk: the typed client of the Delivery Task Service. This entry holds what a merchant
 * writes against: the client, its resources' types, the errors, `kwd` and the pagination classes. The
 * zod schemas and the status lists are in `delivery-task-sdk/schemas`, the webhook handler in
 * `delivery-task-sdk/webhooks`, the mock in `delivery-task-sdk/testing` (README "Install").
 * @module delivery-task-sdk
 */

export { type ClientOptions, DeliveryClient } from './client.js';
export { APIPromise, type WithResponse } from './core/api-promise.js';
export {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  type APIErrorInit,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ConfigurationError,
  ConflictError,
  DeliveryError,
  type DeliveryErrorName,
  DuplicateTaskError,
  InsufficientBalanceError,
  InternalServerError,
  NotFoundError,
  PaginationLimitError,
  PermissionDeniedError,
  RateLimitError,
  RequestValidationError,
  ResponseTooLargeError,
  ResponseValidationError,
  StatusWaitTimeoutError,
  StoreUnavailableError,
  TaskCreationOutcomeUnknownError,
  UnprocessableEntityError,
  type ValidationIssue,
} from './core/errors.js';
export type {
  Logger,
  LogLevel,
  ReconciliationOptions,
  RequestOptions,
  SchemaDrift,
  TaskCreateOptions,
  ValidationMode,
} from './core/options.js';
export {
  type DeliveryStore,
  type MemoryStoreOptions,
  memoryStore,
  type StoreFence,
} from './core/store.js';
export { kwd } from './kwd.js';
export { Branches } from './resources/branches.js';
export type { ResourceHandle } from './resources/handle.js';
export { TaskListPromise, type ToArrayOptions } from './resources/task-list/list-promise.js';
export { TaskPage } from './resources/task-list/page.js';
export {
  type FindByOrderNumberOptions,
  type TaskListOptions,
  Tasks,
  type WaitForStatusOptions,
} from './resources/tasks.js';
export { Wallet } from './resources/wallet.js';
export type { Branch } from './schemas/branch.js';
export type { Estimate } from './schemas/estimate.js';
export type { Task, TaskStatus, TaskWithId } from './schemas/task.js';
export type { TaskCreateParams } from './schemas/task-create.js';
