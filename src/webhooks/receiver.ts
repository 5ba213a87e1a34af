/** `createWebhookHandler` (OpenAPI webhook `taskStatusChanged`; README "Receiving webhooks"). @module */
import { ConfigurationError, StoreUnavailableError } from '../core/errors.js';
import { clientInternalsOf } from '../internal/client-internals.js';
import { driftReporter } from '../internal/drift-report.js';
import { LevelLogger, resolveLogLevel } from '../internal/logger.js';
import { checkValidation } from '../internal/options.js';
import { Redactor } from '../internal/redact.js';
import { TaskEventMemory } from './dedupe.js';
import { parseWebhookEventAt, type WebhookEvent, type WebhookReading } from './event.js';
import { type InboxEntry, InboxWorker, onInboxReset, type WebhookInbox, withDeadline } from './inbox.js';
import { WebhookIntake } from './intake.js';
import {
  baseUrlOf,
  handlerSettings,
  inboxPollMs,
  type WebhookHandler,
  type WebhookHandlerOptions,
  type WebhookHandlerStats,
} from './options.js';
import { describeError, EventPipeline } from './pipeline.js';
import { TaskEventQueue } from './queue.js';
import { SharedState } from './shared-state.js';
import { type EventOutcome, isLeaseBusy, StoredTaskEvents } from './stored-dedupe.js';
import {
  TaskSync,
  type WebhookStartSyncOptions,
  type WebhookSyncOptions,
  type WebhookSyncResult,
} from './sync.js';

/** Pauses before a claimed event is tried again while the store does not answer, ms (doubling). */
const FIRST_STORE_WAIT_MS = 50;
const LAST_STORE_WAIT_MS = 1_000;

class WebhookReceiver implements WebhookHandler {
  readonly #pipeline: EventPipeline;
  readonly #stored: StoredTaskEvents | undefined;
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
  readonly #inbox: WebhookInbox | undefined;
  readonly #inboxTimeoutMs: number;
  readonly #eventTimeoutMs: number;
  readonly #worker: InboxWorker | undefined;
  readonly #maxQueue: number;
  #waitingOnStore = 0;
  /** Marks sent by the workers and not answered yet: at most 3 × `concurrency` (see the worker's `room`). */
  readonly #marks = new Set<Promise<void>>();
  /** The intake's adapters (`intake.ts`). */
  readonly fetch: WebhookHandler['fetch'];
  readonly node: WebhookHandler['node'];

  constructor(options: WebhookHandlerOptions) {
    if (typeof options?.onEvent !== 'function') {
      throw new ConfigurationError(
        'onEvent',
        'Missing onEvent: createWebhookHandler({ onEvent: (event) => … })',
      );
    }
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
    if (options.onDrift !== undefined && typeof options.onDrift !== 'function') {
      throw new ConfigurationError(
        'onDrift',
        `Invalid onDrift: expected a function, got ${typeof options.onDrift}`,
      );
    }
    const reportDrift = driftReporter(this.#logger, options.onDrift);
    const reading: WebhookReading = {
      validation: checkValidation(options.validation),
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
    let memory: TaskEventMemory | undefined;
    if (settings.dedupe && store !== undefined) {
      // A lease outlives the longest processing: onEvent, and the store calls around it.
      this.#stored = new StoredTaskEvents(
        state,
        settings.storeTtlMs,
        eventTimeoutMs + 4 * storeTimeoutMs + 1000,
      );
    } else if (settings.dedupe) {
      memory = new TaskEventMemory(settings.windowMs, settings.maxTasks);
    }
    this.#pipeline = new EventPipeline({
      onEvent: options.onEvent,
      onError,
      client: options.client,
      confirms,
      confirming: settings.confirming,
      memory,
      stored: this.#stored,
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
      spanMs: this.#stored !== undefined ? settings.storeTtlMs : settings.windowMs,
      storeTimeoutMs,
      report: (error) => this.#pipeline.report(error, undefined),
      logger: this.#logger,
      reportDrift: (drift) => reportDrift('tasks.list', [drift], undefined),
    });
    this.#maxQueue = settings.maxQueue;
    this.#queue = new TaskEventQueue(concurrency, this.#maxQueue, settings.maxQueueBytes);
    this.#inbox = inbox;
    this.#inboxTimeoutMs = settings.inboxTimeoutMs;
    this.#eventTimeoutMs = eventTimeoutMs;
    this.#worker = this.#startInbox(options, concurrency);
    ({ fetch: this.fetch, node: this.node } = new WebhookIntake(
      settings,
      reading,
      this.#pipeline,
      memory,
      this.#queue,
      this.#stats,
      this.#logger,
      () => this.#worker?.wake(),
    ));
  }

  #startInbox(options: WebhookHandlerOptions, concurrency: number): InboxWorker | undefined {
    const inbox = this.#inbox;
    if (inbox === undefined) return undefined;
    // Events can wait in the inbox: none is processed on this process's memory during a store outage.
    this.#stored?.holdDuringOutages(inbox.visibilityTimeoutMs, Math.ceil(inbox.visibilityTimeoutMs / 4));
    onInboxReset(inbox, {
      count: () => void this.#stats.resets++,
      logger: this.#logger,
      sync: typeof options.client?.tasks?.list === 'function' ? () => this.#sync.sync() : undefined,
      report: (error) => void this.#pipeline.report(error, undefined),
    });
    if (options.inboxWorkers === false) return undefined;
    const worker = new InboxWorker({
      inbox,
      // Up to `concurrency` claimed ahead of the free slots (one that waits too long is given back, see
      // #dispatch); claimed and not marked stays within 3 × concurrency.
      room: () =>
        Math.min(
          this.#maxQueue - this.#queue.waiting,
          2 * concurrency - this.#queue.running - this.#queue.waiting,
          3 * concurrency - this.#queue.running - this.#queue.waiting - this.#marks.size,
        ),
      paused: () => this.#waitingOnStore > 0,
      dispatch: (entry, claimedAt) => this.#dispatch(inbox, entry, claimedAt),
      timeoutMs: this.#inboxTimeoutMs,
      pollMs: inboxPollMs(options),
      batch: 2 * concurrency,
      logger: this.#logger,
    });
    worker.start();
    return worker;
  }

  /**
   * Passes a claimed event through the queue and pipeline, then marks it done or failed in the inbox. One
   * whose claim (sent at `claimedAt`) has less than `eventTimeoutMs` left when its turn comes is given back
   * unprocessed: it could still be running when another worker claims it.
   */
  async #dispatch(inbox: WebhookInbox, entry: InboxEntry, claimedAt: number): Promise<void> {
    this.#stats.claimed++;
    let event: WebhookEvent;
    try {
      event = parseWebhookEventAt(entry.body, new Date(entry.receivedAt));
    } catch (error) {
      await this.#mark(
        inbox.fail(entry.id, `unreadable entry: ${(error as Error)?.message ?? String(error)}`),
      );
      return;
    }
    await this.#queue.push(
      event.taskId,
      async () => {
        if (Date.now() - claimedAt + this.#eventTimeoutMs >= inbox.visibilityTimeoutMs) {
          if (inbox.release !== undefined) await this.#mark(inbox.release(entry.id));
          return;
        }
        const stored = this.#stored;
        const outcome =
          stored === undefined
            ? await this.#pipeline.process(event)
            : await this.#processWaiting(stored, event, inbox, entry.id);
        // Not processed (the store did not answer): claimed again after its visibility timeout.
        if (outcome === undefined) return;
        // Marked once the task's lease is released, so whoever claims its next event finds the lease free.
        this.#marking(
          (async () => {
            await stored?.released(event.taskId);
            await (outcome === 'failed'
              ? inbox.fail(
                  entry.id,
                  `confirmation or onEvent failed for task ${event.taskId} (${event.kind}); see onError`,
                )
              : inbox.complete(entry.id));
          })(),
        );
      },
      entry.body.length,
    );
    this.#worker?.wake();
  }

  /**
   * `processStored` for a claimed event, waiting (50 ms doubling to 1 s) while the store does not answer
   * or the lease is taken; `undefined` after half the visibility timeout (given back, or left unmarked).
   */
  async #processWaiting(
    stored: StoredTaskEvents,
    event: WebhookEvent,
    inbox: WebhookInbox,
    id: string,
  ): Promise<EventOutcome | undefined> {
    const holdMs = Math.ceil(inbox.visibilityTimeoutMs / 2);
    const giveUpAt = Date.now() + holdMs;
    let waiting = false;
    try {
      for (let pause = FIRST_STORE_WAIT_MS; ; pause = Math.min(2 * pause, LAST_STORE_WAIT_MS)) {
        try {
          return await this.#pipeline.processStored(stored, event);
        } catch (error) {
          if (!(error instanceof StoreUnavailableError) && !isLeaseBusy(error)) {
            this.#stats.failed++;
            await this.#pipeline.report(error, event);
            return 'failed';
          }
          if (Date.now() + pause > giveUpAt) {
            this.#logger.warn(
              `Task ${event.taskId} (${event.kind}) given back to the inbox: not started within ${holdMs} ms`,
            );
            if (inbox.release !== undefined) await this.#mark(inbox.release(id));
            return undefined;
          }
          // A store that does not answer stops claims; a busy lease is one task's matter.
          if (!waiting && error instanceof StoreUnavailableError) {
            waiting = true;
            this.#waitingOnStore++;
          }
          await new Promise((resolve) => setTimeout(resolve, pause));
        }
      }
    } finally {
      if (waiting) this.#waitingOnStore--;
    }
  }

  #marking(marking: Promise<void>): void {
    const mark = this.#mark(marking);
    this.#marks.add(mark);
    void mark.finally(() => {
      this.#marks.delete(mark);
      this.#worker?.wake();
    });
  }

  async #settled(): Promise<void> {
    while (this.#marks.size > 0) await Promise.all(this.#marks);
    await this.#stored?.settled();
  }

  /**
   * Waits for one marking call; a failure is logged (the event is claimed again after the visibility
   * timeout).
   */
  async #mark(marking: Promise<void>): Promise<void> {
    try {
      await withDeadline(marking, this.#inboxTimeoutMs, 'inbox mark');
    } catch (error) {
      this.#logger.warn(
        `Could not mark an inbox event (${(error as Error)?.message ?? String(error)}); it is processed again`,
      );
    }
  }

  get stats(): Readonly<WebhookHandlerStats> {
    return Object.freeze({ ...this.#stats });
  }

  idle = async (): Promise<void> => {
    for (;;) {
      await this.#queue.idle();
      await this.#settled();
      const worker = this.#worker;
      if (worker === undefined) return;
      const claimed = await worker.claimAfterRunning();
      if (claimed === 0 && this.#queue.waiting === 0 && this.#queue.running === 0 && this.#marks.size === 0)
        return;
    }
  };

  close = async (): Promise<void> => {
    this.#worker?.stop();
    await this.#queue.idle();
    await this.#settled();
  };

  sync = (options?: WebhookSyncOptions): Promise<WebhookSyncResult> => this.#sync.sync(options);

  startSync = (options?: WebhookStartSyncOptions): (() => Promise<void>) => this.#sync.start(options);

  /** Queues an event found by a sync (no room check: a sync bounds what it has in flight). */
  #submit(event: WebhookEvent): Promise<EventOutcome> {
    let outcome: EventOutcome = 'failed';
    return this.#queue
      .push(event.taskId, async () => {
        outcome = await this.#pipeline.process(event);
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
