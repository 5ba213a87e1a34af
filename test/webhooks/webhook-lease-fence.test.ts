/**
 * A webhook handler whose task lease expired while `onEvent` ran (its store stalled) and was taken by
 * another instance does not write the task's record afterwards, and a lease is renewed while `onEvent` runs
 * long (src/webhooks/stored-dedupe.ts: the lease lives in the task's record).
 */
import { expect, it } from 'vitest';
import { storeKey } from '../../src/core/store.js';
import { type DeliveryStore, memoryStore } from '../../src/index.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import { fetchWebhook, webhookBody } from './fixtures.js';

it("writes nothing in the task's record once its lease was taken over while onEvent ran", async () => {
  const store: DeliveryStore = memoryStore();
  const recordKey = storeKey({ baseUrl: 'default', sellerId: 'default' }, 'webhook', 'task2', 'fenced-task');
  let takenOver = false;
  /** Writes to the task's record that succeeded once another instance held its lease. */
  const written: string[] = [];
  const spy: DeliveryStore = {
    ...store,
    setIfAbsent: async (key, value, ttlMs) => {
      const done = await store.setIfAbsent(key, value, ttlMs);
      if (done && takenOver && key === recordKey) written.push(value);
      return done;
    },
    compareAndSet: async (key, expected, value, ttlMs) => {
      const done = await store.compareAndSet(key, expected, value, ttlMs);
      if (done && takenOver && key === recordKey) written.push(value);
      return done;
    },
  };
  const errors: unknown[] = [];
  const handler = createWebhookHandler({
    store: spy,
    confirm: false,
    onError: (error) => void errors.push(error),
    onEvent: async () => {
      // The lease expired meanwhile and another instance took it (its lease in the task's record).
      const held = await store.get(recordKey);
      const record = JSON.parse(held ?? '{}') as { lease?: { token: string; until: number } };
      expect(record.lease?.token).toEqual(expect.any(String));
      const lease = { token: 'another-instance', until: Date.now() + 60_000 };
      expect(await store.compareAndSet(recordKey, held, JSON.stringify({ ...record, lease }), 60_000)).toBe(true);
      takenOver = true;
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
  expect(JSON.parse((await store.get(recordKey)) ?? '{}')).toMatchObject({
    seen: [],
    lease: { token: 'another-instance' },
  });
  expect(errors).toHaveLength(1);
  expect(String(errors[0])).toMatch(/lease/);
});

it('renews the lease in the record while onEvent runs past a third of its TTL, and records the status after', async () => {
  const store = memoryStore();
  const recordKey = storeKey({ baseUrl: 'default', sellerId: 'default' }, 'webhook', 'task2', 'slow-task');
  const untilOf = async () =>
    (JSON.parse((await store.get(recordKey)) ?? '{}') as { lease?: { until: number } }).lease?.until;
  const seen: (number | undefined)[] = [];
  const errors: unknown[] = [];
  // The lease lives 3 000 + 4 × 1 + 1 000 = 4 004 ms: renewed every 1 335 ms.
  const handler = createWebhookHandler({
    store,
    confirm: false,
    eventTimeoutMs: 3000,
    storeTimeoutMs: 1,
    onError: (error) => void errors.push(error),
    onEvent: async () => {
      const first = await untilOf();
      seen.push(first);
      const giveUpAt = Date.now() + 2500;
      while (Date.now() < giveUpAt && (await untilOf()) === first) await new Promise((r) => setTimeout(r, 50));
      seen.push(await untilOf());
    },
  });
  expect((await fetchWebhook(handler, 'slow-task', 'accepted')).status).toBe(200);
  await handler.idle();
  await handler.close();
  expect(errors).toEqual([]);
  expect(seen[0]).toEqual(expect.any(Number));
  expect(seen[1]).toBeGreaterThan(seen[0] ?? Number.POSITIVE_INFINITY);
  // Recorded, and released in the same write.
  expect(JSON.parse((await store.get(recordKey)) ?? '{}')).toEqual({
    rank: expect.any(Number),
    ended: null,
    seen: ['accepted'],
  });
});
