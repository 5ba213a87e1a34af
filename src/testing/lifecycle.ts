/**
 * Task lifecycle: which status changes the mock allows and what each one does to a task (spec
 * § "States and transitions": "Transitions: not shown"; design doc, "transitions").
 *
 * Happy path: `pending → requested → accepted → pickedup → enroute → delivered`. Between `accepted`
 * and `pickedup` the webhook-only events `inprogress` and `pickup_location_reached` happen: they are
 * POSTed and appear in the webhook form of `statusHistory`, never as the stored status or in the API
 * form of `statusHistory`. Off the path: `cancelled` from pending, requested or accepted; `rejected`
 * from pending or requested; `failed` from enroute. `delivered`, `cancelled`, `rejected` and `failed`
 * are final.
 * @module
 */
import type { TaskStatus } from '../schemas/task.js';
import type { TaskRecord } from './state.js';

/** The statuses of a delivery that goes well, in order. */
export const HAPPY_PATH = ['pending', 'requested', 'accepted', 'pickedup', 'enroute', 'delivered'] as const;

/** Webhook events that happen between `accepted` and `pickedup`, in order, and are not task statuses. */
export const WEBHOOK_ONLY_EVENTS = ['inprogress', 'pickup_location_reached'] as const;

/** Statuses a task never leaves. */
export const FINAL_STATUSES: readonly TaskStatus[] = ['delivered', 'cancelled', 'rejected', 'failed'];

/** Off-path statuses and the statuses they can be reached from. */
export const OFF_PATH_SOURCES: Readonly<Record<'cancelled' | 'rejected' | 'failed', readonly TaskStatus[]>> = {
  cancelled: ['pending', 'requested', 'accepted'],
  rejected: ['pending', 'requested'],
  failed: ['enroute'],
};

/** An event of a status change: a task status, or a webhook-only event. */
export type LifecycleEvent = TaskStatus | (typeof WEBHOOK_ONLY_EVENTS)[number];

function isHappyStatus(status: string): status is (typeof HAPPY_PATH)[number] {
  return (HAPPY_PATH as readonly string[]).includes(status);
}

function isOffPathStatus(status: string): status is keyof typeof OFF_PATH_SOURCES {
  return Object.hasOwn(OFF_PATH_SOURCES, status);
}

/** The events of one step along the happy path into `status` (webhook-only events first when entering `pickedup`). */
function eventsInto(status: (typeof HAPPY_PATH)[number]): LifecycleEvent[] {
  return status === 'pickedup' ? [...WEBHOOK_ONLY_EVENTS, status] : [status];
}

/**
 * The events that take task `taskId` from `current` to `target`, in order; without `target`, one step
 * along the happy path.
 * @throws {Error} naming the task and both statuses when the change is not allowed (final status,
 * backwards, unknown status, or an off-path status not reachable from `current`).
 */
export function plannedEvents(taskId: string, current: string, target?: string): LifecycleEvent[] {
  const from = JSON.stringify(current);
  if ((FINAL_STATUSES as readonly string[]).includes(current)) {
    throw new Error(`Cannot advance task ${taskId}: its status ${from} is final`);
  }
  const index = (HAPPY_PATH as readonly string[]).indexOf(current);
  if (target === undefined) {
    const next = HAPPY_PATH[index + 1];
    if (index < 0 || next === undefined) throw new Error(`Cannot advance task ${taskId} from status ${from}`);
    return eventsInto(next);
  }
  const to = JSON.stringify(target);
  if (isOffPathStatus(target)) {
    if ((OFF_PATH_SOURCES[target] as readonly string[]).includes(current)) return [target];
    throw new Error(
      `Cannot move task ${taskId} from ${from} to ${to}: ${to} is reached only from ${OFF_PATH_SOURCES[target].join(', ')}`,
    );
  }
  if (!isHappyStatus(target)) {
    throw new Error(
      `Cannot move task ${taskId} from ${from} to ${to}: not a task status (use one of ${[...HAPPY_PATH, ...Object.keys(OFF_PATH_SOURCES)].join(', ')})`,
    );
  }
  const targetIndex = HAPPY_PATH.indexOf(target);
  if (index < 0 || targetIndex <= index) {
    throw new Error(`Cannot move task ${taskId} from ${from} to ${to}: the lifecycle only moves forward`);
  }
  return HAPPY_PATH.slice(index + 1, targetIndex + 1).flatMap(eventsInto);
}

/** What {@link applyEvent} needs besides the task. */
export interface EventContext {
  /** The time of the change, ISO 8601. */
  readonly timestamp: string;
  /** A new id for a `statusHistory` entry. */
  readonly historyId: () => string;
  /** The driver assigned on `accepted`. */
  readonly driver: () => { name: string; phone: string; trackingLink: string };
}

/**
 * Applies one event to a stored task. A task status becomes the status, gets a `statusHistory` entry
 * (with `id`) and updates `updatedAt`; `accepted` assigns a driver and sets `deliveryDispatched`;
 * `delivered` sets `completedTime`. Every event, webhook-only ones included, is added to the webhook
 * history.
 */
export function applyEvent(record: TaskRecord, event: LifecycleEvent, context: EventContext): void {
  record.events.push({ status: event, timestamp: context.timestamp });
  if ((WEBHOOK_ONLY_EVENTS as readonly string[]).includes(event)) return;
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
