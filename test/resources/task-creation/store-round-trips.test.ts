/**
 * What a create costs its store (README "Running several instances"; docs/performance.md "Creates
 * through a shared store"): a new order is taken, and its outcome written, in at most 3 store calls
 * through a shared store (the claim, the store's epoch beside it, the outcome) and 2 through the client's
 * own memory store; each call is one statement (PostgreSQL), and the claim and the epoch one round trip
 * between them on a single Redis (a SET NX and a GET sent together). A create through a
 * fresh shared store looks its order up with one list request, and with none once the store is warm.
 */
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { storeKey } from '../../../src/core/store.js';
import { type DeliveryStore, memoryStore } from '../../../src/index.js';
import { postgresStore } from '../../../src/postgres.js';
import { redisStore } from '../../../src/redis.js';
import { type CallCount, countedStore } from '../../support/counting-store.js';
import { orderParams, useMockService } from '../../support/mock-service.js';
import { describeWithPostgres, usePostgresServer } from '../../support/postgres-server.js';
import { describeWithRedis, useRedisClient } from '../../support/redis-server.js';

/** Store calls made through every `memoryStore()`, the client's default one included. */
const memoryCalls = vi.hoisted(() => ({ calls: 0 }));
vi.mock('../../../src/core/store.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/core/store.js')>();
  const { countedStore } = await import('../../support/counting-store.js');
  return {
    ...original,
    memoryStore: (...args: Parameters<typeof original.memoryStore>): DeliveryStore =>
      countedStore(original.memoryStore(...args), memoryCalls),
  };
});

const { mock, client } = useMockService({ account: { type: 'wallet', balance: 100_000 } });
const scope = { baseUrl: mock.baseUrl, sellerId: mock.sellerId };
const epochKey = storeKey(scope, 'epoch');
const HOUR_MS = 3_600_000;

/** Calls `counter` counted while `orders` new orders were created one after another through `create`. */
async function callsPerCreate(
  counter: CallCount,
  orders: readonly string[],
  create: (orderNumber: string) => Promise<unknown>,
): Promise<number[]> {
  const counts: number[] = [];
  for (const orderNumber of orders) {
    const before = counter.calls;
    await create(orderNumber);
    counts.push(counter.calls - before);
  }
  return counts;
}

const ordersOf = (label: string, count = 5) =>
  Array.from({ length: count }, (_, index) => `${label}-${index}`);

describe('store calls per create of a new order', () => {
  it("takes 2 with the client's own memory store: the claim, the outcome", async () => {
    // Store calls are the subject: no lookup before sending (one that takes over 1 s adds a write of the
    // record's `until`, so the count would follow the machine's load).
    const sdk = client({ lookupFirst: false });
    await sdk.tasks.create(orderParams('CALLS-WARMUP'));
    expect(
      await callsPerCreate(memoryCalls, ordersOf('CALLS-DEFAULT'), (order) =>
        sdk.tasks.create(orderParams(order)),
      ),
    ).toEqual([2, 2, 2, 2, 2]);
    expect(mock.requestsFor('tasks.create')).toHaveLength(6);
  });

  it('takes 3 through a shared store: the claim and the epoch side by side, the outcome', async () => {
    const calls = { calls: 0 };
    const inner = memoryStore();
    await inner.setIfAbsent(epochKey, String(Date.now() - HOUR_MS), 2 * HOUR_MS);
    const sdk = client({ store: countedStore(inner, calls) });
    expect(
      await callsPerCreate(calls, ordersOf('CALLS-SHARED'), (order) => sdk.tasks.create(orderParams(order))),
    ).toEqual([3, 3, 3, 3, 3]);
    expect(mock.requestsFor('tasks.create')).toHaveLength(5);
    expect(mock.requestsFor('tasks.list')).toHaveLength(0);
  });

  it('takes 3 through a fresh shared store too, and looks each order up with one list request', async () => {
    const calls = { calls: 0 };
    const sdk = client({ store: countedStore(memoryStore(), calls) });
    // The first create on an empty store writes its epoch: one call more.
    expect(
      await callsPerCreate(calls, ['CALLS-FIRST'], (order) => sdk.tasks.create(orderParams(order))),
    ).toEqual([4]);
    const lists = mock.requestsFor('tasks.list').length;
    expect(
      await callsPerCreate(calls, ordersOf('CALLS-FRESH'), (order) => sdk.tasks.create(orderParams(order))),
    ).toEqual([3, 3, 3, 3, 3]);
    expect(mock.requestsFor('tasks.list').length - lists).toBe(5);
    expect(mock.requestsFor('tasks.create')).toHaveLength(6);
    // Each lookup comes before its POST.
    const operations = mock.requests.map((request) => request.operation).slice(-10);
    expect(operations).toEqual(Array.from({ length: 5 }, () => ['tasks.list', 'tasks.create']).flat());
  });

  it('keeps one key per order in the store: no lease or fence key beside the record', async () => {
    const written = new Set<string>();
    const inner = memoryStore();
    const store: DeliveryStore = {
      ...inner,
      setIfAbsent: (key, value, ttlMs) => {
        written.add(key);
        return inner.setIfAbsent(key, value, ttlMs);
      },
      compareAndSet: (key, expected, value, ttlMs) => {
        written.add(key);
        return inner.compareAndSet(key, expected, value, ttlMs);
      },
    };
    await client({ store }).tasks.create(orderParams('ONE-KEY'));
    expect([...written].sort()).toEqual([epochKey, storeKey(scope, 'order', 'ONE-KEY')].sort());
    expect(JSON.parse((await inner.get(storeKey(scope, 'order', 'ONE-KEY'))) ?? '{}')).toMatchObject({
      state: 'created',
    });
  });
});

describeWithRedis('Redis commands per create', () => {
  const redis = useRedisClient();

  it('sends 3 commands in 2 round trips per new order (the claim and the epoch side by side), after the eviction policy is read once', async () => {
    const commands: string[] = [];
    const roundTrips = { count: 0 };
    const prefix = `dts-test:calls:${process.pid}:`;
    const io = redis.io();
    const counting = redis.counting(commands, roundTrips);
    const store = redisStore(counting, { prefix });
    const calls = { calls: 0 };
    await io.call('SET', `${prefix}${epochKey}`, String(Date.now() - HOUR_MS), 'PX', String(2 * HOUR_MS));
    const sdk = client({ store: countedStore(store, calls) });
    await sdk.tasks.create(orderParams('REDIS-WARMUP'));
    expect(commands.filter((command) => command === 'CONFIG')).toHaveLength(1);
    const sent = commands.length;
    const trips = roundTrips.count;
    const counts = await callsPerCreate(calls, ordersOf('REDIS-CALLS'), (order) =>
      sdk.tasks.create(orderParams(order)),
    );
    expect(counts).toEqual([3, 3, 3, 3, 3]);
    // The claim (SET NX) and the epoch (GET) together, then the outcome (a compare-and-set script).
    expect(commands.slice(sent)).toEqual(Array.from({ length: 5 }, () => ['GET', 'SET', 'EVAL']).flat());
    expect(roundTrips.count - trips).toBe(10);
  });
});

describeWithPostgres('PostgreSQL statements per create', () => {
  const postgres = usePostgresServer(4);

  it('sends 3 statements per new order, one per store call, each its own transaction', async () => {
    const statements: string[] = [];
    const counting = {
      totalCount: 0,
      query: (text: string | { text: string }, values?: unknown[]) => {
        statements.push(typeof text === 'string' ? text : text.text);
        return postgres.pool().query(text as string, values);
      },
    };
    const store = postgresStore(counting, { table: 'dts_calls' });
    const calls = { calls: 0 };
    await store.setIfAbsent(epochKey, String(Date.now() - HOUR_MS), 2 * HOUR_MS);
    const sdk = client({ store: countedStore(store, calls) });
    await sdk.tasks.create(orderParams('PG-WARMUP'));
    const sent = statements.length;
    const counts = await callsPerCreate(calls, ordersOf('PG-CALLS'), (order) =>
      sdk.tasks.create(orderParams(order)),
    );
    expect(counts).toEqual([3, 3, 3, 3, 3]);
    const ours = statements.slice(sent);
    expect(ours).toHaveLength(15);
    expect(ours.filter((text) => /\b(BEGIN|COMMIT|CREATE)\b/i.test(text))).toEqual([]);
    // Every write waits for the disk: no statement turns synchronous_commit off, the outcome's included.
    expect(ours.filter((text) => text.includes('synchronous_commit'))).toEqual([]);
  });

  it("keeps the connection's own synchronous_commit", async () => {
    const connection = new pg.Client({ connectionString: postgres.server().url });
    await connection.connect();
    try {
      await connection.query('SET synchronous_commit = on');
      const store = postgresStore(connection, { table: 'dts_lazy' });
      expect(await store.setIfAbsent('k', 'a', 10_000)).toBe(true);
      expect(await store.compareAndSet('k', 'a', 'b', 10_000)).toBe(true);
      expect(await store.compareAndSet('k', 'a', 'c', 10_000)).toBe(false);
      expect(await store.get('k')).toBe('b');
      const { rows } = await connection.query('SHOW synchronous_commit');
      expect(rows).toEqual([{ synchronous_commit: 'on' }]);
    } finally {
      await connection.end();
    }
  });
});
