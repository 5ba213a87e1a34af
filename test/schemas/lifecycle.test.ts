/**
 * The lifecycle module against the spec and the design doc's transitions, written out by hand here and
 * in the webhook fixtures, so the module is not its own oracle.
 */
import { describe, expect, it } from 'vitest';
import {
  DELIVERY_PATH,
  FINAL_STATUSES,
  HAPPY_PATH,
  isFinalStatus,
  isTaskStatus,
  isWebhookOnlyEvent,
  lifecycleRank,
  OFF_PATH_SOURCES,
  TASK_STATUSES,
  WEBHOOK_EVENT_KINDS,
  WEBHOOK_ONLY_EVENTS,
} from '../../src/schemas/lifecycle.js';
import { TaskStatus } from '../../src/schemas/task.js';
import { WEBHOOK_EVENT_KINDS as SCHEMA_EVENT_KINDS } from '../../src/schemas/webhook.js';
import { DELIVERY_EVENTS } from '../webhooks/fixtures.js';

describe('the task lifecycle', () => {
  it('has the nine statuses of spec § States and transitions, which TaskStatus accepts', () => {
    expect([...TASK_STATUSES].sort()).toEqual(
      [
        'accepted',
        'cancelled',
        'delivered',
        'enroute',
        'failed',
        'pending',
        'pickedup',
        'rejected',
        'requested',
      ].sort(),
    );
    expect(TaskStatus.options).toEqual([...TASK_STATUSES]);
    expect(TASK_STATUSES.every(isTaskStatus)).toBe(true);
    expect(isTaskStatus('inprogress')).toBe(false);
  });

  it('orders the delivery path as the design doc does, with the webhook-only events before pickedup', () => {
    expect(DELIVERY_PATH).toEqual(['pending', ...DELIVERY_EVENTS]);
    expect(HAPPY_PATH).toEqual(['pending', 'requested', 'accepted', 'pickedup', 'enroute', 'delivered']);
    expect(DELIVERY_PATH.map((event) => lifecycleRank(event))).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    for (const offPath of ['cancelled', 'rejected', 'failed', 'driver_reassigned']) {
      expect(lifecycleRank(offPath)).toBeUndefined();
    }
  });

  it('keeps inprogress and pickup_location_reached as webhook-only events, not statuses', () => {
    expect(WEBHOOK_ONLY_EVENTS).toEqual(['inprogress', 'pickup_location_reached']);
    expect(WEBHOOK_ONLY_EVENTS.every(isWebhookOnlyEvent)).toBe(true);
    expect(WEBHOOK_ONLY_EVENTS.some(isTaskStatus)).toBe(false);
    expect(isWebhookOnlyEvent('accepted')).toBe(false);
  });

  it('ends a task at delivered, cancelled, rejected or failed, and nowhere else', () => {
    expect([...FINAL_STATUSES].sort()).toEqual(['cancelled', 'delivered', 'failed', 'rejected']);
    for (const status of TASK_STATUSES) {
      expect(isFinalStatus(status), status).toBe(
        ['delivered', 'cancelled', 'rejected', 'failed'].includes(status),
      );
    }
    expect(isFinalStatus('inprogress')).toBe(false);
  });

  it('reaches cancelled before pickup, rejected from pending or requested, and failed from enroute', () => {
    expect(OFF_PATH_SOURCES).toEqual({
      cancelled: ['pending', 'requested', 'accepted'],
      rejected: ['pending', 'requested'],
      failed: ['enroute'],
    });
  });

  it('lists an event kind for every status change: the seven of spec § Events item 3 and requested, rejected, failed', () => {
    expect(WEBHOOK_EVENT_KINDS).toEqual([
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
    ]);
    // Every event the mock can send (every event but the creation status) is a kind.
    expect(new Set(WEBHOOK_EVENT_KINDS)).toEqual(
      new Set([...DELIVERY_PATH, ...Object.keys(OFF_PATH_SOURCES)].filter((event) => event !== 'pending')),
    );
    expect(SCHEMA_EVENT_KINDS).toBe(WEBHOOK_EVENT_KINDS);
  });
});
