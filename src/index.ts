/**
 * delivery-task-sdk: the typed client of the Delivery Task Service.
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
  WebhookEventTimeoutError,
  WebhookPayloadError,
} from './core/errors.js';
export type { OperationName } from './core/operations.js';
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
  DEFAULT_STORE_TIMEOUT_MS,
  type DeliveryStore,
  type MemoryStoreOptions,
  memoryStore,
  type StoreFence,
  type StoreScope,
  type StoreWriteOptions,
  storeKey,
  withStoreDeadline,
} from './core/store.js';
export { VERSION } from './core/version.js';
export { MAX_CAUSE_DEPTH, REDACTED, Redactor, SECRET_HEADERS } from './internal/redact.js';
export { type ClientRedactor, redactorOf, sellerIdOf } from './internal/seller.js';
export { FILS_PER_KWD, KWD_MAX_DIGITS, type KwdAmount, type KwdFormatOptions, kwd } from './kwd.js';
export { Branches } from './resources/branches.js';
export type { ResourceHandle } from './resources/handle.js';
export { TaskListPromise, type ToArrayOptions } from './resources/task-list/list-promise.js';
export {
  DEDUPE_WINDOW,
  DEFAULT_LIST_CONCURRENCY,
  DEFAULT_MAX_PAGES,
  MAX_LIST_CONCURRENCY,
  MAX_REREADS,
  TaskPage,
} from './resources/task-list/page.js';
export {
  type FindByOrderNumberOptions,
  type TaskListOptions,
  Tasks,
  type WaitForStatusOptions,
} from './resources/tasks.js';
export { Wallet } from './resources/wallet.js';
export { Branch, BranchListResponse, toBranches } from './schemas/branch.js';
export { Estimate, EstimateParams, EstimatePoint, EstimateRequestParams } from './schemas/estimate.js';
export {
  FINAL_STATUSES,
  HAPPY_PATH,
  isFinalStatus,
  type LifecycleEvent,
  type LifecycleStatus,
  movesFrom,
  TASK_STATUSES,
  WEBHOOK_ONLY_EVENTS,
  type WebhookOnlyEvent,
} from './schemas/lifecycle.js';
export { KwdNumber, KwdText, Latitude, Longitude, MAX_KWD_AMOUNT } from './schemas/primitives.js';
export {
  AddressDetails,
  AddressEntry,
  AddressParts,
  AnyTaskStatus,
  Coordinates,
  Driver,
  SellerDetail,
  StatusHistoryEntry,
  Task,
  type TaskFields,
  TaskStatus,
  TaskWithId,
  TravelDetail,
} from './schemas/task.js';
export {
  DeliveryLocation,
  PickupLocation,
  type TaskCreateFields,
  TaskCreateParams,
  TaskCreateResponse,
} from './schemas/task-create.js';
export {
  MAX_PAGE_SIZE,
  TaskListParams,
  TaskListRequestParams,
  TaskListResponse,
  type TaskSortField,
} from './schemas/task-list.js';
export { MIN_TOP_UP_KWD, WalletBalance, WalletTopUp, WalletTopUpParams } from './schemas/wallet.js';
export type {
  InboxAppend,
  InboxEntry,
  InboxEventSummary,
  InboxInspection,
  WebhookInbox,
} from './webhooks/inbox.js';
export {
  createWebhookHandler,
  MAX_WEBHOOK_TASK_ID_LENGTH,
  parseWebhookEvent,
  WEBHOOK_EVENT_KINDS,
  type WebhookClient,
  type WebhookDedupeOptions,
  WebhookDeliveryLocation,
  type WebhookEvent,
  type WebhookEventFields,
  WebhookEventKind,
  type WebhookFetchContext,
  type WebhookHandler,
  type WebhookHandlerOptions,
  type WebhookHandlerStats,
  type WebhookNodeOptions,
  type WebhookNodeRequest,
  type WebhookNodeResponse,
  WebhookPickupLocation,
  type WebhookStartSyncOptions,
  type WebhookSyncOptions,
  type WebhookSyncResult,
  WebhookTask,
  WebhookTaskId,
} from './webhooks/index.js';
