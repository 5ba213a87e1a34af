/**
 * Receiving the service's status webhooks (OpenAPI webhook `taskStatusChanged`): `parseWebhookEvent` for a
 * body,
 * `createWebhookHandler` for a receiver with Web (`Request → Response`) and Node (`req, res`) adapters,
 * a filter shared across instances through a `store`, and `sync()` for lost events.
 * @module
 */
export { WebhookEventTimeoutError, WebhookPayloadError } from '../core/errors.js';
export type { Logger, LogLevel, ValidationMode } from '../core/options.js';
export {
  MAX_WEBHOOK_TASK_ID_LENGTH,
  WEBHOOK_EVENT_KINDS,
  WebhookDeliveryLocation,
  WebhookEventKind,
  WebhookPickupLocation,
  WebhookTask,
  WebhookTaskId,
} from '../schemas/webhook.js';
export {
  parseWebhookEvent,
  type WebhookEvent,
  type WebhookEventFields,
  type WebhookReading,
} from './event.js';
export type {
  InboxAppend,
  InboxEntry,
  InboxEventSummary,
  InboxInspection,
  WebhookInbox,
} from './inbox.js';
export type { WebhookNodeRequest, WebhookNodeResponse } from './node.js';
export type {
  WebhookClient,
  WebhookDedupeOptions,
  WebhookFetchContext,
  WebhookHandler,
  WebhookHandlerOptions,
  WebhookHandlerStats,
  WebhookNodeOptions,
} from './options.js';
export { createWebhookHandler } from './receiver.js';
export type { WebhookStartSyncOptions, WebhookSyncOptions, WebhookSyncResult } from './sync.js';
