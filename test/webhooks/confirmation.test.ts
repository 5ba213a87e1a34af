/**
 * Shared confirmations (`confirmation.ts`): which events may take the answer of a GET sent for another
 * event of the same task, and how long a 404 and an answer are remembered. A clock and a GET the test
 * drives.
 */
import { describe, expect, it } from 'vitest';
import { memoryStore, ResponseValidationError } from '../../src/index.js';
import type { Task } from '../../src/schemas/task.js';
import {
  CONFIRMATION_MEMORY_MS,
  MAX_CONFIRMED_TASKS,
  NOT_FOUND_MEMORY_MS,
  TaskConfirmations,
} from '../../src/webhooks/confirmation.js';
import type { InboxEntry, WebhookInbox } from '../../src/webhooks/inbox.js';
import {
  createWebhookHandler,
  type WebhookEvent,
  type WebhookHandlerOptions,
} from '../../src/webhooks/index.js';

/** A GET whose answers the test settles one by one, and a clock it sets. */
function harness() {
  const pending: { taskId: string; settle: (answer: Task | Error) => void }[] = [];
  let now = 1_000_000;
  const confirmations = new TaskConfirmations(
    (taskId) =>
      new Promise<Task>((resolve, reject) => {
        pending.push({
          taskId,
          settle: (answer) => (answer instanceof Error ? reject(answer) : resolve(answer)),
        });
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

  it('does not share a GET with an event received in the millisecond it was sent, unless it agrees', async () => {
    const { confirmations, pending } = harness();
    const first = confirmations.confirm('t1', 'delivered', 999_000); // the GET starts at 1_000_000
    await flush();
    const sameMillisecond = confirmations.confirm('t1', 'delivered', 1_000_000); // may be newer than the read
    await flush();
    pending[0]?.settle({ id: 't1', status: 'enroute' });
    expect((await first).status).toBe('enroute');
    await flush();
    expect(pending).toHaveLength(2);
    pending[1]?.settle({ id: 't1', status: 'delivered' });
    expect((await sameMillisecond).status).toBe('delivered');
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

/** A webhook request carrying `{ _id: taskId, status }`. */
const webhook = (taskId: string, status: string) =>
  new Request('http://receiver.test/webhooks', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ _id: taskId, status }),
  });

/** An inbox in this process's memory: enough for the handler's workers (one process, no crash). */
function arrayInbox(): WebhookInbox {
  const pending: InboxEntry[] = [];
  let next = 0;
  return {
    visibilityTimeoutMs: 60_000,
    append: async ({ body, receivedAt }) =>
      void pending.push({ id: String(++next), body, receivedAt, attempts: 1 }),
    claim: async (_consumer, max) => pending.splice(0, max),
    complete: async () => {},
    fail: async () => {},
    inspect: async () => ({ pending: pending.length, failed: 0, events: [] }),
    replay: async () => 0,
  };
}

describe('a confirming read is the task asked for, or a failed confirmation', () => {
  /** A handler whose confirming GET answers `answer` for every task; what reached onEvent and onError. */
  function confirmingWith(answer: (taskId: string) => Task) {
    const events: WebhookEvent[] = [];
    const errors: unknown[] = [];
    const handler = createWebhookHandler({
      client: { tasks: { retrieve: async (taskId: string) => answer(taskId) } },
      confirm: true,
      logLevel: 'off',
      onEvent: (event) => void events.push(event),
      onError: (error) => void errors.push(error),
    });
    return { handler, events, errors };
  }

  it.each([
    ['another task (id B for A)', { id: 'B', status: 'delivered' }, 'id'],
    ['a task without an id', { status: 'delivered' }, 'id'],
    ['another task by its _id', { _id: 'B', status: 'delivered' }, '_id'],
    ['a task whose id and _id disagree', { id: 'A', _id: 'B', status: 'delivered' }, '_id'],
  ])(
    'a read of %s never reaches onEvent: onError gets a ResponseValidationError on the id',
    async (_case, task, path) => {
      const { handler, events, errors } = confirmingWith(() => task as Task);
      expect((await handler.fetch(webhook('A', 'delivered'))).status).toBe(200);
      await handler.idle();
      expect(events).toEqual([]);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toBeInstanceOf(ResponseValidationError);
      expect((errors[0] as ResponseValidationError).issues.map((issue) => issue.path)).toEqual([path]);
      expect(handler.stats).toMatchObject({ processed: 0, failed: 1 });
    },
  );

  it('a read carrying the task id as _id (the webhook form) confirms it', async () => {
    const { handler, events, errors } = confirmingWith(
      (taskId) => ({ _id: taskId, status: 'delivered' }) as Task,
    );
    await handler.fetch(webhook('A', 'delivered'));
    await handler.idle();
    expect(errors).toEqual([]);
    expect(events.map((event) => [event.taskId, event.status, event.confirmed])).toEqual([
      ['A', 'delivered', true],
    ]);
  });
});

describe('the status read back passes the duplicate and order filter, in every mode', () => {
  const modes: readonly { mode: string; options: () => Partial<WebhookHandlerOptions> }[] = [
    { mode: 'this process (no store)', options: () => ({}) },
    { mode: 'a shared store', options: () => ({ store: memoryStore() }) },
    { mode: 'an inbox without a store', options: () => ({ inbox: arrayInbox() }) },
    { mode: 'an inbox and a shared store', options: () => ({ inbox: arrayInbox(), store: memoryStore() }) },
  ];

  /** A handler confirming every kind, whose GET answers what `reads` holds for the task at that moment. */
  function staleReads(options: Partial<WebhookHandlerOptions>) {
    const reads = new Map<string, string>();
    const events: WebhookEvent[] = [];
    const errors: unknown[] = [];
    const handler = createWebhookHandler({
      client: {
        tasks: { retrieve: async (taskId: string) => ({ id: taskId, status: reads.get(taskId) ?? '' }) },
      },
      confirm: true,
      logLevel: 'off',
      onEvent: (event) => void events.push(event),
      onError: (error) => void errors.push(error),
      ...options,
    });
    let sent = 0;
    const settled = () => {
      const { processed, duplicates, outOfOrder, failed } = handler.stats;
      return processed + duplicates + outOfOrder + failed;
    };
    const deliver = async (taskId: string, kind: string, read: string) => {
      // A webhook received in the millisecond a GET of its task was sent shares that GET's answer
      // (confirmation.ts): each webhook here comes later, so it gets a read of its own.
      await new Promise((resolve) => setTimeout(resolve, 2));
      reads.set(taskId, read);
      expect((await handler.fetch(webhook(taskId, kind))).status).toBe(200);
      sent++;
      // With an inbox, idle() can resolve while a worker's claim is still on its way to the queue.
      while (settled() < sent) await handler.idle();
    };
    return { handler, events, errors, deliver };
  }

  it.each(modes)('with $mode, a stale read never moves a task backwards', async ({ options }) => {
    const { handler, events, errors, deliver } = staleReads(options());
    await deliver('t-stale', 'pickedup', 'pickedup');
    await deliver('t-stale', 'delivered', 'accepted');
    await handler.close();
    expect(errors).toEqual([]);
    expect(events.map((event) => event.status)).toEqual(['pickedup']);
    expect(handler.stats).toMatchObject({ processed: 1, outOfOrder: 1 });
  });

  it.each(modes)('with $mode, a read of a status already processed is a duplicate', async ({ options }) => {
    const { handler, events, errors, deliver } = staleReads(options());
    await deliver('t-same', 'pickedup', 'pickedup');
    await deliver('t-same', 'enroute', 'pickedup');
    await handler.close();
    expect(errors).toEqual([]);
    expect(events.map((event) => event.status)).toEqual(['pickedup']);
    expect(handler.stats).toMatchObject({ processed: 1, duplicates: 1 });
  });
});
