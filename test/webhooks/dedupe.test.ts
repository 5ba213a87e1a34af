import { describe, expect, it } from 'vitest';
import { TaskEventMemory } from '../../src/webhooks/dedupe.js';

const MINUTE = 60_000;

describe('TaskEventMemory', () => {
  it('reports a (task id, status) marked within the window as a duplicate, and not after it', () => {
    const memory = new TaskEventMemory(10 * MINUTE, 100);
    memory.mark('t1', 'accepted', 0);
    expect(memory.isDuplicate('t1', 'accepted', 10 * MINUTE - 1)).toBe(true);
    expect(memory.isDuplicate('t1', 'inprogress', 1)).toBe(false);
    expect(memory.isDuplicate('t2', 'accepted', 1)).toBe(false);
    expect(memory.isDuplicate('t1', 'accepted', 10 * MINUTE)).toBe(false);
  });

  it('reports a status earlier along the delivery path than one processed as out of order', () => {
    const memory = new TaskEventMemory(MINUTE, 100);
    memory.advance('t1', 'pickedup', 0, true);
    for (const older of ['pending', 'requested', 'accepted', 'inprogress', 'pickup_location_reached']) {
      expect(memory.isOutOfOrder('t1', older, 1)).toBe(true);
    }
    for (const later of ['pickedup', 'enroute', 'delivered', 'cancelled', 'failed', 'driver_reassigned']) {
      expect(memory.isOutOfOrder('t1', later, 1)).toBe(false);
    }
    expect(memory.isOutOfOrder('t2', 'accepted', 1)).toBe(false);
  });

  it.each(['delivered', 'cancelled', 'rejected', 'failed'])(
    'processes nothing after the confirmed final status %s',
    (final) => {
      const memory = new TaskEventMemory(MINUTE, 100);
      memory.advance('t1', 'accepted', 0, true);
      memory.advance('t1', final, 1, true);
      for (const status of ['enroute', 'delivered', 'cancelled', 'failed', 'driver_reassigned']) {
        expect(memory.isOutOfOrder('t1', status, 2)).toBe(true);
      }
    },
  );

  it.each(['delivered', 'cancelled', 'rejected', 'failed'])(
    'processes only other final statuses after the final status %s that a body claimed',
    (final) => {
      const memory = new TaskEventMemory(MINUTE, 100);
      memory.advance('t1', 'accepted', 0, false);
      memory.advance('t1', final, 1, false);
      for (const status of ['requested', 'pickedup', 'enroute', 'driver_reassigned']) {
        expect(memory.isOutOfOrder('t1', status, 2), status).toBe(true);
      }
      for (const status of ['delivered', 'cancelled', 'rejected', 'failed'].filter(
        (other) => other !== final,
      )) {
        expect(memory.isOutOfOrder('t1', status, 2), status).toBe(false);
      }
    },
  );

  it('keeps a confirmed end when a body claims another final status afterwards', () => {
    const memory = new TaskEventMemory(MINUTE, 100);
    memory.advance('t1', 'delivered', 0, true);
    memory.advance('t1', 'failed', 1, false);
    expect(memory.isOutOfOrder('t1', 'cancelled', 2)).toBe(true);
  });

  it('never considers an unknown status older, and an unknown status does not move a task', () => {
    const memory = new TaskEventMemory(MINUTE, 100);
    memory.advance('t1', 'enroute', 0, true);
    expect(memory.isOutOfOrder('t1', 'driver_reassigned', 1)).toBe(false);
    memory.advance('t1', 'driver_reassigned', 1, true);
    expect(memory.isOutOfOrder('t1', 'delivered', 2)).toBe(false);
    expect(memory.isOutOfOrder('t1', 'pickedup', 2)).toBe(true);
  });

  it('keeps at most maxTasks tasks, forgetting the least recently used first', () => {
    const memory = new TaskEventMemory(MINUTE, 3);
    memory.mark('t1', 'accepted', 0);
    memory.mark('t2', 'accepted', 1);
    memory.mark('t3', 'accepted', 2);
    memory.mark('t1', 'inprogress', 3); // t1 is now the most recent
    memory.mark('t4', 'accepted', 4); // t2 goes
    expect(memory.size).toBe(3);
    expect(memory.isDuplicate('t2', 'accepted', 5)).toBe(false);
    expect(memory.isDuplicate('t1', 'accepted', 5)).toBe(true);
    expect(memory.isDuplicate('t3', 'accepted', 5)).toBe(true);
    expect(memory.isDuplicate('t4', 'accepted', 5)).toBe(true);
  });

  it('drops expired tasks when new ones are written, so memory does not grow past the window', () => {
    const memory = new TaskEventMemory(MINUTE, 1_000_000);
    for (let index = 0; index < 1000; index++) memory.mark(`old-${index}`, 'accepted', 0);
    memory.mark('new', 'accepted', MINUTE);
    expect(memory.size).toBe(1);
  });

  it('stays bounded under a flood of distinct tasks', () => {
    const memory = new TaskEventMemory(10 * MINUTE, 10_000);
    for (let index = 0; index < 50_000; index++) memory.mark(`task-${index}`, 'accepted', index);
    expect(memory.size).toBe(10_000);
    expect(memory.isDuplicate('task-49999', 'accepted', 50_000)).toBe(true);
    expect(memory.isDuplicate('task-0', 'accepted', 50_000)).toBe(false);
  });
});
