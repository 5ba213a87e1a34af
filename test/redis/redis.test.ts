/**
 * `redisStore` against a real redis-server, through each client it accepts: ioredis 5 and 6, node-redis
 * (`redis`) 5 and 6. Keys carry a prefix unique to this run, so a shared `REDIS_URL` server needs no
 * flushing.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { inspect } from 'node:util';
import IORedis5 from 'ioredis';
import IORedis6 from 'ioredis6';
import { createClient as createNodeRedis5 } from 'redis';
import { createClient as createNodeRedis6 } from 'redis6';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { storeKey, withStoreDeadline } from '../../src/core/store.js';
import { ConfigurationError, type DeliveryStore, StoreUnavailableError } from '../../src/index.js';
import { type RedisClientLike, type RedisStore, redisStore } from '../../src/redis.js';
import {
  describeWithRedis,
  ownsRedisServer,
  type RedisServer,
  startRedisServer,
} from '../support/redis-server.js';
import { describeStoreContract } from '../support/store-contract.js';

/** A connected client of one library, and how to let it go (no reconnecting left behind). */
interface Connection {
  readonly library: string;
  readonly client: RedisClientLike;
  close(): Promise<void>;
}

/** Reconnect every 50 ms while a test keeps the client, instead of the libraries' backoff up to seconds. */
const RECONNECT_MS = 50;

const LIBRARIES = {
  'ioredis 5': async (url: string): Promise<Connection> => {
    const client = new IORedis5(url, { retryStrategy: () => RECONNECT_MS }).on('error', () => {});
    await client.ping();
    return { library: 'ioredis 5', client, close: async () => client.disconnect() };
  },
  'ioredis 6': async (url: string): Promise<Connection> => {
    const client = new IORedis6(url, { retryStrategy: () => RECONNECT_MS }).on('error', () => {});
    await client.ping();
    return { library: 'ioredis 6', client, close: async () => client.disconnect() };
  },
  'redis 5': async (url: string): Promise<Connection> => {
    const client = createNodeRedis5({ url, socket: { reconnectStrategy: RECONNECT_MS } }).on(
      'error',
      () => {},
    );
    await client.connect();
    return { library: 'redis 5', client, close: async () => client.destroy() };
  },
  'redis 6': async (url: string): Promise<Connection> => {
    const client = createNodeRedis6({ url, socket: { reconnectStrategy: RECONNECT_MS } }).on(
      'error',
      () => {},
    );
    await client.connect();
    return { library: 'redis 6', client, close: async () => client.destroy() };
  },
} satisfies Record<string, (url: string) => Promise<Connection>>;

type Library = keyof typeof LIBRARIES;
const LIBRARY_NAMES = Object.keys(LIBRARIES) as Library[];

/** A prefix no other run or test uses. */
const uniquePrefix = (label: string) => `dts-test:${label}:${randomUUID()}:`;

/** Every key under `prefix`, by SCAN (never KEYS on a shared server). */
async function keysUnder(raw: IORedis5, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await raw.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys;
}

/** Settles `promise` and says how long it took, ms. */
async function timed(promise: Promise<unknown>): Promise<{ error: unknown; elapsedMs: number }> {
  const started = performance.now();
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  return { error, elapsedMs: performance.now() - started };
}

describe('the redis entry', () => {
  /** Relative imports of `file`, transitively, as paths under src/. */
  const importsOf = (file: string, seen = new Set<string>()): Set<string> => {
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(
      /from\s+['"](\.{1,2}\/[^'"]+)\.js['"]/g,
    )) {
      const path = join(dirname(file), `${specifier}.ts`);
      if (!seen.has(path)) {
        seen.add(path);
        importsOf(path, seen);
      }
    }
    return seen;
  };

  it('is never loaded by the main entry, directly or through another module', () => {
    const reached = importsOf('src/index.ts');
    expect(reached.size).toBeGreaterThan(20);
    expect([...reached]).not.toContain('src/redis.ts');
  });

  it('imports no Redis library, not even its types (the TSDoc example aside)', () => {
    for (const file of ['src/redis.ts', ...importsOf('src/redis.ts')]) {
      expect(readFileSync(file, 'utf8'), file).not.toMatch(
        /^(import|export)\b[^;]*from\s+['"](ioredis|redis|@redis\/[^'"]*)['"]/m,
      );
    }
  });

  it('accepts the clients of ioredis 5 and 6 and node-redis 5 and 6 by type, and returns a DeliveryStore with ready()', () => {
    expectTypeOf<IORedis5>().toExtend<RedisClientLike>();
    expectTypeOf<IORedis6>().toExtend<RedisClientLike>();
    expectTypeOf<ReturnType<typeof createNodeRedis5>>().toExtend<RedisClientLike>();
    expectTypeOf<ReturnType<typeof createNodeRedis6>>().toExtend<RedisClientLike>();
    expectTypeOf<{ get(key: string): Promise<string> }>().not.toExtend<RedisClientLike>();
    expectTypeOf(redisStore).returns.toEqualTypeOf<RedisStore>();
    expectTypeOf<RedisStore>().toExtend<DeliveryStore>();
    expectTypeOf<RedisStore['ready']>().toEqualTypeOf<() => Promise<void>>();
  });
});

describe('redisStore options', () => {
  const client: RedisClientLike = { sendCommand: async () => null };

  it('rejects a client that has neither call (ioredis) nor sendCommand (node-redis), naming the client option', () => {
    for (const invalid of [{}, null, 'redis://localhost', { call: 'GET' }]) {
      expect(() => redisStore(invalid as unknown as RedisClientLike)).toThrow(ConfigurationError);
      expect(() => redisStore(invalid as unknown as RedisClientLike)).toThrow(
        expect.objectContaining({ option: 'client' }),
      );
    }
  });

  it('rejects a prefix that is not a string, naming the prefix option', () => {
    expect(() => redisStore(client, { prefix: 42 as unknown as string })).toThrow(
      expect.objectContaining({ name: 'ConfigurationError', option: 'prefix' }),
    );
    expect(() => redisStore(client, { prefix: '' })).not.toThrow();
  });

  it('sends node-redis clients one argument array, with the default prefix dts: and TTLs in whole ms, at least 1', async () => {
    const sent: (readonly string[])[] = [];
    const store = redisStore({
      sendCommand: async (args: readonly string[]) => {
        if (args[0] === 'CONFIG') return ['maxmemory-policy', 'noeviction'];
        sent.push(args);
        return 'OK';
      },
    });
    await store.setIfAbsent('v1:s:order:A', 'value', 1500.2);
    await store.setIfAbsent('v1:s:order:B', 'value', 0.3);
    expect(sent).toEqual([
      ['SET', 'dts:v1:s:order:A', 'value', 'PX', '1501', 'NX'],
      ['SET', 'dts:v1:s:order:B', 'value', 'PX', '1', 'NX'],
    ]);
  });

  it('rejects a TTL that is not a finite number without sending anything', async () => {
    const sent: string[] = [];
    const store = redisStore({
      call: async (command) => {
        sent.push(command);
        return 'OK';
      },
    });
    await expect(store.setIfAbsent('k', 'v', Number.POSITIVE_INFINITY)).rejects.toThrow(RangeError);
    await expect(store.compareAndSet('k', undefined, 'v', Number.NaN)).rejects.toThrow(RangeError);
    expect(sent).toEqual([]);
  });
});

describeWithRedis('redisStore against a real redis-server', () => {
  let server: RedisServer;
  const connections = new Map<Library, Connection>();
  let raw: IORedis5;

  const connection = (library: Library): Connection => {
    const found = connections.get(library);
    if (found === undefined) throw new Error(`${library} is not connected`);
    return found;
  };

  beforeAll(async () => {
    server = await startRedisServer();
    for (const library of LIBRARY_NAMES) connections.set(library, await LIBRARIES[library](server.url));
    raw = new IORedis5(server.url, { retryStrategy: () => RECONNECT_MS }).on('error', () => {});
    // The server's start is bounded (10 s to answer PING); four clients connect after it on a busy machine.
  }, 30_000);

  afterAll(async () => {
    raw?.disconnect();
    await Promise.all([...connections.values()].map((open) => open.close()));
    await server?.stop().catch(() => {});
  });

  for (const library of LIBRARY_NAMES) {
    describeStoreContract(
      `redisStore over ${library}`,
      () => redisStore(connection(library).client, { prefix: uniquePrefix('contract') }),
      ['setIfAbsentThenGet', 'compareAndSetReleasing'],
      { inCallOrder: true },
    );
  }

  it('keeps two prefixes apart: the same key holds a different value under each', async () => {
    const key = storeKey({ baseUrl: 'https://x.test/', sellerId: 'seller-1' }, 'order', 'ORD-1');
    const blue = redisStore(connection('ioredis 5').client, { prefix: uniquePrefix('blue') });
    const green = redisStore(connection('redis 5').client, { prefix: uniquePrefix('green') });
    expect(await blue.setIfAbsent(key, 'blue', 10_000)).toBe(true);
    expect(await green.setIfAbsent(key, 'green', 10_000)).toBe(true);
    expect(await blue.get(key)).toBe('blue');
    expect(await green.get(key)).toBe('green');
    expect(await green.delete(key)).toBe(true);
    expect(await blue.get(key)).toBe('blue');
  });

  it('writes every key under the default prefix dts:, each with a TTL, through both libraries', async () => {
    const sellerId = `seller-${randomUUID()}`;
    const seller = { baseUrl: 'https://x.test/', sellerId };
    for (const library of LIBRARY_NAMES) {
      const store = redisStore(connection(library).client);
      const order = storeKey(seller, 'order', `ORD-${library}`);
      const lease = storeKey(seller, 'lease', `ORD-${library}`);
      await store.setIfAbsent(lease, 'token', 30_000);
      await store.compareAndSet(order, undefined, '{"taskId":"t-1"}', 60_000);
      await store.compareAndSet(order, '{"taskId":"t-1"}', '{"taskId":"t-1","status":"created"}', 60_000);
    }
    const keys = await keysUnder(raw, `dts:v2:https%3A//x.test/:${sellerId}:`);
    expect(keys).toHaveLength(2 * LIBRARY_NAMES.length);
    expect(await keysUnder(raw, `v2:https%3A//x.test/:${sellerId}:`)).toEqual([]);
    for (const key of keys) {
      const ttl = await raw.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
    }
  });

  it('lets exactly one of four connections (both libraries, both majors) win each setIfAbsent race', async () => {
    const prefix = uniquePrefix('race');
    const stores = LIBRARY_NAMES.map((library) => redisStore(connection(library).client, { prefix }));
    for (let round = 0; round < 100; round++) {
      const key = `race-${round}`;
      const wins = await Promise.all(
        stores.map((store, index) => store.setIfAbsent(key, `winner-${index}`, 10_000)),
      );
      expect(wins.filter(Boolean)).toHaveLength(1);
      expect(await stores[0]?.get(key)).toBe(`winner-${wins.indexOf(true)}`);
    }
  });

  it('reads values written by the other library, and compares them byte for byte', async () => {
    const prefix = uniquePrefix('cross');
    const writer = redisStore(connection('ioredis 6').client, { prefix });
    const reader = redisStore(connection('redis 6').client, { prefix });
    const value = JSON.stringify({ note: 'ä ✓ "quoted"\n', taskId: 't-1' });
    await writer.setIfAbsent('k', value, 10_000);
    expect(await reader.get('k')).toBe(value);
    expect(await reader.compareAndSet('k', value, 'next', 10_000)).toBe(true);
    expect(await writer.delete('k', 'next')).toBe(true);
  });

  // SCRIPT FLUSH and the command counters are server-wide: only on a server of our own.
  it.skipIf(!ownsRedisServer)(
    'sends its scripts by text (EVAL), never by SHA: a SCRIPT FLUSH between calls sends no call twice',
    async () => {
      const calls = async (command: 'eval' | 'evalsha'): Promise<number> => {
        const stats = await raw.info('commandstats');
        return Number(new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(stats)?.[1] ?? 0);
      };
      for (const library of LIBRARY_NAMES) {
        const store = redisStore(connection(library).client, { prefix: uniquePrefix('sha') });
        await store.ready();
        const [evals, evalshas] = [await calls('eval'), await calls('evalsha')];
        expect(await store.compareAndSet('k', undefined, 'a', 10_000)).toBe(true);
        await raw.script('FLUSH');
        expect(await store.compareAndSet('k', 'a', 'b', 10_000)).toBe(true);
        await raw.script('FLUSH');
        expect(await store.delete('k', 'b')).toBe(true);
        expect(await calls('eval')).toBe(evals + 3);
        expect(await calls('evalsha')).toBe(evalshas);
      }
    },
  );

  it('rejects with the library error when Redis refuses a command, and the error never holds the key', async () => {
    const seller = { baseUrl: 'https://x.test/', sellerId: `seller-${randomUUID()}` };
    const key = storeKey(seller, 'order', 'ORD-1');
    const prefix = uniquePrefix('wrongtype');
    await raw.hset(prefix + key, 'field', 'value');
    await raw.pexpire(prefix + key, 10_000);
    for (const library of LIBRARY_NAMES) {
      const store = redisStore(connection(library).client, { prefix });
      for (const call of [
        () => store.get(key),
        () => store.compareAndSet(key, 'a', 'b', 1000),
        () => store.delete(key, 'a'),
      ]) {
        const error = await call().catch((caught: unknown) => caught);
        expect(error, library).toBeInstanceOf(Error);
        expect((error as Error).message).toMatch(/WRONGTYPE/);
        expect(inspect(error, { depth: 10 })).not.toContain(seller);
        const wrapped = await withStoreDeadline(store, 1000)
          .get(key)
          .catch((caught: unknown) => caught);
        expect(wrapped).toBeInstanceOf(StoreUnavailableError);
        expect(inspect(wrapped, { depth: 10 })).not.toContain(seller);
      }
    }
  });
});

describeWithRedis('redisStore when Redis goes away', () => {
  let server: RedisServer;
  const connections: Connection[] = [];

  beforeAll(async () => {
    if (!ownsRedisServer) return;
    server = await startRedisServer();
    for (const library of LIBRARY_NAMES) connections.push(await LIBRARIES[library](server.url));
  }, 30_000);

  afterAll(async () => {
    await Promise.all(connections.map((open) => open.close()));
    if (ownsRedisServer) await server?.stop();
  });

  it.skipIf(!ownsRedisServer)(
    'rejects every store call with StoreUnavailableError within the 300 ms deadline while Redis is down, then works on a new empty Redis',
    async () => {
      const prefix = uniquePrefix('outage');
      const stores = connections.map((open) => ({
        library: open.library,
        store: redisStore(open.client, { prefix }),
      }));
      for (const { library, store } of stores)
        expect(await store.setIfAbsent(`before-${library}`, 'v', 60_000)).toBe(true);

      await server.stop();
      for (const { library, store } of stores) {
        const guarded: DeliveryStore = withStoreDeadline(store, 300);
        const outcomes = await Promise.all([
          timed(guarded.setIfAbsent(`during-${library}`, 'v', 60_000)),
          timed(guarded.get(`before-${library}`)),
          timed(guarded.compareAndSet(`during-cas-${library}`, undefined, 'v', 60_000)),
          timed(guarded.delete(`before-${library}`, 'v')),
          timed(guarded.delete(`before-${library}`)),
        ]);
        for (const { error, elapsedMs } of outcomes) {
          expect(error, library).toBeInstanceOf(StoreUnavailableError);
          expect(elapsedMs, library).toBeLessThan(300 + 200);
        }
      }

      await server.restart();
      for (const { library, store } of stores) {
        await expect
          .poll(() => store.get(`before-${library}`).catch(() => 'unreachable'), { timeout: 5000 })
          .toBe(undefined);
        expect(await store.setIfAbsent(`after-${library}`, 'v', 60_000), library).toBe(true);
        expect(await store.get(`after-${library}`), library).toBe('v');
      }
    },
  );
});
