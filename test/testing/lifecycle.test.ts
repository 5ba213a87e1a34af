import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HAPPY_PATH, movesFrom, TASK_STATUSES, WEBHOOK_ONLY_EVENTS } from '../../src/schemas/lifecycle.js';
import { plannedEvents, plannedEventsOf } from '../../src/testing/lifecycle.js';
import type { TaskRecord } from '../../src/testing/state.js';
import { createMockDeliveryService } from '../../src/testing.js';
import { callService, createTask, taskBody } from './calls.js';

describe('plannedEvents', () => {
  it('takes one step along the happy path without a target', () => {
    for (const [index, status] of HAPPY_PATH.slice(0, -1).entries()) {
      const next = HAPPY_PATH[index + 1] ?? '';
      const expected = next === 'pickedup' ? [...WEBHOOK_ONLY_EVENTS, next] : [next];
      expect(plannedEvents('t', status)).toEqual(expected);
    }
  });

  it('walks every step up to a target further along, with the webhook-only events before pickedup', () => {
    expect(plannedEvents('t', 'pending', 'delivered')).toEqual([
      'requested',
      'accepted',
      'inprogress',
      'pickup_location_reached',
      'pickedup',
      'enroute',
      'delivered',
    ]);
  });

  it('allows the off-path statuses only from their sources', () => {
    expect(plannedEvents('t', 'accepted', 'cancelled')).toEqual(['cancelled']);
    expect(plannedEvents('t', 'requested', 'rejected')).toEqual(['rejected']);
    expect(plannedEvents('t', 'enroute', 'failed')).toEqual(['failed']);
    expect(() => plannedEvents('t', 'pickedup', 'cancelled')).toThrow(/"pickedup" to "cancelled"/);
    expect(() => plannedEvents('t', 'accepted', 'rejected')).toThrow(/rejected/);
    expect(() => plannedEvents('t', 'pending', 'failed')).toThrow(/failed/);
  });

  it('refuses final statuses, backward moves and unknown statuses, naming the task', () => {
    expect(() => plannedEvents('task-7', 'delivered')).toThrow(/task-7.*"delivered" is final/);
    expect(() => plannedEvents('task-7', 'cancelled', 'pending')).toThrow(/final/);
    expect(() => plannedEvents('task-7', 'enroute', 'accepted')).toThrow(
      /task-7 from "enroute" to "accepted"/,
    );
    expect(() => plannedEvents('task-7', 'pending', 'pending')).toThrow(/forward/);
    expect(() => plannedEvents('task-7', 'accepted', 'inprogress')).toThrow(/not a task status/);
    expect(() => plannedEvents('task-7', 'pending', 'lost')).toThrow(/not a task status/);
  });
});

describe('advance', () => {
  let time = Date.parse('2026-06-01T09:00:00.000Z');
  const mock = createMockDeliveryService({ now: () => new Date(time) });
  beforeAll(() => mock.listen());
  afterEach(() => mock.reset());
  afterAll(() => mock.close());

  const later = () => {
    time += 60_000;
    return new Date(time).toISOString();
  };

  it('moves one step at a time, recording each status with an id and updating updatedAt', async () => {
    const created = await createTask(mock, taskBody('ORD-STEP'));
    const changedAt = later();
    const task = await mock.advance(created.id);
    expect(task.status).toBe('requested');
    expect(task.updatedAt).toBe(changedAt);
    expect(task.createdAt).toBe(created.createdAt);
    expect(task.statusHistory).toEqual([
      ...created.statusHistory,
      { id: expect.stringMatching(/^[0-9a-f]{24}$/), status: 'requested', timestamp: changedAt },
    ]);
    expect((await callService(mock, 'GET', `tasks/${created.id}`)).body).toEqual(task);
  });

  it('assigns a driver and dispatches on accepted', async () => {
    const created = await createTask(mock, taskBody('ORD-DRIVER'));
    expect(created.driver).toBeUndefined();
    const task = await mock.advance(created.id, 'accepted');
    expect(task.driver).toEqual({
      name: expect.any(String),
      phone: expect.any(String),
      trackingLink: expect.any(String),
    });
    expect(() => new URL(task.driver?.trackingLink ?? '')).not.toThrow();
    expect(task.deliveryDispatched).toBe(true);
  });

  it('walks to delivered, keeping the webhook-only events out of the task', async () => {
    const created = await createTask(mock, taskBody('ORD-WALK'));
    const deliveredAt = later();
    const task = await mock.advance(created.id, 'delivered');
    expect(task.status).toBe('delivered');
    expect(task.completedTime).toBe(deliveredAt);
    expect(task.statusHistory?.map((entry) => entry.status)).toEqual([...HAPPY_PATH]);
    expect(new Set(task.statusHistory?.map((entry) => entry.id)).size).toBe(HAPPY_PATH.length);
    expect(task.driver).not.toHaveProperty('completed_at');
    await expect(mock.advance(created.id)).rejects.toThrow(/final/);
  });

  it('cancels before pickup and fails en route', async () => {
    const toCancel = await createTask(mock, taskBody('ORD-CANCEL'));
    await mock.advance(toCancel.id, 'accepted');
    expect((await mock.advance(toCancel.id, 'cancelled')).status).toBe('cancelled');
    const toFail = await createTask(mock, taskBody('ORD-FAIL'));
    await mock.advance(toFail.id, 'enroute');
    expect((await mock.advance(toFail.id, 'failed')).status).toBe('failed');
    const toReject = await createTask(mock, taskBody('ORD-REJECT'));
    expect((await mock.advance(toReject.id, 'rejected')).status).toBe('rejected');
  });

  it('rejects an invalid transition and changes nothing', async () => {
    const created = await createTask(mock, taskBody('ORD-INVALID'));
    await mock.advance(created.id, 'pickedup');
    const before = mock.task(created.id);
    await expect(mock.advance(created.id, 'cancelled')).rejects.toThrow(created.id);
    await expect(mock.advance(created.id, 'requested')).rejects.toThrow(/"pickedup" to "requested"/);
    expect(mock.task(created.id)).toEqual(before);
  });

  it('rejects an unknown task id', async () => {
    await expect(mock.advance('000000000000000000000000')).rejects.toThrow(
      /"000000000000000000000000": no such task/,
    );
  });

  it('records no webhook deliveries without a webhookUrl', async () => {
    const created = await createTask(mock, taskBody('ORD-NOHOOK'));
    await mock.advance(created.id, 'delivered');
    expect(mock.webhookDeliveries).toEqual([]);
  });
});

describe('movesFrom (the dashboard\'s "to status" list)', () => {
  it('offers exactly the moves the mock accepts, from every status and webhook-only event', () => {
    const targets = [...TASK_STATUSES, ...WEBHOOK_ONLY_EVENTS];
    const situations: Array<[string, string | undefined]> = [
      ...TASK_STATUSES.map((status) => [status, undefined] as [string, undefined]),
      ['accepted', 'inprogress'],
      ['accepted', 'pickup_location_reached'],
    ];
    for (const [status, lastEvent] of situations) {
      const record = {
        task: { status },
        events: lastEvent === undefined ? [{ status }] : [{ status }, { status: lastEvent }],
      } as unknown as TaskRecord;
      const accepted = targets.filter((target) => {
        try {
          plannedEventsOf(record, 'task-1', target);
          return true;
        } catch {
          return false;
        }
      });
      expect(new Set(movesFrom(status, lastEvent)), `${status} after ${lastEvent}`).toEqual(
        new Set(accepted),
      );
    }
    expect(movesFrom('delivered')).toEqual([]);
    expect(movesFrom('accepted')).toEqual([
      'inprogress',
      'pickup_location_reached',
      'pickedup',
      'enroute',
      'delivered',
      'cancelled',
    ]);
  });
});
