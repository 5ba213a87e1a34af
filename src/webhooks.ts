/**
 * `delivery-task-sdk/webhooks`: webhook receiving alone (the handler, `parseWebhookEvent`, the webhook
 * schemas), for apps that only receive. The CommonJS build of this entry re-exports the main entry's
 * module, so its classes are the main entry's own.
 * @module delivery-task-sdk/webhooks
 */
export * from './webhooks/index.js';
