/** The task lifecycle (OpenAPI schema `TaskStatus`, webhook `taskStatusChanged`). @module */

/** The nine task statuses of OpenAPI schema `TaskStatus`, in the spec's order. */
export const TASK_STATUSES = [
  'pending',
  'requested',
  'accepted',
  'pickedup',
  'enroute',
  'delivered',
  'cancelled',
  'rejected',
  'failed',
] as const;

export type LifecycleStatus = (typeof TASK_STATUSES)[number];

/** Webhook event kinds between `accepted` and `pickedup` that never become a task's `status`. */
export const WEBHOOK_ONLY_EVENTS = ['inprogress', 'pickup_location_reached'] as const;

export type WebhookOnlyEvent = (typeof WEBHOOK_ONLY_EVENTS)[number];

/** A status change of a task: a task status or a webhook-only event. */
export type LifecycleEvent = LifecycleStatus | WebhookOnlyEvent;

/**
 * The event kinds a webhook body's `status` carries (OpenAPI webhook `taskStatusChanged`): one per status
 * change, as the spec's States say every change triggers one. The seven its Events section lists
 * (`accepted` … `cancelled`), and `requested`, `rejected` and `failed`, the other changes
 * (docs/spec-choices.md, "webhook event kinds"). `pending` is no change: a task is created in it.
 */
export const WEBHOOK_EVENT_KINDS = [
  'requested',
  'accepted',
  'inprogress',
  'pickup_location_reached',
  'pickedup',
  'enroute',
  'delivered',
  'cancelled',
  'rejected',
  'failed',
] as const;

/**
 * The events of a delivery that goes well, earliest first; an event's position is its {@link lifecycleRank}.
 */
export const DELIVERY_PATH = [
  'pending',
  'requested',
  'accepted',
  'inprogress',
  'pickup_location_reached',
  'pickedup',
  'enroute',
  'delivered',
] as const satisfies readonly LifecycleEvent[];

/** The task statuses of `DELIVERY_PATH`, in order: `pending` … `delivered`. */
export const HAPPY_PATH: readonly LifecycleStatus[] = /* @__PURE__ */ DELIVERY_PATH.filter((event) =>
  isTaskStatus(event),
);

/** Statuses a task never leaves. */
export const FINAL_STATUSES = [
  'delivered',
  'cancelled',
  'rejected',
  'failed',
] as const satisfies readonly LifecycleStatus[];

/** The statuses off the delivery path and the statuses each can be reached from. */
export const OFF_PATH_SOURCES = {
  cancelled: ['pending', 'requested', 'accepted'],
  rejected: ['pending', 'requested'],
  failed: ['enroute'],
} as const satisfies Readonly<Record<string, readonly LifecycleStatus[]>>;

export type OffPathStatus = keyof typeof OFF_PATH_SOURCES;

/** True for one of the nine {@link TASK_STATUSES}. */
export function isTaskStatus(value: string): value is LifecycleStatus {
  return (TASK_STATUSES as readonly string[]).includes(value);
}

/** True for `inprogress` and `pickup_location_reached`. */
export function isWebhookOnlyEvent(value: string): value is WebhookOnlyEvent {
  return (WEBHOOK_ONLY_EVENTS as readonly string[]).includes(value);
}

/** True for `cancelled`, `rejected` and `failed`. */
export function isOffPathStatus(value: string): value is OffPathStatus {
  return Object.hasOwn(OFF_PATH_SOURCES, value);
}

/** True for `delivered`, `cancelled`, `rejected` and `failed`: nothing follows them. */
export function isFinalStatus(value: string): boolean {
  return (FINAL_STATUSES as readonly string[]).includes(value);
}

/** Position along `DELIVERY_PATH` (`pending` 0 … `delivered` 7); `undefined` off the path. */
export function lifecycleRank(value: string): number | undefined {
  const rank = (DELIVERY_PATH as readonly string[]).indexOf(value);
  return rank === -1 ? undefined : rank;
}

/**
 * Every status `mock.advance` can move a task to: ahead on the path, off-path ones reachable, webhook-only
 * ones.
 */
export function movesFrom(status: string, lastEvent?: string): LifecycleEvent[] {
  if (isFinalStatus(status) || !isTaskStatus(status)) return [];
  const rank = lifecycleRank(status) ?? -1;
  const reached = lastEvent !== undefined && isWebhookOnlyEvent(lastEvent) ? lastEvent : status;
  const reachedRank = lifecycleRank(reached) ?? -1;
  const ahead = DELIVERY_PATH.filter((event) =>
    isWebhookOnlyEvent(event)
      ? status === 'accepted' && (lifecycleRank(event) ?? -1) > reachedRank
      : (lifecycleRank(event) ?? -1) > rank,
  );
  const offPath = (Object.keys(OFF_PATH_SOURCES) as OffPathStatus[]).filter((target) =>
    (OFF_PATH_SOURCES[target] as readonly string[]).includes(status),
  );
  return [...ahead, ...offPath];
}
