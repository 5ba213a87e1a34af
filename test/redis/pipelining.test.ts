/**
 * The commands `redisStore` and `redisInbox` send in one tick over a single-node ioredis client go out as
 * one pipeline (docs/performance.md "Durable intake drain"): one write instead of one per command, each
 * command's reply or error its own; a command alone in its tick as itself.
 */
import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import IORedis from 'ioredis';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { redisStore } from '../../src/redis.js';
import { describeWithRedis, type RedisServer, startRedisServer } from '../support/redis-server.js';

describeWithRedis('redisStore over one ioredis client: one pipeline per tick', () => {
  let server: RedisServer;
  const clients: IORedis[] = [];
  const connect = (options: { enableAutoPipelining?: boolean } = {}): IORedis => {
    const client = new IORedis(server.url, options);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    server = await startRedisServer();
  }, 30_000);

  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await server?.stop().catch(() => {});
  });

  it('sends the calls of one tick as one pipeline, each answered with its own reply', async () => {
    const client = connect();
    const prefix = `dts-test:pipeline:${randomUUID()}:`;
    const store = redisStore(client, { prefix });
    await store.ready();
    const pipelines = vi.spyOn(client, 'pipeline');
    const calls = vi.spyOn(client, 'call');
    const keys = ['a', 'b', 'c', 'a', 'd', 'b', 'e', 'f'];
    const taken = await Promise.all(keys.map((key, index) => store.setIfAbsent(key, `v${index}`, 10_000)));
    expect(taken).toEqual([true, true, true, false, true, false, true, true]);
    expect(pipelines).toHaveBeenCalledTimes(1);
    expect(await Promise.all(['a', 'b', 'f'].map((key) => store.get(key)))).toEqual(['v0', 'v1', 'v7']);
    expect(pipelines).toHaveBeenCalledTimes(2);
    expect(calls).not.toHaveBeenCalled();
    // A call alone in its tick goes out as itself: a pipeline of one costs more CPU and saves no write.
    expect(await store.get('c')).toBe('v2');
    expect(pipelines).toHaveBeenCalledTimes(2);
    expect(calls).toHaveBeenCalledTimes(1);
  });

  /** A store whose `secretKey` holds a hash, so its GET is refused (WRONGTYPE). */
  const storeWithRefusedKey = async () => {
    const client = connect();
    const prefix = `dts-test:pipeline:${randomUUID()}:`;
    const secretKey = `seller-${randomUUID()}`;
    await client.hset(`${prefix}${secretKey}`, 'field', 'value');
    const store = redisStore(client, { prefix });
    await store.ready();
    return { store, secretKey };
  };

  /** Redis's error, without the key (it holds the seller id). */
  const expectRefusedWithoutKey = (error: unknown, secretKey: string) => {
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/WRONGTYPE/);
    expect(inspect(error, { depth: 10 })).not.toContain(secretKey);
  };

  it("rejects a refused command sent alone with Redis's error and without the key", async () => {
    const { store, secretKey } = await storeWithRefusedKey();
    const error = await store.get(secretKey).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expectRefusedWithoutKey(error, secretKey);
  });

  it("rejects only the refused command of a pipeline, with Redis's error and without the key", async () => {
    const { store, secretKey } = await storeWithRefusedKey();
    await store.setIfAbsent('good', 'value', 10_000);
    const [refused, answered] = await Promise.allSettled([store.get(secretKey), store.get('good')]);
    expect(refused.status).toBe('rejected');
    expectRefusedWithoutKey(
      refused.status === 'rejected' ? (refused.reason as unknown) : undefined,
      secretKey,
    );
    expect(answered).toEqual({ status: 'fulfilled', value: 'value' });
  });

  it('leaves a client that pipelines itself (enableAutoPipelining) to do so', async () => {
    const client = connect({ enableAutoPipelining: true });
    const calls = vi.spyOn(client, 'call');
    const store = redisStore(client, { prefix: `dts-test:pipeline:${randomUUID()}:` });
    await store.ready();
    calls.mockClear();
    const taken = await Promise.all(['a', 'b', 'a'].map((key) => store.setIfAbsent(key, key, 10_000)));
    expect(taken).toEqual([true, true, false]);
    expect(calls).toHaveBeenCalledTimes(3);
  });

  it('rejects every call of a pipeline ioredis refuses at once (disconnected, no offline queue)', async () => {
    const client = connect({ enableOfflineQueue: false } as { enableAutoPipelining?: boolean });
    // Without an offline queue, nothing may be sent before the connection is ready.
    if (client.status !== 'ready') await new Promise((resolve) => client.once('ready', resolve));
    const store = redisStore(client, { prefix: `dts-test:pipeline:${randomUUID()}:` });
    await store.ready();
    expect(await store.setIfAbsent('a', 'before', 10_000)).toBe(true);
    client.disconnect();
    const refused = await Promise.allSettled([store.get('a'), store.get('b')]);
    expect(refused.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    for (const result of refused) {
      const reason = result.status === 'rejected' ? (result.reason as unknown) : undefined;
      expect((reason as Error).message).toMatch(/enableOfflineQueue/);
    }
  });
});
