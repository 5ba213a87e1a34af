/**
 * The durable webhook inbox (the handler's `inbox` option; README "Running several instances",
 * docs/several-instances.md "Durable intake"): the receiver answers 200 only once the webhook is
 * written there, and workers in any process take the events out, process them through the handler's
 * pipeline and mark them done. `redisInbox` (`delivery-task-sdk/redis`) and `postgresInbox`
 * (`delivery-task-sdk/postgres`) implement {@link WebhookInbox}; this module holds the interface and the
 * handler's worker loop.
 * @module
 */
import type { LevelLogger } from '../internal/logger.js';
import { unrefTimer } from './shared-state.js';

/** A webhook to write into the inbox: what the receiver read, with the fields it parsed. */
export interface InboxAppend {
  /** The task id of the webhook (`_id`, else `id`). */
  readonly taskId: string;
  /** The event kind (the body's `status`). */
  readonly kind: string;
  /** The body as received, JSON text. */
  readonly body: string;
  /** When it was received, ms since the epoch. */
  readonly receivedAt: number;
}

/** One event a worker claimed from the inbox. */
export interface InboxEntry {
  /** The inbox's id of the entry (a stream id, a row id): what `complete` and `fail` take. */
  readonly id: string;
  /** The body as received, JSON text. */
  readonly body: string;
  /** When it was received, ms since the epoch. */
  readonly receivedAt: number;
  /** Times it has been claimed, this claim included (more than 1: a worker died or gave up on it). */
  readonly attempts: number;
}

/** One pending or failed event, as {@link WebhookInbox.inspect} lists it (never the body). */
export interface InboxEventSummary {
  readonly id: string;
  readonly taskId: string;
  readonly kind: string;
  /** When it was received, ms since the epoch. */
  readonly receivedAt: number;
  /** `pending`: waiting or being processed; `failed`: given up on, kept for {@link WebhookInbox.replay}. */
  readonly state: 'pending' | 'failed';
  /** Times it was claimed. */
  readonly attempts: number;
  /** Why it failed (the error's name and message), for a failed event. */
  readonly error?: string;
}

/** What {@link WebhookInbox.inspect} returns. */
export interface InboxInspection {
  /** Events waiting or being processed. */
  readonly pending: number;
  /** Events given up on, kept for replay. */
  readonly failed: number;
  /** The oldest pending events, then the oldest failed ones, `limit` at most. */
  readonly events: readonly InboxEventSummary[];
}

/**
 * Where a webhook handler with the `inbox` option writes each webhook before answering 200, and where its
 * workers take events from. Implementations: `redisInbox` (`delivery-task-sdk/redis`), `postgresInbox`
 * (`delivery-task-sdk/postgres`). Every method rejects when the inbox cannot answer.
 */
export interface WebhookInbox {
  /**
   * How long a claimed event stays with its worker, ms; past it, another worker may claim it (its worker
   * is presumed dead). The handler refuses an inbox whose timeout is not longer than its `eventTimeoutMs`.
   */
  readonly visibilityTimeoutMs: number;
  /**
   * Writes one webhook durably; resolves once it is stored (or once it is known to be stored already).
   * @throws when it cannot (the inbox down, or full: beyond its stated bound); the receiver then answers 503.
   */
  append(entry: InboxAppend): Promise<void>;
  /**
   * Claims up to `max` events for the worker `consumer`: events whose previous claim expired first, then
   * new ones, oldest first. An event whose claims reached the inbox's `maxAttempts` is moved to the
   * failed events instead of being returned.
   */
  claim(consumer: string, max: number): Promise<InboxEntry[]>;
  /**
   * Marks a claimed event done (it is then trimmed after the inbox's retention). The handler calls it for
   * many events at once while draining: `redisInbox` and `postgresInbox` send the calls made meanwhile as
   * one command; an inbox of your own may do the same, or one call each.
   */
  complete(id: string): Promise<void>;
  /** Marks a claimed event failed: kept, listed by {@link inspect}, processed again only by {@link replay}. */
  fail(id: string, error: string): Promise<void>;
  /**
   * Gives a claimed event back at once, without counting that claim as an attempt: the handler calls it
   * for an event it could not start (its store did not answer). Optional; without it, the event is
   * claimed again after the visibility timeout (counted).
   */
  release?(id: string): Promise<void>;
  /** Lists pending and failed events (never bodies), `limit` at most (default 100). */
  inspect(options?: { limit?: number }): Promise<InboxInspection>;
  /** Puts failed events back to pending (all of them without `ids`); resolves with how many. */
  replay(ids?: readonly string[]): Promise<number>;
  /** Trims done events older than the retention and refreshes what bounds the inbox; run by the workers every few seconds. */
  maintain?(): Promise<void>;
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

/** `promise`, or a rejection after `timeoutMs` ms (the promise itself goes on; its outcome is ignored). */
export function withDeadline<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  promise.catch(() => {});
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** What an {@link InboxWorker} needs of its handler. */
export interface InboxWorkerContext {
  readonly inbox: WebhookInbox;
  /** Room in the handler's queue for more events now. */
  readonly room: () => number;
  /** True while no event should be claimed (claimed ones wait for the store); polled every `pollMs`. */
  readonly paused?: () => boolean;
  /** Hands a claimed entry to the handler's queue; resolves once it has been processed and marked. */
  readonly dispatch: (entry: InboxEntry) => Promise<void>;
  /** Deadline of one inbox call, ms. */
  readonly timeoutMs: number;
  /** Pause between two claims that found nothing, ms. */
  readonly pollMs: number;
  /** Events claimed at once at most. */
  readonly batch: number;
  readonly logger: LevelLogger;
}

/** Pause after a failed claim, ms (doubling up to {@link MAX_FAILURE_PAUSE_MS}). */
const FIRST_FAILURE_PAUSE_MS = 100;
const MAX_FAILURE_PAUSE_MS = 5_000;
/** Pause between two maintenance runs of one worker, ms. */
const MAINTAIN_EVERY_MS = 5_000;

/**
 * The worker loop of one handler: claims events when its queue has room, hands them over, and claims
 * again at once after a full batch, after `pollMs` otherwise. A failing inbox is logged once (a warning)
 * until a claim succeeds again (an info line). Timers do not keep the process alive.
 */
export class InboxWorker {
  readonly #context: InboxWorkerContext;
  /** This worker's consumer name: random, so a restarted process never takes over a dead one's claims by name. */
  readonly consumer = `worker-${globalThis.crypto.randomUUID()}`;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #claiming: Promise<number> | undefined;
  #stopped = false;
  #failing = false;
  #failurePauseMs = FIRST_FAILURE_PAUSE_MS;
  #lastMaintainedAt = 0;
  /** Woken while a claim was running: claim again right after it. */
  #again = false;

  constructor(context: InboxWorkerContext) {
    this.#context = context;
  }

  /** Starts claiming (on a later turn of the event loop). */
  start(): void {
    this.#schedule(0);
  }

  /** Stops claiming; events already handed over go on. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  /** Claims once now (unless a claim is running: then waits for it); resolves with the number of events claimed. */
  claimNow(): Promise<number> {
    this.#claiming ??= this.#claim().finally(() => {
      this.#claiming = undefined;
    });
    return this.#claiming;
  }

  /** Claims once, starting after the claim running now if any (that one may have read the inbox before a change). */
  async claimAfterRunning(): Promise<number> {
    await this.#claiming;
    return this.claimNow();
  }

  /**
   * Claims again as soon as possible: the queue has room again. Without a timer (a 0 ms timer waits
   * about 1 ms): at once when no claim is running, else right after the running one.
   */
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

  /** One claim, then the next one: at once after a full batch or a wake meanwhile, after `pollMs` otherwise. */
  #run(): void {
    if (this.#claiming === undefined) this.#again = false;
    void this.claimNow().then((claimed) => {
      if (this.#failing) this.#schedule(this.#failurePauseMs);
      else if ((claimed >= this.#context.batch || this.#again) && this.#context.room() > 0) this.wake();
      else if (claimed > 0 || this.#context.room() > 0) this.#schedule(this.#context.pollMs);
      // No room: `wake()` claims again when an event finishes.
    });
  }

  async #claim(): Promise<number> {
    const { inbox, timeoutMs, logger } = this.#context;
    const max = Math.min(this.#context.batch, this.#context.room());
    if (max <= 0 || this.#stopped || this.#context.paused?.() === true) return 0;
    let entries: InboxEntry[];
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
    for (const entry of entries) void this.#context.dispatch(entry);
    return entries.length;
  }
}
