/**
 * The processing of one webhook event: the duplicate and order filter, confirmation, and `onEvent` under
 * its deadline (docs/webhooks.md "Duplicates and ordering", "Why and how to confirm").
 * @module
 */
import { DeliveryError, StoreUnavailableError, WebhookEventTimeoutError } from '../core/errors.js';
import { clientInternalsOf } from '../internal/client-internals.js';
import type { LevelLogger } from '../internal/logger.js';
import { assertTaskId } from '../internal/task-identity.js';
import { recordFailure, SpanKind, startSpan } from '../internal/tracing.js';
import type { Task } from '../schemas/task.js';
import { TaskConfirmations } from './confirmation.js';
import type { TaskEventMemory } from './dedupe.js';
import type { WebhookEvent } from './event.js';
import type { WebhookClient, WebhookHandlerOptions, WebhookHandlerStats } from './options.js';
import { type EventOutcome, isLeaseBusy, type StoredTaskEvents } from './stored-dedupe.js';
import type { LeaseLapse } from './task-lease.js';

export interface PipelineParts {
  readonly onEvent: WebhookHandlerOptions['onEvent'];
  readonly onError: NonNullable<WebhookHandlerOptions['onError']>;
  readonly client: WebhookClient | undefined;
  /** True for the kinds confirmed before `onEvent`. */
  readonly confirms: (kind: string) => boolean;
  readonly confirming: boolean;
  /** The filter in this process (no `store`), or in the store; neither with `dedupe: false`. */
  readonly memory: TaskEventMemory | undefined;
  readonly stored: StoredTaskEvents | undefined;
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

  /** Processes a webhook's event, or a sync's (already confirmed). Never throws. */
  async process(received: WebhookEvent): Promise<EventOutcome> {
    const { memory, stored, stats } = this.#parts;
    const { taskId, kind } = received;
    let event: WebhookEvent = received;
    try {
      if (stored !== undefined) return await this.processStored(stored, received);
      // A sync finds mostly what webhooks brought: counted as duplicates rather than as late.
      if (received.source === 'sync' && memory?.isDuplicate(taskId, kind, Date.now())) {
        return this.dropDuplicate(received);
      }
      if (memory?.isOutOfOrder(taskId, kind, Date.now())) return this.#dropOutOfOrder(received);
      if (received.confirmed || this.#parts.confirms(kind)) {
        // A webhook admitted while one of its kind was being confirmed is a duplicate only if that GET
        // agreed.
        if (memory?.isDuplicate(taskId, kind, Date.now())) return this.dropDuplicate(received);
        const confirmed = received.confirmed ? received : await this.#confirm(received);
        if (confirmed === undefined) return 'failed';
        event = confirmed;
        // A stale read must not move the task backwards, nor pass a status again.
        if (event.status !== kind) {
          if (memory?.isDuplicate(taskId, event.status, Date.now())) return this.dropDuplicate(event);
          if (memory?.isOutOfOrder(taskId, event.status, Date.now())) return this.#dropOutOfOrder(event);
        }
        memory?.mark(taskId, event.status, Date.now());
        memory?.advance(taskId, event.status, Date.now(), true);
      } else if (!this.#parts.confirming) {
        memory?.advance(taskId, kind, Date.now(), false);
      }
      // An unconfirmed event next to confirmed ones moves nothing: it could be forged.
      await this.#runOnEvent(event);
      stats.processed++;
      return 'processed';
    } catch (error) {
      stats.failed++;
      await this.report(error, event);
      return 'failed';
    }
  }

  /**
   * {@link process} with the filter in the store, under the task's lease. While the store holds (an
   * inbox), a store failure or busy lease before `onEvent` ran is thrown, so the event waits.
   */
  async processStored(stored: StoredTaskEvents, received: WebhookEvent): Promise<EventOutcome> {
    const { taskId, kind } = received;
    let event: WebhookEvent | undefined = received;
    if (!received.confirmed && this.#parts.confirms(kind)) {
      const early = await stored.precheck(taskId, kind);
      if (early === 'duplicate') return this.dropDuplicate(received);
      if (early === 'outOfOrder') return this.#dropOutOfOrder(received);
      event = await this.#confirm(received);
      if (event === undefined) return 'failed';
    }
    const effect = { advances: event.confirmed || !this.#parts.confirming, confirmed: event.confirmed };
    let outcome: Awaited<ReturnType<StoredTaskEvents['process']>>;
    let ran = false;
    try {
      outcome = await stored.process(
        taskId,
        event.status,
        effect,
        () => {
          ran = true;
          return this.#runOnEvent(event);
        },
        (lapse, ttlMs) => this.#leaseLapsed(event, lapse, ttlMs),
      );
    } catch (error) {
      if (!ran && stored.holding && (error instanceof StoreUnavailableError || isLeaseBusy(error)))
        throw error;
      this.#parts.stats.failed++;
      await this.report(error, event);
      return 'failed';
    }
    if (outcome === 'duplicate') return this.dropDuplicate(event);
    if (outcome === 'outOfOrder') return this.#dropOutOfOrder(event);
    this.#parts.stats.processed++;
    return outcome;
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
