/**
 * `redisStore` on a single node sends the calls made in one tick together (docs/performance.md "Durable
 * intake drain"): as one script when two or more need a script, else each as its own command. Either way
 * each of the seven answers as it would alone, in call order, and one Redis refuses rejects alone.
 * Checked on a real redis-server, through both libraries, against the same calls made one at a time.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import IORedis from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { redisStore } from '../../src/redis.js';
import { describeWithRedis, type RedisServer, startRedisServer } from '../support/redis-server.js';
import {
  anyOperation,
  expectTickAsAlone,
  recordInOneTick,
  takeInOneTick,
} from '../support/store-operations.js';

describeWithRedis('redisStore on a single node: the calls of one tick together', () => {
  let server: RedisServer;
  let io: IORedis;
  let nodeRedis: ReturnType<typeof createClient>;

  beforeAll(async () => {
    server = await startRedisServer();
    io = new IORedis(server.url);
    nodeRedis = createClient({ url: server.url });
    await nodeRedis.connect();
  }, 30_000);

  afterAll(async () => {
    io?.disconnect();
    await nodeRedis?.quit().catch(() => {});
    await server?.stop().catch(() => {});
  });

  /** The keys' values under `prefix`. */
  const contents = async (prefix: string): Promise<(string | null)[]> =>
    Promise.all([0, 1, 2, 3].map((key) => io.get(`${prefix}k${key}`)));

  for (const library of ['ioredis', 'node-redis'] as const) {
    it(`answers each call of a tick as it answers alone, in call order, and leaves the same keys (${library})`, async () => {
      const client = () => (library === 'ioredis' ? io : nodeRedis);
      await fc.assert(
        fc.asyncProperty(
          fc.array(anyOperation, { maxLength: 3 }),
          fc.array(anyOperation, { minLength: 1, maxLength: 12 }),
          async (before, batch) => {
            const together = `dts-test:batch:${randomUUID()}:`;
            const alone = `dts-test:batch:${randomUUID()}:`;
            const batched = redisStore(client(), { prefix: together });
            const oneByOne = redisStore(client(), { prefix: alone });
            await expectTickAsAlone(batched, oneByOne, before, batch);
            expect(await contents(together)).toEqual(await contents(alone));
          },
        ),
        { numRuns: 60 },
      );
    });
  }

  it('sends the lease takes and records of one tick as one script call, and one alone as its own', async () => {
    const prefix = `dts-test:batch:${randomUUID()}:`;
    const store = redisStore(io, { prefix });
    await store.ready();
    // Each call goes out once, as EVAL with the script's text (never EVALSHA, never sent again).
    await Promise.all(['x', 'y'].map((key) => store.setIfAbsentThenGet?.(key, 'v', 1000, key)));
    await store.setIfAbsentThenGet?.('z', 'v', 1000, 'z');
    await store.delete('z', 'v');
    const sent: string[] = [];
    const monitor = await io.duplicate().monitor();
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args[0]?.toUpperCase().startsWith('EVAL') && args.some((arg) => arg.includes(prefix))) {
        sent.push(`${args[0]?.toUpperCase()} ${args[2]}`);
      }
    });
    try {
      const taken = await takeInOneTick(store, ['a', 'b', 'c', 'a']);
      expect(taken).toEqual([
        [true, undefined],
        [true, undefined],
        [true, undefined],
        [false, undefined],
      ]);
      const recorded = await recordInOneTick(store, ['a', 'b']);
      expect(recorded).toEqual(['set', 'set']);
      expect(await store.delete('lease:c', 'token')).toBe(true);
      expect(await store.setIfAbsentThenGet?.('lease:a', 'next', 60_000, 'task:a')).toEqual([true, 'seen']);
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Four takes in one call (8 keys), two records in one (4 keys), then a delete and a take alone.
      expect(sent).toEqual(['EVAL 8', 'EVAL 4', 'EVAL 1', 'EVAL 2']);
    } finally {
      monitor.disconnect();
    }
  });

  it('sends a tick whose calls need at most one script as their own commands, in call order', async () => {
    const prefix = `dts-test:batch:${randomUUID()}:`;
    const store = redisStore(io, { prefix });
    await store.ready();
    const sent: string[] = [];
    const monitor = await io.duplicate().monitor();
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      // Commands a script runs show too, from the source `lua`.
      if (source !== 'lua' && args.some((arg) => arg.includes(prefix)))
        sent.push(args[0]?.toUpperCase() ?? '');
    });
    try {
      // A create's take of its order beside the epoch read, then a compare-and-set among plain calls.
      expect(await Promise.all([store.get('epoch'), store.setIfAbsent('order', 'sending', 60_000)])).toEqual([
        undefined,
        true,
      ]);
      expect(
        await Promise.all([
          store.compareAndSet('order', 'sending', 'created', 60_000),
          store.get('order'),
          store.delete('other'),
        ]),
      ).toEqual([true, 'created', false]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(sent).toEqual(['GET', 'SET', 'EVAL', 'GET', 'DEL']);
    } finally {
      monitor.disconnect();
    }
  });

  it("rejects only the call Redis refuses in a tick's script, with Redis's error and without the key", async () => {
    const prefix = `dts-test:batch:${randomUUID()}:`;
    const secret = `seller-${randomUUID()}`;
    await io.hset(`${prefix}task:${secret}`, 'field', 'value');
    const store = redisStore(io, { prefix });
    await store.ready();
    const [refused, taken] = await Promise.allSettled([
      store.setIfAbsentThenGet?.(`lease:${secret}`, 'token', 60_000, `task:${secret}`),
      store.setIfAbsentThenGet?.('lease:other', 'token', 60_000, 'task:other'),
    ]);
    expect(refused.status).toBe('rejected');
    const reason = refused.status === 'rejected' ? (refused.reason as Error) : undefined;
    expect(reason?.message).toMatch(/WRONGTYPE/);
    expect(String(reason?.message)).not.toContain(secret);
    expect(taken).toEqual({ status: 'fulfilled', value: [true, undefined] });
  });
});
