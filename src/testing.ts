/**
 * `delivery-task-sdk/testing`: a stateful msw mock of the Delivery Task Service for tests (README "Testing
 * your integration"). Requires the optional peer dependency `msw` (3.x); the main entry never loads it.
 *
 * ```ts
 * import { createMockDeliveryService } from 'delivery-task-sdk/testing';
 * const mock = createMockDeliveryService();
 * mock.listen();
 * ```
 * @module delivery-task-sdk/testing
 */
export type { OperationName } from './core/operations.js';
export { DRIFT_MUTATIONS, type MockDriftMutation } from './testing/drift.js';
export { MOCK_FAULT_KINDS } from './testing/faults.js';
export {
  type MockHttpServer,
  type MockHttpServerOptions,
  mockRequestListener,
  startMockHttpServer,
} from './testing/http-server.js';
export {
  type ActiveFaultRule,
  type IssuedTopUp,
  type MockChange,
  type MockObservers,
  type NumberedWebhookDelivery,
  observersOf,
} from './testing/mock-observers.js';
export { MOCK_DEFAULTS } from './testing/options.js';
export type {
  NumberedRequest,
  RecordedBodySummary,
  RequestLogEntry,
  RequestLogPage,
  RequestPage,
  StoredBody,
} from './testing/request-log.js';
export { checkMockOptions } from './testing/seed.js';
export { createMockDeliveryService } from './testing/service.js';
export type { TaskRecord as MockTaskRecord, WebhookHistoryEntry } from './testing/state.js';
export type {
  MockAccount,
  MockBranch,
  MockDeliveryService,
  MockDeliveryServiceOptions,
  MockFault,
  MockFaultRule,
  MockListenOptions,
  MockOperation,
  MockPoint,
  MockPricing,
  MockRecordedRequest,
  MockRecordedStatus,
  MockSeedTask,
  MockWallet,
  MockWebhookDelivery,
} from './testing/types.js';
export { TopUpLinkError, type TopUpLinkProblem } from './testing/wallet.js';
export type { HeldDelivery, WebhookDeliveryPage } from './testing/webhook-delivery.js';
