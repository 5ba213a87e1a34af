/**
 * Which changes `advance` allows and what each does; webhook-only events are never stored as the status.
 * @module
 */
import {
  DELIVERY_PATH,
  HAPPY_PATH,
  isFinalStatus,
  isOffPathStatus,
  isWebhookOnlyEvent,
  type LifecycleEvent,
  lifecycleRank,
  OFF_PATH_SOURCES,
} from '../schemas/lifecycle.js';
import type { TaskRecord } from './state.js';

/** The events along the delivery path after `from` up to and including `to` (both on the path). */
function eventsBetween(from: string, to: string): LifecycleEvent[] {
  return DELIVERY_PATH.slice((lifecycleRank(from) ?? -1) + 1, (lifecycleRank(to) ?? -1) + 1);
}

/** The events from `current` to `target` (default one step). @throws {Error} naming both when not allowed. */
export function plannedEvents(taskId: string, current: string, target?: string): LifecycleEvent[] {
  const from = JSON.stringify(current);
  if (isFinalStatus(current)) throw new Error(`Cannot advance task ${taskId}: its status ${from} is final`);
  const index = (HAPPY_PATH as readonly string[]).indexOf(current);
  if (target === undefined) {
    const next = HAPPY_PATH[index + 1];
    if (index < 0 || next === undefined) throw new Error(`Cannot advance task ${taskId} from status ${from}`);
    return eventsBetween(current, next);
  }
  const to = JSON.stringify(target);
  if (isOffPathStatus(target)) {
    const sources: readonly string[] = OFF_PATH_SOURCES[target];
    if (sources.includes(current)) return [target];
    throw new Error(
      `Cannot move task ${taskId} from ${from} to ${to}: ${to} is reached only from ${sources.join(', ')}`,
    );
  }
  const targetIndex = (HAPPY_PATH as readonly string[]).indexOf(target);
  if (targetIndex < 0) {
    throw new Error(
      `Cannot move task ${taskId} from ${from} to ${to}: not a task status (use one of ${[...HAPPY_PATH, ...Object.keys(OFF_PATH_SOURCES)].join(', ')})`,
    );
  }
  if (index < 0 || targetIndex <= index) {
    throw new Error(`Cannot move task ${taskId} from ${from} to ${to}: the lifecycle only moves forward`);
  }
  return eventsBetween(current, target);
}

/**
 * {@link plannedEvents} for a stored task, less webhook-only events it had. @throws {Error} as {@link
 * plannedEvents}.
 */
export function plannedEventsOf(record: TaskRecord, taskId: string, target?: string): LifecycleEvent[] {
  const current = record.task.status ?? 'pending';
  const last = record.events.at(-1)?.status;
  const reached = last !== undefined && isWebhookOnlyEvent(last) ? last : current;
  const reachedRank = lifecycleRank(reached) ?? -1;
  if (target !== undefined && isWebhookOnlyEvent(target)) {
    const to = JSON.stringify(target);
    if (current !== 'accepted') {
      throw new Error(
        `Cannot move task ${taskId} from ${JSON.stringify(current)} to ${to}: it happens between accepted and pickedup`,
      );
    }
    const events = eventsBetween(reached, target);
    if (events.length === 0) throw new Error(`Cannot move task ${taskId} to ${to}: it has already had it`);
    return events;
  }
  return plannedEvents(taskId, current, target).filter(
    (event) => !isWebhookOnlyEvent(event) || (lifecycleRank(event) ?? -1) > reachedRank,
  );
}

/** The driver the mock assigns on `accepted`, with a tracking link under the mock's `origin`. */
export function mockDriver(
  origin: string,
  deliveryId: string,
): { name: string; phone: string; trackingLink: string } {
  return {
    name: 'Mock Driver',
    phone: '+96550000000',
    trackingLink: `${origin}/track/${encodeURIComponent(deliveryId)}`,
  };
}

/** What {@link applyEvent} needs besides the task. */
export interface EventContext {
  /** ISO 8601. */
  readonly timestamp: string;
  readonly historyId: () => string;
  readonly driver: () => { name: string; phone: string; trackingLink: string };
}

/**
 * Applies one event: a status updates the task and its history (`accepted`: driver; `delivered`:
 * `completedTime`).
 */
export function applyEvent(record: TaskRecord, event: LifecycleEvent, context: EventContext): void {
  record.events.push({ status: event, timestamp: context.timestamp });
  if (isWebhookOnlyEvent(event)) return;
  const { task } = record;
  task.status = event;
  task.statusHistory = [
    ...(task.statusHistory ?? []),
    { id: context.historyId(), status: event, timestamp: context.timestamp },
  ];
  task.updatedAt = context.timestamp;
  if (event === 'accepted') {
    task.driver = context.driver();
    task.deliveryDispatched = true;
  }
  if (event === 'delivered') {
    task.completedTime = context.timestamp;
    record.completedAt = context.timestamp;
  }
}
