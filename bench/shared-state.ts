/**
 * What a shared store adds to a create and to a webhook (`npm run bench:shared`, part of `npm run bench`;
 * docs/performance.md "Creates through a shared store").
 *
 * 1. Creates: sequential `tasks.create` calls (a new order each, one POST) against the mock served over
 *    HTTP on 127.0.0.1, through the client's default store (in-process memory, not shared), through an
 *    explicit `memoryStore()`, through `redisStore` (ioredis 5, loopback redis-server) and through
 *    `postgresStore` (pg, loopback PostgreSQL with `fsync` and `synchronous_commit` on), each shared store
 *    warm (its records began an hour ago) and fresh (its records began less than 2 minutes ago, so each
 *    create looks its order up once first). Variants interleave in rounds (rotated order). Prints, beside
 *    the goals (at most 2 ms added median, at most 3 store calls): the median per create, the median added
 *    over the default store, the store calls per create (counted around the store), the commands or
 *    statements per create (counted around the Redis or pg client: one round trip each) and the list
 *    requests per create.
 * 2. Webhooks: POSTed to a node:http receiver and processed (`onEvent` done), without a store and with
 *    `redisStore` (the task's lease, its record read and written).
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import IORedis from 'ioredis';
import pg from 'pg';
import { storeKey } from '../src/core/store.js';
import { type ClientOptions, DeliveryClient, type DeliveryStore, memoryStore } from '../src/index.js';
import { postgresStore } from '../src/postgres.js';
import { redisStore } from '../src/redis.js';
import { createMockDeliveryService, type MockDeliveryService, startMockHttpServer } from '../src/testing.js';
import { createWebhookHandler } from '../src/webhooks.js';
import { countedStore, tally } from '../test/support/counting-store.js';
import { orderParams } from '../test/support/order-params.js';
import { startPostgresServer } from '../test/support/postgres-server.js';
import { startRedisServer } from '../test/support/redis-server.js';
import { interleave } from './support/stats.js';

const ROUNDS = 6;
const CREATES_PER_ROUND = 150;
/** Goals of docs/performance.md "Creates through a shared store". */
const GOAL_ADDED_MS = 2;
const GOAL_CALLS = 3;

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** One way of creating: its client, and what it counts. */
interface CreateVariant {
  readonly client: DeliveryClient;
  /** Store calls made through the client's store (absent: the default store, not reachable). */
  readonly store?: { calls: number };
  /** Commands (Redis) or statements (pg) the store's client library sent. */
  readonly wire?: { calls: number };
  /** Runs before each round: makes the store fresh (its epoch key deleted) or warm. */
  readonly prepare?: () => Promise<void>;
  /** Times one lookup of an order (`findByOrderNumber`: one list request) after each untimed create instead. */
  readonly lookupOnly?: boolean;
}

interface RoundFigures {
  medianMs: number;
  storeCalls: number;
  wireCalls: number;
  listRequests: number;
}

let orders = 0;
/** One round of CREATES_PER_ROUND creates through `variant`: the median and the counts per create. */
async function createRound(variant: CreateVariant, mock: MockDeliveryService): Promise<RoundFigures> {
  mock.reset();
  await variant.prepare?.();
  // The first create of a fresh store writes its epoch: counted apart from the figures.
  await variant.client.tasks.create(orderParams(`BENCH-${++orders}`));
  const [storeBefore, wireBefore, listBefore] = [
    variant.store?.calls ?? 0,
    variant.wire?.calls ?? 0,
    mock.requestsFor('tasks.list').length,
  ];
  const samples: number[] = [];
  for (let index = 0; index < CREATES_PER_ROUND; index++) {
    const orderNumber = `BENCH-${++orders}`;
    if (variant.lookupOnly === true) await variant.client.tasks.create(orderParams(orderNumber));
    const started = performance.now();
    if (variant.lookupOnly === true) await variant.client.tasks.findByOrderNumber(`${orderNumber}-absent`);
    else await variant.client.tasks.create(orderParams(orderNumber));
    samples.push(performance.now() - started);
  }
  return {
    medianMs: median(samples),
    storeCalls: ((variant.store?.calls ?? 0) - storeBefore) / CREATES_PER_ROUND,
    wireCalls: ((variant.wire?.calls ?? 0) - wireBefore) / CREATES_PER_ROUND,
    listRequests: (mock.requestsFor('tasks.list').length - listBefore) / CREATES_PER_ROUND,
  };
}

/** Sets the store's epoch an hour back (warm) or deletes it (fresh: the next create writes it). */
function epochSetter(store: DeliveryStore, key: string, fresh: boolean): () => Promise<void> {
  return async () => {
    await store.delete(key);
    if (!fresh) await store.setIfAbsent(key, String(Date.now() - 3_600_000), 7_200_000);
  };
}

/** The create variants: the default store, `memoryStore()`, and each shared store warm and fresh. */
function createVariants(
  base: ClientOptions,
  epochKey: string,
  io: IORedis,
  pool: pg.Pool,
): Record<string, CreateVariant> {
  const redisWire = { calls: 0 };
  const countedIo = {
    call: (command: string, ...args: string[]) => tally(redisWire, () => io.call(command, ...args)),
  };
  const pgWire = { calls: 0 };
  const countedPool = {
    totalCount: 0,
    query: (text: string, values?: unknown[]) => tally(pgWire, () => pool.query(text, values)),
  };
  const explicit = { calls: 0 };
  const memory = memoryStore();
  const variants: Record<string, CreateVariant> = {
    default: { client: new DeliveryClient(base) },
    'one list request': { client: new DeliveryClient(base), lookupOnly: true },
    'memoryStore()': {
      client: new DeliveryClient({ ...base, store: countedStore(memory, explicit) }),
      store: explicit,
      prepare: epochSetter(memory, epochKey, false),
    },
  };
  for (const fresh of [false, true]) {
    const age = fresh ? 'fresh' : 'warm';
    const redisCalls = { calls: 0 };
    const redis = redisStore(countedIo, { prefix: `bench-${process.pid}-${age}:` });
    variants[`redisStore ${age}`] = {
      client: new DeliveryClient({ ...base, store: countedStore(redis, redisCalls) }),
      store: redisCalls,
      wire: redisWire,
      prepare: epochSetter(redis, epochKey, fresh),
    };
    const postgresCalls = { calls: 0 };
    const postgres = postgresStore(countedPool, { table: `bench_creates_${process.pid}_${age}` });
    variants[`postgresStore ${age}`] = {
      client: new DeliveryClient({ ...base, store: countedStore(postgres, postgresCalls) }),
      store: postgresCalls,
      wire: pgWire,
      prepare: epochSetter(postgres, epochKey, fresh),
    };
  }
  return variants;
}

async function createFigures(
  mock: MockDeliveryService,
  baseUrl: string,
  io: IORedis,
  pool: pg.Pool,
): Promise<void> {
  const base = { apiKey: mock.apiKey, sellerId: mock.sellerId, baseUrl, logLevel: 'off' as const };
  const epochKey = storeKey({ baseUrl: new DeliveryClient(base).baseUrl, sellerId: mock.sellerId }, 'epoch');
  const variants = createVariants(base, epochKey, io, pool);
  const names = Object.keys(variants);
  const loadBefore = os.loadavg()[0] ?? Number.NaN;
  const results = await interleave(
    ROUNDS,
    Object.fromEntries(names.map((name) => [name, () => createRound(variants[name] as CreateVariant, mock)])),
  );
  const medianOf = (name: string, pick: (figures: RoundFigures) => number) =>
    median((results[name] ?? []).slice(1).map(pick));
  const msOf = (name: string) => medianOf(name, (figures) => figures.medianMs);
  const baseline = msOf('default');
  const listMs = msOf('one list request');
  const signed = (ms: number) => `${ms >= 0 ? '+' : '−'}${Math.abs(ms).toFixed(2)}`;
  console.log(
    `shared store: ${CREATES_PER_ROUND} new orders per round, ${ROUNDS - 1} rounds after a warm-up round, over HTTP on 127.0.0.1 (${os.cpus().length} cores, load ${loadBefore.toFixed(2)} → ${os.loadavg()[0]?.toFixed(2)})`,
  );
  console.log(
    `  ${'store'.padEnd(22)} ${'ms/create'.padStart(9)} ${`added (≤ ${GOAL_ADDED_MS} ms¹)`.padStart(16)} ${`store calls (≤ ${GOAL_CALLS})`.padStart(17)} ${'round trips'.padStart(11)} ${'list requests'.padStart(13)}`,
  );
  for (const name of names) {
    if (name === 'one list request') continue;
    const variant = variants[name] as CreateVariant;
    const added = msOf(name) - baseline;
    const calls = medianOf(name, (figures) => figures.storeCalls);
    // A fresh store's create looks its order up first: its goal is one list request more.
    const goal = GOAL_ADDED_MS + (name.endsWith('fresh') ? listMs : 0);
    const addedText = name === 'default' ? '—' : `${signed(added)} ${added <= goal ? 'ok' : 'OVER'}`;
    const callsText =
      variant.store === undefined
        ? '2 (tested)'
        : `${calls.toFixed(2)} ${calls <= GOAL_CALLS ? 'ok' : 'OVER'}`;
    const wire = variant.wire === undefined ? '0' : medianOf(name, (figures) => figures.wireCalls).toFixed(2);
    const lists = medianOf(name, (figures) => figures.listRequests).toFixed(2);
    console.log(
      `  ${name.padEnd(22)} ${msOf(name).toFixed(2).padStart(9)} ${addedText.padStart(16)} ${callsText.padStart(17)} ${wire.padStart(11)} ${lists.padStart(13)}`,
    );
  }
  console.log(`  fresh over warm (goal: at most one list request's time, ${listMs.toFixed(2)} ms here):`);
  for (const store of ['redisStore', 'postgresStore']) {
    const extra = msOf(`${store} fresh`) - msOf(`${store} warm`);
    console.log(`    ${store.padEnd(20)} ${signed(extra)} ms ${extra <= listMs ? 'ok' : 'OVER'}`);
  }
  console.log(
    `  ¹ fresh: ≤ ${GOAL_ADDED_MS} ms + one list request. The first create of each round, which writes a fresh store's epoch, is not counted.`,
  );
}

/** Median time of one webhook, POSTed and processed, with or without a store, ms. */
let runs = 0;
async function webhookMedian(store: DeliveryStore | undefined): Promise<number> {
  const run = ++runs;
  let settle: () => void = () => {};
  const handler = createWebhookHandler({
    ...(store === undefined ? {} : { store }),
    onEvent: () => settle(),
    logLevel: 'off',
  });
  const server = createServer((request, response) => handler.node(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const samples: number[] = [];
  for (let index = 0; index < 1200; index++) {
    const processed = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const started = performance.now();
    const body = JSON.stringify({
      _id: `bench-${process.pid}-${run}-${index}`,
      status: 'accepted',
      orderNumber: `B-${index}`,
    });
    await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    await processed;
    if (index >= 200) samples.push(performance.now() - started);
  }
  server.closeAllConnections();
  server.close();
  return median(samples);
}

async function main(): Promise<void> {
  const [redis, postgres] = await Promise.all([startRedisServer(), startPostgresServer({ durable: true })]);
  const mock = createMockDeliveryService({ account: { type: 'invoice' } });
  const http = await startMockHttpServer(mock);
  const io = new IORedis(redis.url);
  const pool = new pg.Pool({ connectionString: postgres.url, max: 10 });
  try {
    const { rows } = await pool.query(
      "SELECT current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS sync",
    );
    console.log(
      `PostgreSQL fsync ${(rows[0] as { fsync: string }).fsync}, synchronous_commit ${(rows[0] as { sync: string }).sync}`,
    );
    await createFigures(mock, http.url, io, pool);
    // Warm both paths once, then measure.
    const webhookStore = redisStore(io, { prefix: `bench-webhooks-${process.pid}:` });
    await webhookMedian(undefined);
    await webhookMedian(webhookStore);
    const inProcess = await webhookMedian(undefined);
    const overRedis = await webhookMedian(webhookStore);
    console.log('shared state: 1 000 webhooks each, POSTed and processed one at a time (median per webhook)');
    console.log(`  in-process memory     ${(inProcess * 1000).toFixed(0).padStart(6)} µs`);
    console.log(
      `  redisStore (ioredis)  ${(overRedis * 1000).toFixed(0).padStart(6)} µs   (${overRedis >= inProcess ? '+' : '−'}${(Math.abs(overRedis - inProcess) * 1000).toFixed(0)} µs per webhook)`,
    );
  } finally {
    io.disconnect();
    await pool.end();
    await http.close();
    mock.close();
    await Promise.all([redis.stop().catch(() => {}), postgres.stop()]);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
