/**
 * `delivery-task-sdk/schemas`: the zod schemas of the service's requests and answers, each with a type
 * of the same name (`Task` is both), the task statuses and their order, and the limits the requests are
 * checked against. The client validates with them already; import them to check data of your own
 * (an order read from a file, a task kept in a database). Built with `zod/mini`.
 *
 * ```ts
 * import { TaskCreateParams } from 'delivery-task-sdk/schemas';
 * import * as z from 'zod/mini';
 *
 * const checked = z.safeParse(TaskCreateParams, JSON.parse(orderFile));
 * ```
 * @module delivery-task-sdk/schemas
 */
export { Branch } from './schemas/branch.js';
export { BranchListResponse } from './schemas/branch-list.js';
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
export {
  MAX_WEBHOOK_TASK_ID_LENGTH,
  WEBHOOK_EVENT_KINDS,
  WebhookDeliveryLocation,
  WebhookEventKind,
  WebhookPickupLocation,
  WebhookTask,
  WebhookTaskId,
} from './schemas/webhook.js';
