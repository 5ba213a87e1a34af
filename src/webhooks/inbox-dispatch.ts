/**
 * The processing of a handler's inbox (docs/several-instances.md "Durable intake"): its worker claims
 * events while the queue has room, each passes through the queue and the pipeline, then is marked done or
 * failed in the inbox, or given back unprocessed.
 * @module
 */
import { StoreUnavailableError } from '../core/errors.js';
import type { LevelLogger } from '../internal/logger.js';
import { AdmittedEvents } from './admitted-events.js';
import { parseWebhookEventAt, type WebhookEvent } from './event.js';
import type { TaskEventFilter } from './event-filter.js';
import { type InboxEntry, InboxWorker, type WebhookInbox, withDeadline } from './inbox.js';
import type { WebhookHandlerStats } from './options.js';
import type { EventPipeline } from './pipeline.js';
import type { EventSlot, TaskEventQueue } from './queue.js';
import type { EventOutcome } from './stored-dedupe.js';

/** Pauses before a claimed event is tried again while the store does not answer, ms (doubling). */
const FIRST_STORE_WAIT_MS = 50;
const LAST_STORE_WAIT_MS = 1_000;

/** Thrown by a slot given once the event's claim has less than `eventTimeoutMs` left: given back. */
const claimExpiring = new Error('the claim expires before onEvent could end');

/** What an {@link InboxDispatch} shares with its handler (`…Ms`: ms). */
export interface InboxDispatchParts {
  readonly inbox: WebhookInbox;
  readonly pipeline: EventPipeline;
  readonly filter: TaskEventFilter;
  readonly queue: TaskEventQueue;
  readonly stats: WebhookHandlerStats;
  readonly logger: LevelLogger;
  readonly concurrency: number;
  readonly maxQueue: number;
  readonly maxQueueBytes: number;
  readonly inboxTimeoutMs: number;
  readonly eventTimeoutMs: number;
  readonly pollMs: number;
}

/** Claims events from the inbox and processes each once, in order per task; started at once. */
export class InboxDispatch {
  readonly #parts: InboxDispatchParts;
  /** Claims events while the queue has room. */
  readonly worker: InboxWorker;
  /** Events this process stored, carried parsed to their claim here. */
  readonly admitted: AdmittedEvents;
  #waitingOnStore = 0;
  /** Marks sent by the worker and not answered yet: at most 9 × `concurrency` (see the worker's `room`). */
  readonly #marks = new Set<Promise<void>>();

  constructor(parts: InboxDispatchParts) {
    this.#parts = parts;
    const { inbox, queue, concurrency, maxQueue } = parts;
    this.admitted = new AdmittedEvents(maxQueue, parts.maxQueueBytes);
    this.worker = new InboxWorker({
      inbox,
      // Claimed ahead of the free slots: `concurrency`, or 7 × while events are quick (see #quick), in claims
      // of half that at least (a claim per freed slot would cost a round trip per event); one that waits too
      // long is given back (see #dispatch). Claimed and not marked stays within 9 × concurrency.
      room: () => {
        const held = queue.running + queue.waiting;
        const most = (this.#quick ? 8 : 2) * concurrency;
        const room = Math.min(
          maxQueue - queue.waiting,
          most - held,
          most + concurrency - held - this.#marks.size,
        );
        return held < concurrency || room >= most / 2 ? room : 0;
      },
      paused: () => this.#waitingOnStore > 0,
      dispatch: (entry, claimedAt) => this.#dispatch(inbox, entry, claimedAt),
      timeoutMs: parts.inboxTimeoutMs,
      pollMs: parts.pollMs,
      batch: 8 * concurrency,
      logger: parts.logger,
    });
    this.worker.start();
  }

  /**
   * The last event held its slot under a sixteenth of the time a claim leaves it (`visibilityTimeoutMs` −
   * `eventTimeoutMs`: 2.5 s with the defaults), so 7 × `concurrency` claimed ahead all start within half of
   * it. Deeper claims ahead spare claims (each a round trip, and a commit on PostgreSQL) and let the leases
   * of many events be taken together; slow events keep `concurrency` ahead, so none is given back for
   * waiting.
   */
  #quick = false;

  /** Marks sent and not answered yet. */
  get marking(): number {
    return this.#marks.size;
  }

  /** Resolves once no mark is pending. */
  async settled(): Promise<void> {
    while (this.#marks.size > 0) await Promise.all(this.#marks);
  }

  /**
   * Passes a claimed event (carried from its admission here, else parsed) through the queue and pipeline,
   * then marks it done or failed in the inbox. One whose claim (sent at `claimedAt`) has less than
   * `eventTimeoutMs` left when its turn comes, or when it gets a slot for `onEvent`, is given back
   * unprocessed: it could still be running when another worker claims it.
   */
  async #dispatch(inbox: WebhookInbox, entry: InboxEntry, claimedAt: number): Promise<void> {
    const { stats, queue, filter } = this.#parts;
    stats.claimed++;
    let claimed: WebhookEvent;
    try {
      claimed = this.admitted.take(entry) ?? parseWebhookEventAt(entry.body, new Date(entry.receivedAt));
    } catch (error) {
      await this.#mark(
        inbox.fail(entry.id, `unreadable entry: ${(error as Error)?.message ?? String(error)}`),
      );
      return;
    }
    await queue.push(
      claimed.taskId,
      async (slot) => {
        const expiring = () =>
          Date.now() - claimedAt + this.#parts.eventTimeoutMs >= inbox.visibilityTimeoutMs;
        if (expiring()) {
          await this.#giveBack(inbox, entry, claimed);
          return;
        }
        const startedAt = Date.now();
        const outcome = await this.#processWaiting(claimed, inbox, entry, {
          enter: async () => {
            await slot.enter();
            if (expiring()) throw claimExpiring;
          },
          leave: slot.leave,
        });
        this.#quick = 16 * (Date.now() - startedAt) < inbox.visibilityTimeoutMs - this.#parts.eventTimeoutMs;
        // Not processed (the store did not answer): claimed again after its visibility timeout.
        if (outcome === undefined) return;
        // Marked once the task's lease is released, so whoever claims its next event finds the lease free.
        this.#marking(
          (async () => {
            await filter.released(claimed.taskId);
            await (outcome === 'failed'
              ? inbox.fail(
                  entry.id,
                  `confirmation or onEvent failed for task ${claimed.taskId} (${claimed.kind}); see onError`,
                )
              : inbox.complete(entry.id));
          })(),
        );
      },
      entry.body.length,
    );
    this.worker.wake();
  }

  /**
   * Gives a claimed event back unprocessed, where the inbox can (else it is claimed again after its
   * visibility timeout); kept parsed for its next claim here.
   */
  async #giveBack(inbox: WebhookInbox, entry: InboxEntry, event: WebhookEvent): Promise<void> {
    this.admitted.keep(entry, event);
    if (inbox.release === undefined) return;
    await this.#mark(inbox.release(entry.id));
  }

  /**
   * The pipeline's processing of a claimed event, waiting (50 ms doubling to 1 s) while the store does not
   * answer or the lease is taken; `undefined` after half the visibility timeout (given back, or left
   * unmarked).
   */
  async #processWaiting(
    event: WebhookEvent,
    inbox: WebhookInbox,
    entry: InboxEntry,
    slot: EventSlot,
  ): Promise<EventOutcome | undefined> {
    const holdMs = Math.ceil(inbox.visibilityTimeoutMs / 2);
    const giveUpAt = Date.now() + holdMs;
    let waiting = false;
    try {
      for (let pause = FIRST_STORE_WAIT_MS; ; pause = Math.min(2 * pause, LAST_STORE_WAIT_MS)) {
        try {
          return await this.#parts.pipeline.process(event, true, slot);
        } catch (error) {
          if (error === claimExpiring) {
            await this.#giveBack(inbox, entry, event);
            return undefined;
          }
          // Thrown only while the store does not answer or the task's lease is taken, before onEvent ran.
          if (Date.now() + pause > giveUpAt) {
            this.#parts.logger.warn(
              `Task ${event.taskId} (${event.kind}) given back to the inbox: not started within ${holdMs} ms`,
            );
            await this.#giveBack(inbox, entry, event);
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
      this.worker.wake();
    });
  }

  /**
   * Waits for one marking call; a failure is logged (the event is claimed again after the visibility
   * timeout).
   */
  async #mark(marking: Promise<void>): Promise<void> {
    try {
      await withDeadline(marking, this.#parts.inboxTimeoutMs, 'inbox mark');
    } catch (error) {
      this.#parts.logger.warn(
        `Could not mark an inbox event (${(error as Error)?.message ?? String(error)}); it is processed again`,
      );
    }
  }
}
