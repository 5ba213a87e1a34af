/**
 * Receiving the service's status webhooks (spec § "Events"): `parseWebhookEvent` for a body,
 * `createWebhookHandler` for a receiver with Web (`Request → Response`) and Node (`req, res`) adapters,
 * a filter shared across instances through a `store`, and `sync()` for lost events.
 * @module
 */
export {
  MAX_WEBHOOK_TASK_ID_LENGTH,
  WEBHOOK_EVENT_KINDS,
  WebhookDeliveryLocation,
  WebhookEventKind,
  WebhookPickupLocation,
  WebhookTask,
  WebhookTaskId,
} from '../schemas/webhook.js';
export { parseWebhookEvent, type WebhookEvent, type WebhookEventFields, type WebhookReading } from './event.js';
export {
  createWebhookHandler,
  type WebhookClient,
  type WebhookDedupeOptions,
  type WebhookFetchContext,
  type WebhookHandler,
  type WebhookHandlerOptions,
  type WebhookHandlerStats,
  type WebhookNodeOptions,
} from './handler.js';
export type {
  InboxAppend,
  InboxEntry,
  InboxEventSummary,
  InboxInspection,
  WebhookInbox,
} from './inbox.js';
export type { WebhookNodeRequest, WebhookNodeResponse } from './node.js';
export type { WebhookStartSyncOptions, WebhookSyncOptions, WebhookSyncResult } from './sync.js';
