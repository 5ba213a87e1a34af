/**
 * `redisStore` on a single node runs the lease and record operations called in one tick as one script
 * (docs/performance.md "Durable intake drain"): each answers as it would alone, in call order, and one Redis
 * refuses rejects alone. Checked on a real redis-server, through both libraries, against the same calls
 * made one at a time.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import IORedis from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DeliveryStore } from '../../src/core/store.js';
import { redisStore } from '../../src/redis.js';
import { describeWithRedis, type RedisServer, startRedisServer } from '../support/redis-server.js';

/** One store call of the three the handler makes per event, on keys `k0`…`k3` and values `v0`…`v2`. */
type Operation =
  | { kind: 'take'; key: number; value: number; readKey: number }
  | {
      kind: 'record';
      key: number;
      expected: number | undefined;
      value: number;
      fence: number;
      fenceValue: number;
      orAbsent: boolean;
    }
  | { kind: 'release'; key: number; expected: number };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({
    kind: fc.constant('take' as const),
    key: fc.nat(3),
    value: fc.nat(2),
    readKey: fc.nat(3),
  }),
  fc.record({
    kind: fc.constant('record' as const),
    key: fc.nat(3),
    expected: fc.option(fc.nat(2), { nil: undefined }),
    value: fc.nat(2),
    fence: fc.nat(3),
    fenceValue: fc.nat(2),
    orAbsent: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('release' as const), key: fc.nat(3), expected: fc.nat(2) }),
);

const call = (store: DeliveryStore, op: Operation): Promise<unknown> => {
  if (op.kind === 'take') {
    return (
      store.setIfAbsentThenGet?.(`k${op.key}`, `v${op.value}`, 60_000, `k${op.readKey}`) ?? Promise.reject()
    );
  }
  if (op.kind === 'record') {
    return (
      store.compareAndSetReleasing?.(
        `k${op.key}`,
        op.expected === undefined ? undefined : `v${op.expected}`,
        `v${op.value}`,
        60_000,
        { key: `k${op.fence}`, value: `v${op.fenceValue}`, orAbsent: op.orAbsent },
      ) ?? Promise.reject()
    );
  }
  return store.delete(`k${op.key}`, `v${op.expected}`);
};

describeWithRedis('redisStore on a single node: the calls of one tick in one script', () => {
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
          fc.array(operation, { maxLength: 3 }),
          fc.array(operation, { minLength: 1, maxLength: 12 }),
          async (before, batch) => {
            const together = `dts-test:batch:${randomUUID()}:`;
            const alone = `dts-test:batch:${randomUUID()}:`;
            const batched = redisStore(client(), { prefix: together });
            const oneByOne = redisStore(client(), { prefix: alone });
            for (const op of before) {
              await call(batched, op);
              await call(oneByOne, op);
            }
            const replies = await Promise.all(batch.map((op) => call(batched, op)));
            const expected: unknown[] = [];
            for (const op of batch) expected.push(await call(oneByOne, op));
            expect(replies).toEqual(expected);
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
    // The scripts loaded first, so each call goes out once (EVALSHA), never again as EVAL.
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
      const taken = await Promise.all(
        ['a', 'b', 'c', 'a'].map((task) =>
          store.setIfAbsentThenGet?.(`lease:${task}`, 'token', 60_000, `task:${task}`),
        ),
      );
      expect(taken).toEqual([
        [true, undefined],
        [true, undefined],
        [true, undefined],
        [false, undefined],
      ]);
      const recorded = await Promise.all(
        ['a', 'b'].map((task) =>
          store.compareAndSetReleasing?.(`task:${task}`, undefined, 'seen', 60_000, {
            key: `lease:${task}`,
            value: 'token',
            orAbsent: false,
          }),
        ),
      );
      expect(recorded).toEqual(['set', 'set']);
      expect(await store.delete('lease:c', 'token')).toBe(true);
      expect(await store.setIfAbsentThenGet?.('lease:a', 'next', 60_000, 'task:a')).toEqual([true, 'seen']);
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Four takes in one call (8 keys), two records in one (4 keys), then a delete and a take alone.
      expect(sent).toEqual(['EVALSHA 8', 'EVALSHA 4', 'EVALSHA 1', 'EVALSHA 2']);
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
