/**
 * The processing of one webhook event: the duplicate and order filter, confirmation, and `onEvent` under
 * its deadline (docs/webhooks.md "Duplicates and ordering", "Why and how to confirm").
 * @module
 */
import { DeliveryError, WebhookEventTimeoutError } from '../core/errors.js';
import { clientInternalsOf } from '../internal/client-internals.js';
import type { LevelLogger } from '../internal/logger.js';
import { assertTaskId } from '../internal/task-identity.js';
import { recordFailure, SpanKind, startSpan } from '../internal/tracing.js';
import type { Task } from '../schemas/task.js';
import { TaskConfirmations } from './confirmation.js';
import type { WebhookEvent } from './event.js';
import type { TaskEventFilter } from './event-filter.js';
import type { WebhookClient, WebhookHandlerOptions, WebhookHandlerStats } from './options.js';
import type { EventSlot } from './queue.js';
import type { EventDrop, EventOutcome } from './stored-dedupe.js';
import type { LeaseLapse } from './task-lease.js';

export interface PipelineParts {
  readonly onEvent: WebhookHandlerOptions['onEvent'];
  readonly onError: NonNullable<WebhookHandlerOptions['onError']>;
  readonly client: WebhookClient | undefined;
  /** True for the kinds confirmed before `onEvent`. */
  readonly confirms: (kind: string) => boolean;
  readonly confirming: boolean;
  /** The duplicate and order filter: in this process, in the store, or passing all (`dedupe: false`). */
  readonly filter: TaskEventFilter;
  readonly eventTimeoutMs: number;
  readonly logger: LevelLogger;
  readonly stats: WebhookHandlerStats;
}

export function describeError(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return String(error);
}

/** Filters, confirms and runs `onEvent` for one event at a time of a task (the queue orders them). */
export class EventPipeline {
  readonly #parts: PipelineParts;
  #confirmations: TaskConfirmations | undefined;

  constructor(parts: PipelineParts) {
    this.#parts = parts;
  }

  /**
   * Processes a webhook's event, or a sync's (already confirmed), through the filter: drops, confirms, runs
   * `onEvent` and records. Never throws, except with `canWait` (a claimed inbox event): a failure the
   * filter counts as a wait ({@link TaskEventFilter.isWait}) before `onEvent` ran is thrown, so the event
   * waits, as is what `slot.enter` throws. The filter enters the slot right before `onEvent` (after the
   * task's lease is taken and its record read); the slot is left once `onEvent` has returned or thrown: the
   * status is recorded outside it.
   */
  async process(received: WebhookEvent, canWait: boolean, slot: EventSlot): Promise<EventOutcome> {
    const { filter, stats } = this.#parts;
    let event: WebhookEvent = received;
    let ran = false;
    // Set while `slot.enter` runs: what it throws leaves the event to its caller.
    let entering = false;
    try {
      const toConfirm = !received.confirmed && this.#parts.confirms(received.kind);
      const early = await filter.beforeConfirm(received, toConfirm);
      if (early !== undefined) return this.#drop(early, received);
      if (toConfirm) {
        const confirmed = await this.#confirm(received);
        if (confirmed === undefined) return 'failed';
        event = confirmed;
      }
      const confirmedEvent = event;
      const effect = { advances: event.confirmed || !this.#parts.confirming, confirmed: event.confirmed };
      const outcome = await filter.process(
        event,
        effect,
        async () => {
          entering = true;
          await slot.enter();
          entering = false;
        },
        () => {
          ran = true;
          return this.#runOnEvent(confirmedEvent).finally(slot.leave);
        },
        (lapse, ttlMs) => this.#leaseLapsed(confirmedEvent, lapse, ttlMs),
      );
      if (outcome !== 'processed') return this.#drop(outcome, event);
      stats.processed++;
      return outcome;
    } catch (error) {
      if (canWait && !ran && (entering || filter.isWait(error))) throw error;
      stats.failed++;
      await this.report(error, event);
      return 'failed';
    }
  }

  #drop(drop: EventDrop, event: WebhookEvent): EventDrop {
    return drop === 'duplicate' ? this.dropDuplicate(event) : this.#dropOutOfOrder(event);
  }

  /**
   * Counted and logged: another instance may have processed the event too (docs/webhooks.md "Receiving on
   * several instances").
   */
  #leaseLapsed(event: WebhookEvent, lapse: LeaseLapse, ttlMs: number): void {
    this.#parts.stats.leaseLapsed++;
    const how = lapse === 'lost' ? 'was found gone or taken' : `outlived its ${ttlMs} ms TTL unrenewed`;
    this.#parts.logger.error(
      `Task ${event.taskId} (${event.status}): its processing lease ${how} while onEvent ran (a stall of this process, or a store that did not answer); another instance may have processed this status too`,
    );
  }

  /**
   * `onEvent` in a CONSUMER span when a tracer is registered (docs/configuration.md "Response metadata and
   * tracing").
   */
  async #runOnEvent(event: WebhookEvent): Promise<void> {
    const span = startSpan('webhook.process', SpanKind.CONSUMER, () => ({
      'messaging.operation.type': 'process',
      'messaging.system': 'delivery-task-service',
      'delivery.event_kind': event.kind,
      'delivery.task_id': event.taskId,
    }));
    if (span === undefined) return this.#callOnEvent(event);
    try {
      await this.#callOnEvent(event);
    } catch (error) {
      span.setAttribute('error.type', error instanceof Error ? error.name : 'Error');
      recordFailure(span, error);
      throw error;
    } finally {
      span.end();
    }
  }

  /** @throws what `onEvent` throws, or {@link WebhookEventTimeoutError} after `eventTimeoutMs`. */
  async #callOnEvent(event: WebhookEvent): Promise<void> {
    const timeoutMs = this.#parts.eventTimeoutMs;
    const running = Promise.resolve(this.#parts.onEvent(event));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new WebhookEventTimeoutError({ taskId: event.taskId, kind: event.kind, timeoutMs })),
        timeoutMs,
      );
    });
    try {
      await Promise.race([running, deadline]);
    } finally {
      clearTimeout(timer);
      running.catch(() => {});
    }
  }

  /** The event confirmed by `GET tasks/{id}`, or `undefined` (reported) when that failed. */
  async #confirm(received: WebhookEvent): Promise<WebhookEvent | undefined> {
    try {
      if (this.#confirmations === undefined) {
        const client = this.#parts.client as WebhookClient;
        const redactor = clientInternalsOf(client)?.redactor;
        this.#confirmations = new TaskConfirmations(async (taskId) => {
          const task = await client.tasks.retrieve(taskId);
          // Any client is held to the rule a `DeliveryClient` keeps: a read of another task confirms nothing.
          const answer = {
            method: 'GET',
            url: `tasks/${encodeURIComponent(taskId)}`,
            status: 200,
            body: task,
          };
          return assertTaskId(taskId, Object(task) as Task, answer, redactor);
        });
      }
      const task = await this.#confirmations.confirm(
        received.taskId,
        received.kind,
        received.receivedAt.getTime(),
      );
      const status = task.status;
      if (typeof status !== 'string' || status === '') {
        throw new DeliveryError(
          `Could not confirm task ${received.taskId}: GET tasks/{id} returned no status`,
        );
      }
      return { ...received, confirmed: true, status, task };
    } catch (error) {
      this.#parts.stats.failed++;
      await this.report(error, received);
      return undefined;
    }
  }

  dropDuplicate(event: WebhookEvent): 'duplicate' {
    this.#parts.stats.duplicates++;
    this.#parts.logger.debug(`Duplicate ${event.source} event dropped: task ${event.taskId} (${event.kind})`);
    return 'duplicate';
  }

  #dropOutOfOrder(event: WebhookEvent): 'outOfOrder' {
    this.#parts.stats.outOfOrder++;
    this.#parts.logger.debug(
      `Out-of-order ${event.source} event dropped: task ${event.taskId} (${event.status})`,
    );
    return 'outOfOrder';
  }

  /** Passes a failure to `onError`; its own failures are logged. */
  async report(error: unknown, event: WebhookEvent | undefined): Promise<void> {
    try {
      await this.#parts.onError(error, event);
    } catch (failure) {
      this.#parts.logger.error('onError failed', { error: describeError(failure) });
    }
  }
}
