/**
 * A webhook handler whose task lease expired while `onEvent` ran (its store stalled) and was taken by
 * another instance does not write the task's record afterwards (src/webhooks/stored-dedupe.ts), through
 * a store with the four operations and through the stores whose `compareAndSetReleasing` does it in one call.
 */
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { storeKey } from '../../src/core/store.js';
import { type DeliveryStore, memoryStore } from '../../src/index.js';
import { postgresStore } from '../../src/postgres.js';
import { redisStore } from '../../src/redis.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import { describeWithPostgres, usePostgresServer } from '../support/postgres-server.js';
import { describeWithRedis, useRedisClient } from '../support/redis-server.js';
import { fetchWebhook, webhookBody } from './fixtures.js';

const keyOf = (kind: 'lease' | 'task', taskId: string) =>
  storeKey({ baseUrl: 'default', sellerId: 'default' }, 'webhook', kind, taskId);

/**
 * One webhook through a handler on `store` whose `onEvent` hands the task's lease to another instance:
 * the record stays unwritten, the other instance keeps its lease, and `onError` hears of the lease.
 */
async function expectFencedOut(store: DeliveryStore): Promise<void> {
  const taskId = `fenced-${randomUUID()}`;
  const errors: unknown[] = [];
  const handler = createWebhookHandler({
    store,
    confirm: false,
    logLevel: 'off',
    onError: (error) => void errors.push(error),
    onEvent: async () => {
      expect(await store.delete(keyOf('lease', taskId))).toBe(true);
      await store.setIfAbsent(keyOf('lease', taskId), 'another-instance', 60_000);
    },
  });
  const response = await fetchWebhook(handler, taskId, 'accepted');
  expect(response.status).toBe(200);
  await handler.idle();
  await handler.close();
  expect(await store.get(keyOf('task', taskId))).toBeUndefined();
  expect(await store.get(keyOf('lease', taskId))).toBe('another-instance');
  expect(errors).toHaveLength(1);
  expect(String(errors[0])).toMatch(/lease/);
}

describeWithRedis('through redisStore (compareAndSetReleasing)', () => {
  const redis = useRedisClient();
  it("writes nothing in the task's record once its lease was taken over while onEvent ran", async () => {
    await expectFencedOut(redisStore(redis.io(), { prefix: `dts-test:fence:${randomUUID()}:` }));
  });
});

describeWithPostgres('through postgresStore (compareAndSetReleasing)', () => {
  const postgres = usePostgresServer(2);
  it("writes nothing in the task's record once its lease was taken over while onEvent ran", async () => {
    await expectFencedOut(postgresStore(postgres.pool(), { table: 'dts_fence' }));
  });
});

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
      const leaseKey = storeKey(
        { baseUrl: 'default', sellerId: 'default' },
        'webhook',
        'lease',
        event.taskId,
      );
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
