/** `createWebhookHandler` (OpenAPI webhook `taskStatusChanged`; README "Receiving webhooks"). @module */
import { clientInternalsOf } from '../internal/client-internals.js';
import { driftReporter } from '../internal/drift-report.js';
import { LevelLogger, resolveLogLevel } from '../internal/logger.js';
import { readOptions } from '../internal/read-options.js';
import { Redactor } from '../internal/redact.js';
import type { WebhookEvent, WebhookReading } from './event.js';
import { type TaskEventFilter, taskEventFilter } from './event-filter.js';
import { handlerSettings, WebhookHandlerOptionsSchema } from './handler-options.js';
import { onInboxReset } from './inbox.js';
import { InboxDispatch } from './inbox-dispatch.js';
import { WebhookIntake } from './intake.js';
import {
  baseUrlOf,
  type WebhookHandler,
  type WebhookHandlerOptions,
  type WebhookHandlerStats,
} from './options.js';
import { describeError, EventPipeline } from './pipeline.js';
import { TaskEventQueue } from './queue.js';
import { SharedState } from './shared-state.js';
import type { EventOutcome } from './stored-dedupe.js';
import {
  TaskSync,
  type WebhookStartSyncOptions,
  type WebhookSyncOptions,
  type WebhookSyncResult,
} from './sync.js';

/**
 * A webhook handler in two parts: the intake (`intake.ts`: the adapters, admission, then the queue or the
 * inbox) and the processing (the queue, the pipeline with its filter, and the inbox's worker,
 * `inbox-dispatch.ts`), with the sync feeding the queue.
 */
class WebhookReceiver implements WebhookHandler {
  readonly #pipeline: EventPipeline;
  readonly #filter: TaskEventFilter;
  readonly #queue: TaskEventQueue;
  readonly #sync: TaskSync;
  readonly #logger: LevelLogger;
  readonly #stats: WebhookHandlerStats = {
    received: 0,
    processed: 0,
    duplicates: 0,
    outOfOrder: 0,
    rejected: 0,
    failed: 0,
    stored: 0,
    claimed: 0,
    leaseLapsed: 0,
    resets: 0,
  };
  /** The inbox's worker and its processing: none without an `inbox`, or with `inboxWorkers: false`. */
  readonly #inboxDispatch: InboxDispatch | undefined;
  /** The intake's adapters (`intake.ts`). */
  readonly fetch: WebhookHandler['fetch'];
  readonly node: WebhookHandler['node'];

  constructor(given: WebhookHandlerOptions) {
    const options = readOptions(WebhookHandlerOptionsSchema, given);
    const internals = clientInternalsOf(options.client);
    const clientLogging = internals?.logging;
    this.#logger = new LevelLogger(
      options.logger ?? clientLogging?.logger ?? console,
      options.logLevel === undefined && clientLogging !== undefined
        ? clientLogging.level
        : resolveLogLevel(options.logLevel),
      internals?.redactor ?? new Redactor([]),
    );
    const onError =
      options.onError ??
      ((error: unknown, event: WebhookEvent | undefined) =>
        this.#logger.error(
          event === undefined
            ? 'Webhook handler failed'
            : `Webhook processing failed for task ${event.taskId} (${event.kind})`,
          { error: describeError(error) },
        ));
    const reportDrift = driftReporter(this.#logger, options.onDrift);
    const reading: WebhookReading = {
      validation: options.validation === 'strict' ? 'strict' : 'tolerant',
      onDrift: (drift) => reportDrift('webhook', [drift], undefined),
    };
    const settings = handlerSettings(options);
    const { store, storeTimeoutMs, eventTimeoutMs, concurrency, inbox } = settings;
    const { confirms } = settings;
    const state = new SharedState({
      store,
      storeTimeoutMs,
      scope: { baseUrl: baseUrlOf(options.client) ?? 'default', sellerId: internals?.sellerId ?? 'default' },
      maxLocalKeys: 2 * settings.maxTasks + 16,
      logger: this.#logger,
    });
    this.#filter = taskEventFilter(settings, state);
    this.#pipeline = new EventPipeline({
      onEvent: options.onEvent,
      onError,
      client: options.client,
      confirms,
      confirming: settings.confirming,
      filter: this.#filter,
      eventTimeoutMs,
      logger: this.#logger,
      stats: this.#stats,
    });
    const list = options.client?.tasks?.list;
    const client = options.client;
    this.#sync = new TaskSync({
      state,
      list:
        typeof list === 'function' && client !== undefined
          ? (params, opts) => list.call(client.tasks, params, opts)
          : undefined,
      submit: (event) => this.#submit(event),
      maxInFlight: 2 * concurrency,
      skewMs: settings.syncSkewMs,
      spanMs: settings.dedupe && store !== undefined ? settings.storeTtlMs : settings.windowMs,
      storeTimeoutMs,
      report: (error) => this.#pipeline.report(error, undefined),
      logger: this.#logger,
      reportDrift: (drift) => reportDrift('tasks.list', [drift], undefined),
    });
    this.#queue = new TaskEventQueue(concurrency, settings.maxQueue, settings.maxQueueBytes);
    if (inbox !== undefined) {
      onInboxReset(inbox, {
        count: () => void this.#stats.resets++,
        logger: this.#logger,
        sync: typeof list === 'function' ? () => this.#sync.sync() : undefined,
        report: (error) => void this.#pipeline.report(error, undefined),
      });
    }
    this.#inboxDispatch =
      inbox === undefined || options.inboxWorkers === false
        ? undefined
        : new InboxDispatch({
            inbox,
            pipeline: this.#pipeline,
            filter: this.#filter,
            queue: this.#queue,
            stats: this.#stats,
            logger: this.#logger,
            concurrency,
            maxQueue: settings.maxQueue,
            maxQueueBytes: settings.maxQueueBytes,
            inboxTimeoutMs: settings.inboxTimeoutMs,
            eventTimeoutMs,
            pollMs: options.inboxPollMs,
          });
    ({ fetch: this.fetch, node: this.node } = new WebhookIntake(
      settings,
      reading,
      this.#pipeline,
      this.#filter,
      this.#queue,
      this.#stats,
      this.#logger,
      this.#inboxDispatch?.admitted,
      () => this.#inboxDispatch?.worker.wake(),
    ));
  }

  async #settled(): Promise<void> {
    await this.#inboxDispatch?.settled();
    await this.#filter.settled();
  }

  get stats(): Readonly<WebhookHandlerStats> {
    return Object.freeze({ ...this.#stats });
  }

  idle = async (): Promise<void> => {
    for (;;) {
      await this.#queue.idle();
      await this.#settled();
      const dispatch = this.#inboxDispatch;
      if (dispatch === undefined) return;
      const claimed = await dispatch.worker.claimAfterRunning();
      if (claimed === 0 && this.#queue.waiting === 0 && this.#queue.running === 0 && dispatch.marking === 0)
        return;
    }
  };

  close = async (): Promise<void> => {
    this.#inboxDispatch?.worker.stop();
    await this.#queue.idle();
    await this.#settled();
  };

  sync = (options?: WebhookSyncOptions): Promise<WebhookSyncResult> => this.#sync.sync(options);

  startSync = (options?: WebhookStartSyncOptions): (() => Promise<void>) => this.#sync.start(options);

  /** Queues an event found by a sync (no room check: a sync bounds what it has in flight). */
  #submit(event: WebhookEvent): Promise<EventOutcome> {
    let outcome: EventOutcome = 'failed';
    return this.#queue
      .push(event.taskId, async (slot) => {
        outcome = await this.#pipeline.process(event, false, slot);
      })
      .then(() => outcome);
  }
}

/**
 * Creates a webhook receiver (OpenAPI webhook `taskStatusChanged`; README "Receiving webhooks"): mount
 * `handler.fetch` (Web) or `handler.node` (Node) at the URL registered with the service. Each webhook is
 * answered 200 at once (the service waits 5 s and never retries) and processed afterwards by `onEvent`,
 * with bounded concurrency and queue, duplicate and order filtering and optional confirmation;
 * `sync()` catches the webhooks that never arrived.
 *
 * ```ts
 * const handler = createWebhookHandler({
 *   client,
 *   confirm: ['delivered', 'cancelled'],
 *   onEvent: async (event) => orders.updateStatus(event.taskId, event.status),
 * });
 * http.createServer((req, res) => handler.node(req, res)).listen(8080);
 * ```
 *
 * @throws {ConfigurationError} without `onEvent`, with `confirm` but no `client` with `tasks.retrieve`, a
 * `store` that is not a `DeliveryStore`, an `inbox` that is not a `WebhookInbox` (or whose
 * `visibilityTimeoutMs` is not over `eventTimeoutMs`), an unknown `logLevel`, or an option out of the
 * range {@link WebhookHandlerOptions} gives.
 */
export function createWebhookHandler(options: WebhookHandlerOptions): WebhookHandler {
  return new WebhookReceiver(options);
}
