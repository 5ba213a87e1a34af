/**
 * Store calls per event of a handler with a `store` (docs/performance.md § "Durable intake"): the lease
 * lives in the task's record, so an event costs a claim and one write that records it and releases the lease.
 */
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { type DeliveryStore, memoryStore } from '../../src/core/store.js';
import {
  createWebhookHandler,
  type InboxEntry,
  type WebhookClient,
  type WebhookInbox,
} from '../../src/webhooks/index.js';
import { fetchWebhook } from './fixtures.js';

/** `memoryStore()` recording each call's method name. */
function countedStore(): { store: DeliveryStore; calls: string[] } {
  const inner = memoryStore();
  const calls: string[] = [];
  const counted = <T>(name: string, call: () => Promise<T>): Promise<T> => {
    calls.push(name);
    return call();
  };
  const store: DeliveryStore = {
    get: (key) => counted('get', () => inner.get(key)),
    setIfAbsent: (key, value, ttlMs) => counted('setIfAbsent', () => inner.setIfAbsent(key, value, ttlMs)),
    compareAndSet: (key, expected, value, ttlMs) =>
      counted('compareAndSet', () => inner.compareAndSet(key, expected, value, ttlMs)),
    delete: (key, expected) => counted('delete', () => inner.delete(key, expected)),
  };
  return { store, calls };
}

const post = fetchWebhook;

it("costs at most 2 store calls for a task's first event and 3 for each later one (lease inside the record)", async () => {
  const { store, calls } = countedStore();
  const processed: string[] = [];
  const handler = createWebhookHandler({
    store,
    confirm: false,
    logLevel: 'off',
    onEvent: (event) => void processed.push(event.status),
  });
  const taskId = `task-${randomUUID()}`;
  const perEvent: string[][] = [];
  for (const status of ['accepted', 'pickedup', 'delivered']) {
    calls.length = 0;
    expect((await post(handler, taskId, status)).status).toBe(200);
    await handler.idle();
    perEvent.push([...calls]);
  }
  await handler.close();
  expect(processed).toEqual(['accepted', 'pickedup', 'delivered']);
  expect(perEvent[0]?.length).toBeLessThanOrEqual(2);
  for (const later of perEvent.slice(1)) expect(later.length).toBeLessThanOrEqual(3);
  expect(perEvent.flat()).not.toContain('delete');
});

it('writes nothing for a duplicate, and leaves no lease behind a failed onEvent', async () => {
  const { store, calls } = countedStore();
  let fail = true;
  const processed: string[] = [];
  const handler = createWebhookHandler({
    store,
    confirm: false,
    logLevel: 'off',
    onError: () => {},
    onEvent: (event) => {
      if (fail) throw new Error('down');
      processed.push(event.status);
    },
  });
  const taskId = `task-${randomUUID()}`;
  expect((await post(handler, taskId, 'accepted')).status).toBe(200);
  await handler.idle();
  fail = false;
  // The resend is processed at once: the failed attempt released its lease.
  expect((await post(handler, taskId, 'accepted')).status).toBe(200);
  await handler.idle();
  calls.length = 0;
  expect((await post(handler, taskId, 'accepted')).status).toBe(200);
  await handler.idle();
  await handler.close();
  expect(processed).toEqual(['accepted']);
  expect(calls.filter((call) => call !== 'get')).toEqual([]);
});

it('still looks at the record before a confirming GET', async () => {
  const { store, calls } = countedStore();
  const taskId = `task-${randomUUID()}`;
  const client: WebhookClient = {
    tasks: { retrieve: async () => ({ _id: taskId, status: 'delivered' }) },
  } as unknown as WebhookClient;
  const handler = createWebhookHandler({ store, client, confirm: true, logLevel: 'off', onEvent: () => {} });
  expect((await post(handler, taskId, 'delivered')).status).toBe(200);
  await handler.idle();
  await handler.close();
  expect(calls[0]).toBe('get');
  // A new task at a later status: its record is read again before the lease is written.
  expect(calls.slice(1)).toEqual(['get', 'setIfAbsent', 'compareAndSet']);
});

it('claims with the record read before a confirming GET: 3 store calls for a known task', async () => {
  const { store, calls } = countedStore();
  const taskId = `task-${randomUUID()}`;
  const client: WebhookClient = {
    tasks: { retrieve: async () => ({ _id: taskId, status: 'delivered' }) },
  } as unknown as WebhookClient;
  const writer = createWebhookHandler({ store, confirm: false, logLevel: 'off', onEvent: () => {} });
  expect((await post(writer, taskId, 'pickedup')).status).toBe(200);
  await writer.idle();
  await writer.close();
  calls.length = 0;
  const handler = createWebhookHandler({ store, client, confirm: true, logLevel: 'off', onEvent: () => {} });
  expect((await post(handler, taskId, 'delivered')).status).toBe(200);
  await handler.idle();
  await handler.close();
  expect(calls).toEqual(['get', 'compareAndSet', 'compareAndSet']);
});

it('costs at most 3 store calls for a later event on an instance new to the task, 4 on one whose memory is stale', async () => {
  const { store, calls } = countedStore();
  const handlers = [0, 1].map(() =>
    createWebhookHandler({ store, confirm: false, logLevel: 'off', onEvent: () => {} }),
  );
  const taskId = `task-${randomUUID()}`;
  const perEvent: number[] = [];
  for (const [index, status] of ['accepted', 'pickedup', 'enroute'].entries()) {
    const handler = handlers[index % 2];
    if (handler === undefined) throw new Error('no handler');
    calls.length = 0;
    expect((await post(handler, taskId, status)).status).toBe(200);
    await handler.idle();
    perEvent.push(calls.length);
  }
  for (const handler of handlers) await handler.close();
  // The second receiver reads the record; the first guesses its own last write, finds it changed, reads it.
  expect(perEvent[0]).toBeLessThanOrEqual(2);
  expect(perEvent[1]).toBeLessThanOrEqual(3);
  expect(perEvent[2]).toBeLessThanOrEqual(4);
});

it('with an inbox, takes a record written by a call whose answer was lost as recorded', async () => {
  const inner = memoryStore();
  let lost = false;
  const store: DeliveryStore = {
    ...inner,
    compareAndSet: async (key, expected, value, ttlMs) => {
      const done = await inner.compareAndSet(key, expected, value, ttlMs);
      // The write that records the status applies, but its answer never arrives.
      if (!lost && !value.includes('"lease"')) {
        lost = true;
        throw new Error('read ECONNRESET');
      }
      return done;
    },
  };
  const pending: InboxEntry[] = [];
  const marks: string[] = [];
  const inbox: WebhookInbox = {
    visibilityTimeoutMs: 60_000,
    append: async ({ body, receivedAt }) => void pending.push({ id: randomUUID(), body, receivedAt, attempts: 1 }),
    claim: async (_consumer, max) => pending.splice(0, max),
    complete: async () => void marks.push('complete'),
    fail: async () => void marks.push('fail'),
    inspect: async () => ({ pending: pending.length, failed: 0, events: [] }),
    replay: async () => 0,
  };
  const errors: unknown[] = [];
  const processed: string[] = [];
  const handler = createWebhookHandler({
    store,
    inbox,
    confirm: false,
    logLevel: 'off',
    onError: (error) => void errors.push(error),
    onEvent: (event) => void processed.push(event.status),
  });
  expect((await post(handler, `task-${randomUUID()}`, 'accepted')).status).toBe(200);
  while (marks.length === 0) await handler.idle();
  await handler.close();
  expect(lost).toBe(true);
  expect(errors).toEqual([]);
  expect(processed).toEqual(['accepted']);
  expect(marks).toEqual(['complete']);
});
