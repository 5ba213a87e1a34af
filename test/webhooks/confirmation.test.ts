/**
 * Shared confirmations (`confirmation.ts`): which events may take the answer of a GET sent for another
 * event of the same task, and how long a 404 and an answer are remembered. A clock and a GET the test
 * drives.
 */
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/schemas/task.js';
import {
  CONFIRMATION_MEMORY_MS,
  MAX_CONFIRMED_TASKS,
  NOT_FOUND_MEMORY_MS,
  TaskConfirmations,
} from '../../src/webhooks/confirmation.js';

/** A GET whose answers the test settles one by one, and a clock it sets. */
function harness() {
  const pending: { taskId: string; settle: (answer: Task | Error) => void }[] = [];
  let now = 1_000_000;
  const confirmations = new TaskConfirmations(
    (taskId) =>
      new Promise<Task>((resolve, reject) => {
        pending.push({ taskId, settle: (answer) => (answer instanceof Error ? reject(answer) : resolve(answer)) });
      }),
    () => now,
  );
  return {
    confirmations,
    pending,
    at: (time: number) => {
      now = time;
    },
    now: () => now,
  };
}

const notFound = () => Object.assign(new Error('Task not found'), { status: 404 });
const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('TaskConfirmations', () => {
  it('shares a status with events received before the GET was sent, and with those it agrees with', async () => {
    const { confirmations, pending, at } = harness();
    const first = confirmations.confirm('t1', 'delivered', 999_000);
    await flush();
    const before = confirmations.confirm('t1', 'delivered', 999_500); // received before the GET: shares
    at(1_000_100);
    const agreeing = confirmations.confirm('t1', 'enroute', 1_000_050); // received during it, same status
    const later = confirmations.confirm('t1', 'delivered', 1_000_060); // received during it, other status
    await flush();
    expect(pending).toHaveLength(1);
    pending[0]?.settle({ id: 't1', status: 'enroute' });
    expect((await first).status).toBe('enroute');
    expect((await before).status).toBe('enroute');
    expect((await agreeing).status).toBe('enroute');
    await flush();
    // The event received during the GET that it does not agree with gets a GET of its own.
    expect(pending).toHaveLength(2);
    pending[1]?.settle({ id: 't1', status: 'delivered' });
    expect((await later).status).toBe('delivered');
  });

  it('shares a failure with every event received before it settled, and a later event sends again', async () => {
    const { confirmations, pending, at } = harness();
    const first = confirmations.confirm('t1', 'delivered', 999_000);
    at(1_000_500);
    const during = confirmations.confirm('t1', 'delivered', 1_000_400);
    await flush();
    pending[0]?.settle(new Error('503'));
    await expect(first).rejects.toThrow('503');
    await expect(during).rejects.toThrow('503');
    at(1_001_000);
    const after = confirmations.confirm('t1', 'delivered', 1_000_900);
    await flush();
    expect(pending).toHaveLength(2);
    pending[1]?.settle({ id: 't1', status: 'delivered' });
    expect((await after).status).toBe('delivered');
  });

  it(`remembers a 404 for ${NOT_FOUND_MEMORY_MS} ms, then sends again`, async () => {
    const { confirmations, pending, at, now } = harness();
    const first = confirmations.confirm('ghost', 'delivered', now());
    await flush();
    pending[0]?.settle(notFound());
    await expect(first).rejects.toThrow('not found');
    const start = now();
    at(start + NOT_FOUND_MEMORY_MS - 1);
    await expect(confirmations.confirm('ghost', 'delivered', now())).rejects.toThrow('not found');
    expect(pending).toHaveLength(1);
    at(start + NOT_FOUND_MEMORY_MS + 1);
    const again = confirmations.confirm('ghost', 'delivered', now());
    await flush();
    expect(pending).toHaveLength(2);
    pending[1]?.settle({ id: 'ghost', status: 'delivered' });
    expect((await again).status).toBe('delivered');
  });

  it(`keeps an answer ${CONFIRMATION_MEMORY_MS} ms and ${MAX_CONFIRMED_TASKS} tasks at most`, async () => {
    const { confirmations, pending, at, now } = harness();
    const received = now() - 1;
    const answers: Promise<Task>[] = [];
    for (let index = 0; index <= MAX_CONFIRMED_TASKS; index++)
      answers.push(confirmations.confirm(`t${index}`, 'x', received));
    await flush();
    for (const request of pending) request.settle({ id: request.taskId, status: 'x' });
    await Promise.all(answers);
    // t1 is remembered: an event received before its GET shares it. t0 was forgotten (one task too many).
    await confirmations.confirm('t1', 'y', received);
    expect(pending).toHaveLength(MAX_CONFIRMED_TASKS + 1);
    void confirmations.confirm('t0', 'y', received);
    await flush();
    expect(pending).toHaveLength(MAX_CONFIRMED_TASKS + 2);
    // Past the memory, an answer is forgotten too.
    at(now() + CONFIRMATION_MEMORY_MS + 1);
    void confirmations.confirm('t2', 'y', received);
    await flush();
    expect(pending).toHaveLength(MAX_CONFIRMED_TASKS + 3);
  });
});
