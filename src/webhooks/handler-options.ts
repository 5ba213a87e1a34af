/**
 * The shape of {@link WebhookHandlerOptions} as a schema, defaults included, read by `readOptions` in
 * `createWebhookHandler` (docs/webhooks.md).
 * @module
 */
import * as z from 'zod/mini';
import type { Logger } from '../core/options.js';
import type { DeliveryStore } from '../core/store.js';
import { DEFAULT_STORE_TIMEOUT_MS } from '../core/store.js';
import {
  accepted,
  flag,
  hook,
  logLevelOption,
  MAX_TIMER_MS,
  optionsObject,
  storeOption,
  upTo,
  validationOption,
} from '../internal/option-checks.js';
import { invalidOption, readOptions } from '../internal/read-options.js';
import { FINAL_STATUSES } from '../schemas/lifecycle.js';
import { isWebhookInbox, type WebhookInbox } from './inbox.js';
import type { WebhookClient, WebhookHandlerOptions } from './options.js';

/** The bounds of `dedupe` given as an object, its defaults applied. */
export const DedupeBoundsSchema = optionsObject(
  {
    windowMs: upTo(1, MAX_TIMER_MS),
    maxTasks: upTo(1, 10_000_000),
    storeTtlMs: upTo(1),
  },
  { windowMs: 600_000, maxTasks: 10_000, storeTtlMs: 86_400_000 },
);

/**
 * The options of `createWebhookHandler`, their defaults applied but `confirm` (it depends on `client`) and
 * `maxQueueBytes` (on `maxBodyBytes`); `dedupe`'s bounds are read by {@link DedupeBoundsSchema}.
 */
export const WebhookHandlerOptionsSchema = optionsObject(
  {
    onEvent: accepted<WebhookHandlerOptions['onEvent']>((value) => typeof value === 'function', 'a function'),
    validation: validationOption,
    onDrift: hook<NonNullable<WebhookHandlerOptions['onDrift']>>(),
    client: z.optional(z.custom<WebhookClient>()),
    confirm: z.optional(
      accepted<NonNullable<WebhookHandlerOptions['confirm']>>(
        (value) => typeof value === 'boolean' || Array.isArray(value),
        'true, false or an array of event kinds',
      ),
    ),
    dedupe: z.optional(
      accepted<NonNullable<WebhookHandlerOptions['dedupe']>>(
        (value) => typeof value === 'boolean' || (typeof value === 'object' && value !== null),
        'true, false or { windowMs, maxTasks, storeTtlMs }',
      ),
    ),
    store: storeOption,
    storeTimeoutMs: upTo(1, MAX_TIMER_MS),
    syncSkewMs: upTo(0),
    maxBodyBytes: upTo(1, MAX_TIMER_MS),
    bodyTimeoutMs: upTo(1, MAX_TIMER_MS),
    onError: hook<NonNullable<WebhookHandlerOptions['onError']>>(),
    concurrency: upTo(1, 10_000),
    eventTimeoutMs: upTo(1, MAX_TIMER_MS),
    maxQueue: upTo(1, 10_000_000),
    maxQueueBytes: upTo(1),
    inbox: z.optional(accepted<WebhookInbox>(isWebhookInbox, 'a WebhookInbox, e.g. redisInbox(redis)')),
    inboxTimeoutMs: upTo(1, MAX_TIMER_MS),
    inboxWorkers: flag,
    inboxPollMs: upTo(1, MAX_TIMER_MS),
    logger: z.optional(z.custom<Logger>()),
    logLevel: logLevelOption,
  },
  {
    validation: 'tolerant',
    dedupe: true,
    storeTimeoutMs: DEFAULT_STORE_TIMEOUT_MS,
    syncSkewMs: 300_000,
    maxBodyBytes: 1024 * 1024,
    bodyTimeoutMs: 2000,
    concurrency: 8,
    eventTimeoutMs: 30_000,
    maxQueue: 10_000,
    inboxTimeoutMs: 2000,
    inboxWorkers: true,
    inboxPollMs: 100,
  },
);

/** {@link WebhookHandlerOptions} as read by {@link WebhookHandlerOptionsSchema}. */
export type ReadHandlerOptions = z.output<typeof WebhookHandlerOptionsSchema>;

/** The handler's settings: the options read, `confirm`, `dedupe` and `maxQueueBytes` resolved. */
export interface HandlerSettings {
  readonly confirms: (kind: string) => boolean;
  readonly confirming: boolean;
  readonly dedupe: boolean;
  readonly windowMs: number;
  readonly maxTasks: number;
  readonly storeTtlMs: number;
  readonly store?: DeliveryStore | undefined;
  readonly storeTimeoutMs: number;
  readonly maxBodyBytes: number;
  readonly eventTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  readonly concurrency: number;
  readonly syncSkewMs: number;
  readonly maxQueue: number;
  readonly maxQueueBytes: number;
  readonly inbox?: WebhookInbox | undefined;
  readonly inboxTimeoutMs: number;
}

/**
 * The settings of `options` read by {@link WebhookHandlerOptionsSchema}.
 * @throws {ConfigurationError} for `dedupe`'s bounds, `confirm` without a client, `maxQueueBytes` under
 * `maxBodyBytes`, an inbox whose `visibilityTimeoutMs` is not over `eventTimeoutMs`.
 */
export function handlerSettings(options: ReadHandlerOptions): HandlerSettings {
  const { client, dedupe, maxBodyBytes, eventTimeoutMs, inbox } = options;
  const confirm = options.confirm ?? (client !== undefined ? FINAL_STATUSES : false);
  if (confirm !== false && typeof client?.tasks?.retrieve !== 'function') {
    throw invalidOption('client', 'a client with tasks.retrieve, as confirm is on', client);
  }
  const confirmedKinds = new Set<string>(Array.isArray(confirm) ? [...confirm, ...FINAL_STATUSES] : []);
  const bounds = readOptions(DedupeBoundsSchema, typeof dedupe === 'object' ? dedupe : {}, 'dedupe');
  const maxQueueBytes = options.maxQueueBytes ?? Math.max(64 * 1024 * 1024, maxBodyBytes);
  if (maxQueueBytes < maxBodyBytes) {
    throw invalidOption('maxQueueBytes', `an integer ≥ maxBodyBytes (${maxBodyBytes})`, maxQueueBytes);
  }
  if (inbox !== undefined && !(inbox.visibilityTimeoutMs > eventTimeoutMs)) {
    throw invalidOption(
      'inbox',
      `an inbox whose visibilityTimeoutMs is longer than eventTimeoutMs (${eventTimeoutMs})`,
      inbox,
      `one of ${inbox.visibilityTimeoutMs}`,
    );
  }
  return {
    ...options,
    ...bounds,
    confirms: confirm === true ? () => true : (kind) => confirmedKinds.has(kind),
    confirming: confirm !== false,
    dedupe: dedupe !== false,
    maxQueueBytes,
  };
}
