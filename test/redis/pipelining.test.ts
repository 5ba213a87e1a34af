/**
 * The commands `redisStore` and `redisInbox` send in one tick over a single-node ioredis client go out as
 * one pipeline (docs/performance.md "Durable intake drain"): one write instead of one per command, each
 * command's reply or error its own; a command alone in its tick as itself. A store's own calls of a tick
 * go as their own commands when at most one of them needs a script, else as one script
 * (test/redis/store-batch.test.ts); a pipeline carries them with other stores' and an inbox's commands.
 */
import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import IORedis from 'ioredis';
import { afterAll, beforeAll, expect, it, type MockInstance, vi } from 'vitest';
import { redisStore } from '../../src/redis.js';
import { describeWithRedis, type RedisServer, startRedisServer } from '../support/redis-server.js';

/** The commands of the pipeline `pipelines` made last, read after it ran (its `call`s, in order). */
function commandsOf(pipelines: MockInstance<IORedis['pipeline']>): () => string[] {
  return () => {
    const pipeline = pipelines.mock.results.at(-1)?.value as { _queue?: { name: string }[] } | undefined;
    return (pipeline?._queue ?? []).map(({ name }) => name.toUpperCase());
  };
}

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

  it('sends the calls of one tick in one pipeline: as commands when at most one needs a script, else as one script', async () => {
    const client = connect();
    const prefix = `dts-test:pipeline:${randomUUID()}:`;
    const store = redisStore(client, { prefix });
    const other = redisStore(client, { prefix: `${prefix}other:` });
    await Promise.all([store.ready(), other.ready()]);
    const pipelines = vi.spyOn(client, 'pipeline');
    const calls = vi.spyOn(client, 'call');
    const sent = commandsOf(pipelines);
    // SET NX, GET and DEL need no script: each goes as its own command, all in one pipeline.
    const keys = ['a', 'b', 'c', 'a', 'd', 'b', 'e', 'f'];
    const taken = await Promise.all(keys.map((key, index) => store.setIfAbsent(key, `v${index}`, 10_000)));
    expect(taken).toEqual([true, true, true, false, true, false, true, true]);
    expect(pipelines).toHaveBeenCalledTimes(1);
    expect(sent()).toEqual(keys.map(() => 'SET'));
    expect(calls).not.toHaveBeenCalled();
    // One compare-and-set among them: still commands, the script call beside them.
    const [changed, read] = await Promise.all([
      store.compareAndSet('a', 'v0', 'w0', 10_000),
      Promise.all(['a', 'b'].map((key) => store.get(key))),
    ]);
    expect([changed, read]).toEqual([true, ['w0', 'v1']]);
    expect(pipelines).toHaveBeenCalledTimes(2);
    expect(sent()).toEqual(['EVAL', 'GET', 'GET']);
    // Two stores over one client (as a store and an inbox are), each with two compare-and-sets in the
    // tick: one script each, in one pipeline.
    const both = await Promise.all([
      store.compareAndSet('c', 'v2', 'w2', 10_000),
      store.compareAndSet('d', 'v4', 'w4', 10_000),
      other.compareAndSet('a', undefined, 'x', 10_000),
      other.compareAndSet('b', undefined, 'y', 10_000),
    ]);
    expect(both).toEqual([true, true, true, true]);
    expect(pipelines).toHaveBeenCalledTimes(3);
    expect(sent()).toEqual(['EVAL', 'EVAL']);
    expect(await Promise.all(['c', 'd'].map((key) => store.get(key)))).toEqual(['w2', 'w4']);
    expect(await Promise.all(['a', 'b'].map((key) => other.get(key)))).toEqual(['x', 'y']);
    expect(calls).not.toHaveBeenCalled();
    // A call alone in its tick goes out as itself: a pipeline of one costs more CPU and saves no write.
    const pipelined = pipelines.mock.calls.length;
    expect(await store.get('e')).toBe('v6');
    expect(pipelines).toHaveBeenCalledTimes(pipelined);
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
    // Each command of the tick handed to the client's own pipelining as it is.
    expect(calls.mock.calls.map(([command]) => command)).toEqual(['SET', 'SET', 'SET', 'SET']);
    calls.mockClear();
    const changed = await Promise.all([
      ...['a', 'b'].map((key) => store.compareAndSet(key, key, `${key}2`, 10_000)),
      other.compareAndSet('a', 'a', 'a2', 10_000),
    ]);
    expect(changed).toEqual([true, true, true]);
    // The store's two compare-and-sets as one script, the other store's alone.
    expect(calls.mock.calls.map(([command]) => command)).toEqual(['EVAL', 'EVAL']);
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
