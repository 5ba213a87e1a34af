/**
 * The commands `redisStore` and `redisInbox` send in one tick over a single-node ioredis client go out as
 * one pipeline (docs/performance.md "Durable intake drain"): one write instead of one per command, each
 * command's reply or error its own; a command alone in its tick as itself. A store's own calls of a tick
 * are one script (test/redis/store-batch.test.ts), so a pipeline carries the scripts of several stores or
 * an inbox's commands.
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

  it('sends the calls of one store in one tick as one script, and the scripts of one tick as one pipeline', async () => {
    const client = connect();
    const prefix = `dts-test:pipeline:${randomUUID()}:`;
    const store = redisStore(client, { prefix });
    const other = redisStore(client, { prefix: `${prefix}other:` });
    await Promise.all([store.ready(), other.ready()]);
    const pipelines = vi.spyOn(client, 'pipeline');
    const calls = vi.spyOn(client, 'call');
    const keys = ['a', 'b', 'c', 'a', 'd', 'b', 'e', 'f'];
    const taken = await Promise.all(keys.map((key, index) => store.setIfAbsent(key, `v${index}`, 10_000)));
    expect(taken).toEqual([true, true, true, false, true, false, true, true]);
    expect(pipelines).not.toHaveBeenCalled();
    expect(calls).toHaveBeenCalledTimes(1);
    // Two stores over one client (as a store and an inbox are): one script each, in one pipeline.
    const [read, elsewhere] = await Promise.all([
      Promise.all(['a', 'b', 'f'].map((key) => store.get(key))),
      Promise.all([other.setIfAbsent('a', 'w', 10_000), other.get('a')]),
    ]);
    expect(read).toEqual(['v0', 'v1', 'v7']);
    expect(elsewhere).toEqual([true, 'w']);
    expect(pipelines).toHaveBeenCalledTimes(1);
    expect(calls).toHaveBeenCalledTimes(1);
    // A call alone in its tick goes out as itself: a pipeline of one costs more CPU and saves no write.
    expect(await store.get('c')).toBe('v2');
    expect(pipelines).toHaveBeenCalledTimes(1);
    expect(calls).toHaveBeenCalledTimes(2);
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

  it("rejects only the refused call of a tick, with Redis's error and without the key", async () => {
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
    const prefix = `dts-test:pipeline:${randomUUID()}:`;
    const store = redisStore(client, { prefix });
    const other = redisStore(client, { prefix: `${prefix}other:` });
    await Promise.all([store.ready(), other.ready()]);
    calls.mockClear();
    const taken = await Promise.all([
      ...['a', 'b', 'a'].map((key) => store.setIfAbsent(key, key, 10_000)),
      other.setIfAbsent('a', 'a', 10_000),
    ]);
    expect(taken).toEqual([true, true, false, true]);
    // Each store's script of the tick handed to the client's own pipelining as it is.
    expect(calls).toHaveBeenCalledTimes(2);
  });

  it('rejects every call of a tick ioredis refuses at once (disconnected, no offline queue)', async () => {
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
