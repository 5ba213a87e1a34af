/**
 * The Redis store and inbox on a real 3-master Redis Cluster, through ioredis `Cluster` and node-redis
 * `createCluster` (README "Running several instances"): the store contract, creates of one order from
 * two clients, and the inbox behaviour.
 */
import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { createCluster } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisClientLike, redisInbox, redisStore } from '../../src/redis.js';
import { orderParams, useMockService } from '../support/mock-service.js';
import { type RedisCluster, redisClusterAvailable, startRedisCluster } from '../support/redis-cluster.js';
import { describeWithRedis } from '../support/redis-server.js';
import { describeStoreContract } from '../support/store-contract.js';
import { describeInboxContract } from '../webhooks/inbox-contract.js';

describeWithRedis('the Redis store and inbox on a 3-master Redis Cluster', () => {
  const service = useMockService();
  let cluster: RedisCluster;
  let io: InstanceType<typeof IORedis.Cluster>;
  let nodeRedis: ReturnType<typeof createCluster>;
  beforeAll(async () => {
    if (!redisClusterAvailable)
      throw new Error('redis-cli is missing: apt-get install -y redis-server (it ships redis-cli)');
    cluster = await startRedisCluster();
    const nodes = cluster.ports.map((port) => ({ host: '127.0.0.1', port }));
    io = new IORedis.Cluster(nodes).on('error', () => {});
    nodeRedis = createCluster({ rootNodes: nodes.map(({ host, port }) => ({ url: `redis://${host}:${port}` })) });
    nodeRedis.on('error', () => {});
    await nodeRedis.connect();
    await io.ping();
  }, 60_000);
  afterAll(async () => {
    io?.disconnect();
    await nodeRedis?.destroy();
    await cluster?.stop();
  });

  const libraries = (): [string, () => RedisClientLike][] => [
    ['ioredis Cluster', () => io],
    ['node-redis createCluster', () => nodeRedis as unknown as RedisClientLike],
  ];
  for (const [library, client] of libraries()) {
    describe(library, () => {
      describeStoreContract(
        `redisStore over ${library}`,
        () => redisStore(client(), { prefix: `dts-test:${randomUUID()}:` }),
        ['setIfAbsentThenGet', 'compareAndSetReleasing'],
      );

      it('makes one task of an order created at once by two clients', async () => {
        const store = redisStore(client(), { prefix: `dts-test:${randomUUID()}:` });
        const params = orderParams(`CLUSTER-${randomUUID()}`);
        const [a, b] = await Promise.all([
          service.client({ store }).tasks.create(params),
          service.client({ store }).tasks.create(params),
        ]);
        expect(a.id).toBe(b.id);
        expect(service.mock.requestsFor('tasks.create')).toHaveLength(1);
      });

      it('refuses at construction an inbox stream without a hash tag', () => {
        expect(() => redisInbox(client(), { stream: 'dts:events' })).toThrow(
          expect.objectContaining({ name: 'ConfigurationError', option: 'stream' }),
        );
      });

      describeInboxContract(
        (options = {}) => redisInbox(client(), { stream: `{dts-test-${randomUUID()}}:events`, ...options }),
        { dedupesOnWrite: false },
      );
    });
  }
});
