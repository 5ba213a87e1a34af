/**
 * Store calls per event of a handler with a `store` (docs/performance.md § "Durable intake"): an event
 * that needs no confirming GET is filtered under its task's lease only, with no look at the record before.
 */
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { type DeliveryStore, memoryStore } from '../../src/core/store.js';
import { postgresStore } from '../../src/postgres.js';
import { redisStore } from '../../src/redis.js';
import { createWebhookHandler, type WebhookClient } from '../../src/webhooks/index.js';
import { describeWithPostgres, usePostgresServer } from '../support/postgres-server.js';
import { describeWithRedis, useRedisClient } from '../support/redis-server.js';
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

/** Commands (Redis) or statements (PostgreSQL) a handler's store sent per webhook, one webhook after another. */
async function sentPerWebhook(
  sent: () => number,
  store: DeliveryStore,
  webhooks: readonly (readonly [taskId: string, status: string])[],
): Promise<number[]> {
  const handler = createWebhookHandler({ store, confirm: false, logLevel: 'off', onEvent: () => {} });
  try {
    // The first calls read the eviction policy and load each script (Redis) or create the table.
    const warmUp = `task-${randomUUID()}`;
    for (const status of ['accepted', 'accepted']) {
      await post(handler, warmUp, status);
      await handler.idle();
    }
    const counts: number[] = [];
    for (const [taskId, status] of webhooks) {
      const before = sent();
      expect((await post(handler, taskId, status)).status).toBe(200);
      await handler.idle();
      counts.push(sent() - before);
    }
    expect(handler.stats).toMatchObject({ processed: 1 + webhooks.length - 2, duplicates: 1 + 2, failed: 0 });
    return counts;
  } finally {
    await handler.close();
  }
}

/** Three tasks' first status, then a repeat of two of them. */
function webhooksWithRepeats(): [string, string][] {
  const tasks = [0, 1, 2].map(() => `task-${randomUUID()}`);
  return [
    ...tasks.map((taskId) => [taskId, 'pickedup'] as [string, string]),
    [tasks[0] ?? '', 'pickedup'],
    [tasks[1] ?? '', 'pickedup'],
  ];
}

describeWithRedis('Redis commands per webhook through redisStore', () => {
  const redis = useRedisClient();

  it('sends 2 per processed webhook (lease with the record read; record with the release) and 2 per duplicate', async () => {
    const commands: string[] = [];
    const store = redisStore(redis.counting(commands), { prefix: `dts-test:webhook-calls:${randomUUID()}:` });
    expect(await sentPerWebhook(() => commands.length, store, webhooksWithRepeats())).toEqual([
      2, 2, 2, 2, 2,
    ]);
  });
});

describeWithPostgres('PostgreSQL statements per webhook through postgresStore', () => {
  const postgres = usePostgresServer(4);

  it('sends 3 per first status of a task (lease, record read, record with the release) and 2 per duplicate', async () => {
    const statements: string[] = [];
    const counting = {
      query: (text: string, values?: unknown[]) => {
        statements.push(text);
        return postgres.pool().query(text, values);
      },
    };
    const store = postgresStore(counting, { table: 'dts_webhook_calls' });
    // A record the lease's statement found is read with it; one it did not find (a task's first status,
    // whose record another holder may have inserted since that statement began) is read again.
    expect(await sentPerWebhook(() => statements.length, store, webhooksWithRepeats())).toEqual([
      3, 3, 3, 2, 2,
    ]);
  });
});
