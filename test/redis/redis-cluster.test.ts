/**
 * The Redis store and inbox on a real 3-master Redis Cluster (`appendonly yes`, the setting the inbox asks
 * for), through ioredis `Cluster` and node-redis `createCluster` (README "Running several instances"): the
 * store contract, creates of one order from two clients, the inbox behaviour, its check of every master's
 * persistence, and a reset of the stream's keys seen while running.
 */
import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { createCluster } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/index.js';
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
    cluster = await startRedisCluster(3, ['--appendonly', 'yes']);
    const nodes = cluster.ports.map((port) => ({ host: '127.0.0.1', port }));
    io = new IORedis.Cluster(nodes).on('error', () => {});
    nodeRedis = createCluster({
      rootNodes: nodes.map(({ host, port }) => ({ url: `redis://${host}:${port}` })),
    });
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
        { inCallOrder: true },
      );

      it('runs a script call and a read made at once in call order, also after SCRIPT FLUSH on every master', async () => {
        const store = redisStore(client(), { prefix: `dts-test:${randomUUID()}:` });
        await store.ready();
        for (const key of ['a', 'b', 'c']) {
          await Promise.all(io.nodes('master').map((node) => node.script('FLUSH')));
          const answers = await Promise.all([
            store.compareAndSet(key, undefined, 'set', 10_000),
            store.get(key),
          ]);
          expect(answers).toEqual([true, 'set']);
        }
      });

      it('keeps call order for calls made while its first check of the cluster runs', async () => {
        const store = redisStore(client(), { prefix: `dts-test:${randomUUID()}:` });
        const ready = store.ready();
        const written = store.compareAndSet('k', undefined, 'set', 10_000);
        await ready;
        // Made after the write, once ready() resolved: it must not overtake the write still waiting.
        const read = store.get('k');
        expect(await Promise.all([written, read])).toEqual([true, 'set']);
      });

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

      it('refuses at ready() an inbox when one master keeps nothing on disk, unless volatile: true', async () => {
        const port = cluster.ports[2] ?? 0;
        const node = new IORedis({ host: '127.0.0.1', port });
        await node.config('SET', 'appendonly', 'no');
        try {
          const refused = redisInbox(client(), { stream: `{dts-test-${randomUUID()}}:events` });
          const error = await refused.ready().catch((caught: unknown) => caught);
          expect(error).toBeInstanceOf(ConfigurationError);
          expect(error).toMatchObject({
            option: 'appendonly',
            message: expect.stringContaining('CONFIG SET appendonly yes'),
          });
          const warnings: string[] = [];
          const accepted = redisInbox(client(), {
            stream: `{dts-test-${randomUUID()}}:events`,
            volatile: true,
            logger: { warn: (message) => void warnings.push(message) },
          });
          await accepted.ready();
          expect(warnings).toEqual([]);
        } finally {
          await node.config('SET', 'appendonly', 'yes');
          node.disconnect();
        }
      });

      it("reports once a reset of the stream's keys (gone from its master) and goes on in a new epoch", async () => {
        const stream = `{dts-test-${randomUUID()}}:events`;
        const inbox = redisInbox(client(), { stream });
        const resets: string[] = [];
        inbox.onReset(({ reason }) => void resets.push(reason));
        await inbox.ready();
        await inbox.append({ taskId: 'lost-task', kind: 'accepted', body: '{}', receivedAt: Date.now() });
        // What a restart without persistence leaves: none of the stream's keys (one slot, one master).
        await io.del(stream, `${stream}:open`, `${stream}:epoch`);
        expect(await inbox.claim('worker', 10)).toEqual([]);
        expect(resets).toHaveLength(1);
        expect(resets[0]).toMatch(/lost its (epoch key|consumer group)/);
        await inbox.append({ taskId: 'new-task', kind: 'accepted', body: '{}', receivedAt: Date.now() });
        const claimed = await inbox.claim('worker', 10);
        expect(claimed.map((entry) => entry.body)).toEqual(['{}']);
        expect(resets).toHaveLength(1);
      });
    });
  }
});
