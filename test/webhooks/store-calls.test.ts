/**
 * Store calls per event of a handler with a `store` (docs/performance.md § "Durable intake"): an event
 * that needs no confirming GET is filtered under its task's lease only, with no look at the record before.
 */
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { type DeliveryStore, memoryStore } from '../../src/core/store.js';
import { createWebhookHandler, type WebhookClient } from '../../src/webhooks/index.js';
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

it('takes the lease first for an event that is not confirmed: lease, record read, fence, record, release', async () => {
  const { store, calls } = countedStore();
  const handler = createWebhookHandler({ store, confirm: false, logLevel: 'off', onEvent: () => {} });
  expect((await post(handler, `task-${randomUUID()}`, 'pickedup')).status).toBe(200);
  await handler.idle();
  await handler.close();
  expect(calls).toEqual(['setIfAbsent', 'get', 'compareAndSet', 'compareAndSet', 'delete']);
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
  expect(calls.slice(1, 3)).toEqual(['setIfAbsent', 'get']);
});
