/**
 * The duplicate and order filter the pipeline passes each event through (docs/webhooks.md "Duplicates and
 * ordering"): in this process's memory (no `store`), in the store (across instances), or none
 * (`dedupe: false`). One interface, so the pipeline has one path.
 * @module
 */
import { StoreUnavailableError } from '../core/errors.js';
import { TaskEventMemory } from './dedupe.js';
import type { WebhookEvent } from './event.js';
import type { HandlerSettings } from './handler-options.js';
import type { SharedState } from './shared-state.js';
import { type EventDrop, isLeaseBusy, type RecordedEffect, StoredTaskEvents } from './stored-dedupe.js';
import type { LeaseLapse } from './task-lease.js';

/** Told when a task's lease lapsed while `onEvent` ran (the store's filter only). */
export type LeaseLapsed = (lapse: LeaseLapse, ttlMs: number) => void;

/** Filters a task's events: drops duplicates and statuses older than one processed, records the rest. */
export interface TaskEventFilter {
  /**
   * Where admission drops a webhook of a kind seen already, and marks one of a kind not to confirm once
   * queued or stored: the memory's filter only.
   */
  readonly arrivals: TaskEventMemory | undefined;
  /**
   * The drop decided before `GET tasks/{id}` confirms `received` (`toConfirm`: it will be), without the
   * task's lease: final.
   */
  beforeConfirm(received: WebhookEvent, toConfirm: boolean): Promise<EventDrop | undefined>;
  /**
   * Runs `run` for `event` (confirmed by now, when it was to be) unless it is a drop, once `enter` resolved
   * (a slot among the running `onEvent`; the store's filter takes the task's lease before), and records its
   * status with `effect`.
   * @throws what `enter` and `run` throw; for the store, also its failures and a busy lease.
   */
  process(
    event: WebhookEvent,
    effect: RecordedEffect,
    enter: () => Promise<void>,
    run: () => Promise<void>,
    lapsed: LeaseLapsed,
  ): Promise<'processed' | EventDrop>;
  /**
   * True for a failure thrown before `run` that leaves the event to wait (while the store holds events
   * for an inbox): the store did not answer, or the task's lease stayed taken.
   */
  isWait(error: unknown): boolean;
  /** Resolves once the task's last lease release is answered: an inbox event is marked done after it. */
  released(taskId: string): Promise<void>;
  /** Resolves once no lease release is pending. */
  settled(): Promise<void>;
}

/** `dedupe: false`: every event runs. The other filters start from it. */
class PassingFilter implements TaskEventFilter {
  readonly arrivals: TaskEventMemory | undefined;

  async beforeConfirm(_received: WebhookEvent, _toConfirm: boolean): Promise<EventDrop | undefined> {
    return undefined;
  }

  async process(
    _event: WebhookEvent,
    _effect: RecordedEffect,
    enter: () => Promise<void>,
    run: () => Promise<void>,
    _lapsed?: LeaseLapsed,
  ): Promise<'processed' | EventDrop> {
    await enter();
    await run();
    return 'processed';
  }

  isWait(_error: unknown): boolean {
    return false;
  }

  async released(_taskId: string): Promise<void> {}

  async settled(): Promise<void> {}
}

/**
 * The filter in this process's memory ({@link TaskEventMemory}): a kind not to confirm is seen at
 * admission; a confirmed status is seen and moves the task's order before `onEvent` runs.
 */
class MemoryFilter extends PassingFilter {
  readonly #memory: TaskEventMemory;
  override readonly arrivals: TaskEventMemory;

  constructor(memory: TaskEventMemory) {
    super();
    this.#memory = memory;
    this.arrivals = memory;
  }

  override async beforeConfirm(received: WebhookEvent, toConfirm: boolean): Promise<EventDrop | undefined> {
    const memory = this.#memory;
    const { taskId, kind } = received;
    // A sync finds mostly what webhooks brought: counted as duplicates rather than as late.
    if (received.source === 'sync' && memory.isDuplicate(taskId, kind, Date.now())) return 'duplicate';
    if (memory.isOutOfOrder(taskId, kind, Date.now())) return 'outOfOrder';
    // A webhook admitted while one of its kind was being confirmed is a duplicate only if that GET agreed.
    if ((received.confirmed || toConfirm) && memory.isDuplicate(taskId, kind, Date.now())) return 'duplicate';
    return undefined;
  }

  override async process(
    event: WebhookEvent,
    effect: RecordedEffect,
    enter: () => Promise<void>,
    run: () => Promise<void>,
  ): Promise<'processed' | EventDrop> {
    // In a slot before the memory moves: an event refused a slot leaves no trace here.
    await enter();
    const memory = this.#memory;
    const { taskId, status } = event;
    if (event.confirmed) {
      // A stale read must not move the task backwards, nor pass a status again.
      if (status !== event.kind) {
        if (memory.isDuplicate(taskId, status, Date.now())) return 'duplicate';
        if (memory.isOutOfOrder(taskId, status, Date.now())) return 'outOfOrder';
      }
      memory.mark(taskId, status, Date.now());
    }
    // An unconfirmed event next to confirmed ones moves nothing: it could be forged.
    if (effect.advances) memory.advance(taskId, status, Date.now(), effect.confirmed);
    return super.process(event, effect, enter, run);
  }
}

/** The filter in the store ({@link StoredTaskEvents}): a status is processed under its task's lease. */
class StoreFilter extends PassingFilter {
  readonly #stored: StoredTaskEvents;

  constructor(stored: StoredTaskEvents) {
    super();
    this.#stored = stored;
  }

  override async beforeConfirm(received: WebhookEvent, toConfirm: boolean): Promise<EventDrop | undefined> {
    return toConfirm ? this.#stored.precheck(received.taskId, received.kind) : undefined;
  }

  override process(
    event: WebhookEvent,
    effect: RecordedEffect,
    enter: () => Promise<void>,
    run: () => Promise<void>,
    lapsed: LeaseLapsed,
  ): Promise<'processed' | EventDrop> {
    return this.#stored.process(event.taskId, event.status, effect, enter, run, lapsed);
  }

  override isWait(error: unknown): boolean {
    return this.#stored.holding && (error instanceof StoreUnavailableError || isLeaseBusy(error));
  }

  override released(taskId: string): Promise<void> {
    return this.#stored.released(taskId);
  }

  override settled(): Promise<void> {
    return this.#stored.settled();
  }
}

/**
 * The handler's filter: none with `dedupe: false`, the store's with a `store` (held during its outages
 * when events wait in an `inbox` of `visibilityTimeoutMs`), else this process's memory.
 */
export function taskEventFilter(settings: HandlerSettings, state: SharedState): TaskEventFilter {
  const { store, inbox, storeTimeoutMs, eventTimeoutMs } = settings;
  if (!settings.dedupe) return new PassingFilter();
  if (store === undefined) return new MemoryFilter(new TaskEventMemory(settings.windowMs, settings.maxTasks));
  // A lease outlives the longest processing: onEvent, and the store calls around it.
  const stored = new StoredTaskEvents(state, settings.storeTtlMs, eventTimeoutMs + 4 * storeTimeoutMs + 1000);
  // Events can wait in the inbox: none is processed on this process's memory during a store outage.
  if (inbox !== undefined) {
    stored.holdDuringOutages(inbox.visibilityTimeoutMs, Math.ceil(inbox.visibilityTimeoutMs / 4));
  }
  return new StoreFilter(stored);
}
