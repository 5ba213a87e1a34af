/**
 * A webhook handler whose task lease expired while `onEvent` ran (its store stalled) and was taken by
 * another instance does not write the task's record afterwards (src/webhooks/stored-dedupe.ts).
 */
import { expect, it } from 'vitest';
import { storeKey } from '../../src/core/store.js';
import { type DeliveryStore, memoryStore } from '../../src/index.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import { webhookBody } from './fixtures.js';

it("writes nothing in the task's record once its lease was taken over while onEvent ran", async () => {
  const store: DeliveryStore = memoryStore();
  const written: string[] = [];
  const spy: DeliveryStore = {
    ...store,
    compareAndSet: (key, expected, value, ttlMs) => {
      if (key.includes(':task:')) written.push(key);
      return store.compareAndSet(key, expected, value, ttlMs);
    },
  };
  const errors: unknown[] = [];
  const handler = createWebhookHandler({
    store: spy,
    confirm: false,
    onError: (error) => void errors.push(error),
    onEvent: async (event) => {
      // The lease expired meanwhile and another instance took it.
      const leaseKey = storeKey({ baseUrl: 'default', sellerId: 'default' }, 'webhook', 'lease', event.taskId);
      expect(await store.delete(leaseKey)).toBe(true);
      await store.setIfAbsent(leaseKey, 'another-instance', 60_000);
    },
  });
  const response = await handler.fetch(
    new Request('http://receiver.test/webhooks', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(webhookBody('fenced-task', 'accepted')),
    }),
  );
  expect(response.status).toBe(200);
  await handler.idle();
  expect(written).toEqual([]);
  expect(errors).toHaveLength(1);
  expect(String(errors[0])).toMatch(/lease/);
});
