/**
 * The durable webhook inbox interface and the handler's worker loop (docs/several-instances.md "Durable
 * intake").
 * @module
 */
import type { LevelLogger } from '../internal/logger.js';
import { unrefTimer } from './shared-state.js';

/**
 * A webhook to write into the inbox: its task id, kind (`status`), JSON body and arrival (ms since the
 * epoch).
 */
export interface InboxAppend {
  readonly taskId: string;
  readonly kind: string;
  readonly body: string;
  readonly receivedAt: number;
}

/**
 * One claimed event: the inbox's id (for `complete`, `fail`), the JSON body, arrival (ms since the epoch),
 * claims so far.
 */
export interface InboxEntry {
  readonly id: string;
  readonly body: string;
  readonly receivedAt: number;
  readonly attempts: number;
}

/** One pending or failed event, as {@link WebhookInbox.inspect} lists it (never the body). */
export interface InboxEventSummary {
  readonly id: string;
  readonly taskId: string;
  readonly kind: string;
  /** Ms since the epoch. */
  readonly receivedAt: number;
  /** `failed`: given up on, kept for {@link WebhookInbox.replay}. */
  readonly state: 'pending' | 'failed';
  readonly attempts: number;
  /** Why it failed. */
  readonly error?: string;
}

/** What {@link WebhookInbox.inspect} returns. */
export interface InboxInspection {
  readonly pending: number;
  readonly failed: number;
  /** The oldest pending events, then the oldest failed ones, `limit` at most. */
  readonly events: readonly InboxEventSummary[];
}

/**
 * Where the handler's `inbox` option writes each webhook before answering 200, and its workers claim
 * from (`redisInbox`, `postgresInbox`). Every method rejects when the inbox cannot answer.
 */
export interface WebhookInbox {
  /** How long a claimed event stays with its worker, ms; must exceed the handler's `eventTimeoutMs`. */
  readonly visibilityTimeoutMs: number;
  /** Writes one webhook durably. @throws when down or full: the receiver answers 503. */
  append(entry: InboxAppend): Promise<void>;
  /**
   * Claims up to `max` events, expired claims first, oldest first; past `maxAttempts` an event fails instead.
   */
  claim(consumer: string, max: number): Promise<InboxEntry[]>;
  /** Marks a claimed event done (many calls at once while draining: batching them is allowed). */
  complete(id: string): Promise<void>;
  /**
   * Marks a claimed event failed: kept, listed by {@link inspect}, processed again only by {@link replay}.
   */
  fail(id: string, error: string): Promise<void>;
  /** Optional: gives a claimed event back at once, the claim not counted (the store did not answer). */
  release?(id: string): Promise<void>;
  /** Lists pending and failed events (never bodies), `limit` at most (default 100). */
  inspect(options?: { limit?: number }): Promise<InboxInspection>;
  /** Puts failed events back to pending (all of them without `ids`); resolves with how many. */
  replay(ids?: readonly string[]): Promise<number>;
  /** Trims done events past the retention; run by the workers every 5 s. */
  maintain?(): Promise<void>;
  /**
   * Optional: checks what the inbox relies on in its server (`redisInbox`: eviction and persistence;
   * `postgresInbox`: its table) and prepares it. A service awaits it at boot; the other methods await it
   * first. @throws {ConfigurationError} for a server set up so that webhooks could be lost.
   */
  ready?(): Promise<void>;
  /**
   * Optional: calls `listener` once per reset of the inbox's server seen while running (`redisInbox`:
   * restarted empty or from an older snapshot, flushed), which lost the webhooks it held. The handler
   * counts it in `stats.resets`, logs one error and starts `sync()`. Returns the listener's removal.
   */
  onReset?(listener: (reset: { readonly reason: string }) => void): () => void;
}

/** True for an object with the methods of a {@link WebhookInbox}. */
export function isWebhookInbox(value: unknown): value is WebhookInbox {
  if (typeof value !== 'object' || value === null) return false;
  const inbox = value as Record<keyof WebhookInbox, unknown>;
  return (
    typeof inbox.visibilityTimeoutMs === 'number' &&
    [inbox.append, inbox.claim, inbox.complete, inbox.fail, inbox.inspect, inbox.replay].every(
      (member) => typeof member === 'function',
    )
  );
}

/**
 * What the handler does when its inbox's server was reset; `sync` is undefined without a client with
 * `tasks.list`.
 */
export interface InboxResetContext {
  readonly count: () => void;
  readonly logger: LevelLogger;
  readonly sync: (() => Promise<{ readonly tasks: number; readonly processed: number }>) | undefined;
  readonly report: (error: unknown) => void;
}

/**
 * On each reset `inbox` reports (docs/several-instances.md "Redis settings"): counted, one error line, a sync
 * at once.
 */
export function onInboxReset(inbox: WebhookInbox, context: InboxResetContext): void {
  const { count, logger, sync, report } = context;
  inbox.onReset?.(({ reason }) => {
    count();
    const lost = `Webhook inbox reset: ${reason}; the webhooks it held, answered 200 already, never reach onEvent`;
    if (sync === undefined) {
      logger.error(
        `${lost}, and cannot be recovered: sync() needs a client with tasks.list (createWebhookHandler({ client, … }))`,
      );
      return;
    }
    logger.error(`${lost}; sync() started, to pass on each task's latest status`);
    sync().then(
      (result) =>
        logger.info(
          `Sync after the inbox reset: ${result.tasks} tasks read, ${result.processed} statuses passed to onEvent`,
        ),
      report,
    );
  });
}

/** `promise`, or a rejection after `timeoutMs` ms (the promise itself goes on; its outcome is ignored). */
export function withDeadline<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  promise.catch(() => {});
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** What an {@link InboxWorker} needs of its handler (`timeoutMs`, `pollMs`: ms). */
export interface InboxWorkerContext {
  readonly inbox: WebhookInbox;
  readonly room: () => number;
  /** True while no event should be claimed; polled every `pollMs`. */
  readonly paused?: () => boolean;
  /** `claimedAt`: when the claim was sent, ms since the epoch. */
  readonly dispatch: (entry: InboxEntry, claimedAt: number) => Promise<void>;
  readonly timeoutMs: number;
  readonly pollMs: number;
  readonly batch: number;
  readonly logger: LevelLogger;
}

const FIRST_FAILURE_PAUSE_MS = 100;
const MAX_FAILURE_PAUSE_MS = 5_000;
const MAINTAIN_EVERY_MS = 5_000;

/**
 * Claims while the queue has room: again at once after a full batch, else after `pollMs`. Timers are unref'd.
 */
export class InboxWorker {
  readonly #context: InboxWorkerContext;
  readonly consumer = `worker-${globalThis.crypto.randomUUID()}`;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #claiming: Promise<number> | undefined;
  #stopped = false;
  #failing = false;
  #failurePauseMs = FIRST_FAILURE_PAUSE_MS;
  #lastMaintainedAt = 0;
  #again = false;

  constructor(context: InboxWorkerContext) {
    this.#context = context;
  }

  start(): void {
    this.#schedule(0);
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  /** Claims once now, or waits for the running claim; resolves with the count claimed. */
  claimNow(): Promise<number> {
    this.#claiming ??= this.#claim().finally(() => {
      this.#claiming = undefined;
    });
    return this.#claiming;
  }

  /** Claims once after the running claim, which may have read the inbox before a change. */
  async claimAfterRunning(): Promise<number> {
    await this.#claiming;
    return this.claimNow();
  }

  /** Claims again without a timer: at once, or right after the running claim. */
  wake(): void {
    if (this.#stopped || this.#failing) return;
    if (this.#claiming !== undefined) {
      if (!this.#again) {
        this.#again = true;
        void this.#claiming.then(() => this.#again && this.wake());
      }
      return;
    }
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#run();
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#run(), ms);
    unrefTimer(this.#timer);
  }

  #run(): void {
    if (this.#claiming === undefined) this.#again = false;
    void this.claimNow().then((claimed) => {
      if (this.#failing) this.#schedule(this.#failurePauseMs);
      else if ((claimed >= this.#context.batch || this.#again) && this.#context.room() > 0) this.wake();
      else if (claimed > 0 || this.#context.room() > 0) this.#schedule(this.#context.pollMs);
    });
  }

  async #claim(): Promise<number> {
    const { inbox, timeoutMs, logger } = this.#context;
    const max = Math.min(this.#context.batch, this.#context.room());
    if (max <= 0 || this.#stopped || this.#context.paused?.() === true) return 0;
    let entries: InboxEntry[];
    const claimedAt = Date.now();
    try {
      entries = await withDeadline(inbox.claim(this.consumer, max), timeoutMs, 'inbox claim');
      if (Date.now() - this.#lastMaintainedAt >= MAINTAIN_EVERY_MS && inbox.maintain !== undefined) {
        this.#lastMaintainedAt = Date.now();
        void withDeadline(inbox.maintain(), timeoutMs, 'inbox maintenance').catch((error: unknown) =>
          logger.warn(`Inbox maintenance failed: ${(error as Error)?.message ?? String(error)}`),
        );
      }
    } catch (error) {
      if (!this.#failing) {
        this.#failing = true;
        logger.warn(`Inbox claim failed (${(error as Error)?.message ?? String(error)}); retrying`);
      }
      this.#failurePauseMs = Math.min(2 * this.#failurePauseMs, MAX_FAILURE_PAUSE_MS);
      return 0;
    }
    if (this.#failing) {
      this.#failing = false;
      logger.info('Inbox answers again; processing webhooks from it');
    }
    this.#failurePauseMs = FIRST_FAILURE_PAUSE_MS;
    for (const entry of entries) void this.#context.dispatch(entry, claimedAt);
    return entries.length;
  }
}
