/**
 * The eviction guard of `redisStore` and `redisInbox` (README "Running several instances"): against a
 * real redis-server of its own (its policy is changed here), through both client libraries. The inboxes
 * here are `volatile: true`: this server keeps nothing on disk, and only its eviction policy is at stake.
 */
import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConfigurationError, type DeliveryStore } from '../../src/index.js';
import { type RedisClientLike, redisInbox, redisStore } from '../../src/redis.js';
import { orderParams, useMockService } from '../support/mock-service.js';
import {
  describeWithRedis,
  ownsRedisServer,
  type RedisServer,
  startRedisServer,
} from '../support/redis-server.js';

describeWithRedis('the eviction guard of the Redis store and inbox', () => {
  const service = useMockService();
  let redis: RedisServer;
  let io: IORedis;
  let nodeRedis: Awaited<ReturnType<ReturnType<typeof createClient>['connect']>>;
  beforeAll(async () => {
    redis = await startRedisServer();
    io = new IORedis(redis.url, { maxRetriesPerRequest: 1 }).on('error', () => {});
    nodeRedis = await createClient({ url: redis.url })
      .on('error', () => {})
      .connect();
  }, 30_000);
  afterAll(async () => {
    if (io !== undefined && !ownsRedisServer)
      await io.call('CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
    io?.disconnect();
    await nodeRedis?.destroy();
    if (ownsRedisServer) await redis?.stop();
  });
  const policy = (value: string) => io.call('CONFIG', 'SET', 'maxmemory-policy', value);
  const libraries = (): [string, RedisClientLike][] => [
    ['ioredis', io],
    ['node-redis', nodeRedis],
  ];

  it.runIf(ownsRedisServer)(
    'refuses allkeys-lru with a ConfigurationError naming maxmemory-policy, at ready() and in the store, a create and the inbox',
    async () => {
      await policy('allkeys-lru');
      try {
        for (const [library, client] of libraries()) {
          const store = redisStore(client, { prefix: `evict-${randomUUID()}:` });
          const refused = expect.objectContaining({ name: 'ConfigurationError', option: 'maxmemory-policy' });
          // At boot, before any order: the service does not start healthy.
          await expect(store.ready(), library).rejects.toEqual(refused);
          await expect(store.get('k'), library).rejects.toEqual(refused);
          await expect(store.get('k'), library).rejects.toThrow(/maxmemory-policy is allkeys-lru/);
          const created = service
            .client({ store: redisStore(client, { prefix: `evict-${randomUUID()}:` }) })
            .tasks.create(orderParams(`EVICT-${randomUUID()}`));
          await expect(created, library).rejects.toBeInstanceOf(ConfigurationError);
          const inbox = redisInbox(client, { stream: `evict-${randomUUID()}`, volatile: true });
          await expect(inbox.ready(), library).rejects.toEqual(refused);
          await expect(
            inbox.append({ taskId: 't', kind: 'accepted', body: '{}', receivedAt: 0 }),
            library,
          ).rejects.toEqual(refused);
        }
        expect(service.mock.requestsFor('tasks.create')).toHaveLength(0);
      } finally {
        await policy('noeviction');
      }
    },
  );

  it.runIf(ownsRedisServer)(
    'reads the policy again after a refusal: fixed with CONFIG SET, the same store goes on',
    async () => {
      for (const [library, client] of libraries()) {
        const store = redisStore(client, { prefix: `evict-${randomUUID()}:` });
        await policy('allkeys-lfu');
        try {
          await expect(store.ready(), library).rejects.toThrow(/maxmemory-policy is allkeys-lfu/);
        } finally {
          await policy('noeviction');
        }
        await store.ready();
        expect(await store.setIfAbsent('k', 'v', 1000), library).toBe(true);
      }
    },
  );

  it.runIf(ownsRedisServer)('warns once about volatile-* for the store, and not for the inbox', async () => {
    await policy('volatile-lru');
    try {
      for (const [library, client] of libraries()) {
        const warnings: string[] = [];
        const logger = { warn: (message: string) => void warnings.push(message) };
        const store: DeliveryStore = redisStore(client, { prefix: `evict-${randomUUID()}:`, logger });
        await store.setIfAbsent('a', '1', 1000);
        await store.get('a');
        expect(warnings, library).toHaveLength(1);
        expect(warnings[0], library).toContain('volatile-lru');
        const inbox = redisInbox(client, { stream: `evict-${randomUUID()}`, logger, volatile: true });
        await inbox.append({ taskId: 't', kind: 'accepted', body: '{}', receivedAt: 0 });
        expect(warnings, library).toHaveLength(1);
      }
    } finally {
      await policy('noeviction');
    }
  });

  it('warns once and goes on when the policy cannot be read (CONFIG disabled)', async () => {
    const warnings: string[] = [];
    const sent: string[] = [];
    const store = redisStore(
      {
        call: async (command: string, ...args: string[]) => {
          sent.push(command);
          if (command === 'CONFIG') throw new Error("ERR unknown command 'CONFIG'");
          return command === 'GET' ? `value of ${args[0]}` : 'OK';
        },
      },
      { prefix: 'p:', logger: { warn: (message) => void warnings.push(message) } },
    );
    expect(await store.get('k')).toBe('value of p:k');
    expect(await store.get('k')).toBe('value of p:k');
    expect(sent).toEqual(['CONFIG', 'GET', 'GET']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('maxmemory-policy');
  });
});
