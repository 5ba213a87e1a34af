/**
 * The durable intake's costs (`npm run bench:intake`, part of `npm run bench`): README "Running several
 * instances", docs/several-instances.md § "Durable intake" and § "Postgres store".
 *
 * 1. The latency a webhook's answer gains from the inbox write: webhooks POSTed one at a time to a
 *    node:http receiver on 127.0.0.1, answered without an inbox (the in-process queue), with
 *    `redisInbox` (ioredis 5, loopback redis-server) and with `postgresInbox` (pg, loopback PostgreSQL);
 *    p50 and p99 of the time to the answer, and the p50 added.
 * 2. Events per second one worker drains: 5 000 events written to each inbox, then one handler (one
 *    process, concurrency 8, a no-op `onEvent`, the store of the same backend) processes them all.
 * 3. The Postgres store's cost per create: sequential `tasks.create` against the mock over HTTP with the
 *    default memory store and with `postgresStore`, interleaved in rounds (median per create).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import IORedis from 'ioredis';
import pg from 'pg';
import { storeKey } from '../src/core/store.js';
import { DeliveryClient, memoryStore } from '../src/index.js';
import { postgresInbox, postgresStore } from '../src/postgres.js';
import { redisInbox, redisStore } from '../src/redis.js';
import { createMockDeliveryService, startMockHttpServer } from '../src/testing/index.js';
import { createWebhookHandler, type WebhookInbox } from '../src/webhooks/index.js';
import { orderParams } from '../test/support/order-params.js';
import { startPostgresServer } from '../test/support/postgres-server.js';
import { startRedisServer } from '../test/support/redis-server.js';
import { median } from './support/stats.js';

const WEBHOOKS = 2000;
const WARMUP = 300;
const DRAIN_EVENTS = 5000;
const ROUNDS = 4;
const CREATES_PER_ROUND = 150;

const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
const µs = (ms: number) => `${(ms * 1000).toFixed(0).padStart(6)} µs`;

let run = 0;
/** Times to the answer of WEBHOOKS webhooks POSTed one at a time, ms (after a warm-up). */
async function answerTimes(inbox: WebhookInbox | undefined): Promise<number[]> {
  const handler = createWebhookHandler({
    ...(inbox === undefined ? {} : { inbox, inboxWorkers: false }),
    onEvent: () => {},
    logLevel: 'off',
  });
  const server = createServer((request, response) => void handler.node(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const samples: number[] = [];
  const id = ++run;
  for (let index = 0; index < WARMUP + WEBHOOKS; index++) {
    const body = JSON.stringify({ _id: `bench-${process.pid}-${id}-${index}`, status: 'accepted' });
    const started = performance.now();
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`answered ${response.status}`);
    if (index >= WARMUP) samples.push(performance.now() - started);
  }
  server.closeAllConnections();
  server.close();
  await handler.idle();
  return samples;
}

/** Events per second one handler drains from `inbox` holding DRAIN_EVENTS events. */
async function drainRate(inbox: WebhookInbox, store: ReturnType<typeof memoryStore>): Promise<number> {
  const id = ++run;
  for (let index = 0; index < DRAIN_EVENTS; index++) {
    const taskId = `drain-${process.pid}-${id}-${index}`;
    await inbox.append({
      taskId,
      kind: 'accepted',
      body: JSON.stringify({ _id: taskId, status: 'accepted' }),
      receivedAt: Date.now(),
    });
  }
  let processed = 0;
  let done: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    done = resolve;
  });
  const started = performance.now();
  const handler = createWebhookHandler({
    inbox,
    store,
    confirm: false,
    inboxPollMs: 5,
    logLevel: 'off',
    onEvent: () => {
      if (++processed === DRAIN_EVENTS) done();
    },
  });
  await finished;
  const seconds = (performance.now() - started) / 1000;
  await handler.close();
  return DRAIN_EVENTS / seconds;
}

async function main(): Promise<void> {
  const [redis, postgres] = await Promise.all([startRedisServer(), startPostgresServer()]);
  const io = new IORedis(redis.url);
  const pool = new pg.Pool({ connectionString: postgres.url, max: 10 });
  const mock = createMockDeliveryService({ account: { type: 'invoice' } });
  const http = await startMockHttpServer(mock);
  try {
    const inboxes = {
      'redisInbox (ioredis)': () => redisInbox(io, { stream: `bench-${process.pid}-${++run}` }),
      'postgresInbox (pg)': () => postgresInbox(pool, { table: `bench_inbox_${process.pid}_${++run}` }),
    };
    await answerTimes(undefined); // warm-up of the process
    const baseline = await answerTimes(undefined);
    const base50 = percentile(baseline, 50);
    console.log(`intake: ${WEBHOOKS} webhooks POSTed one at a time over HTTP on 127.0.0.1, time to the answer`);
    console.log(`  no inbox (in-process queue)  p50 ${µs(base50)}   p99 ${µs(percentile(baseline, 99))}`);
    for (const [name, make] of Object.entries(inboxes)) {
      const times = await answerTimes(make());
      const p50 = percentile(times, 50);
      console.log(
        `  ${name.padEnd(27)}  p50 ${µs(p50)}   p99 ${µs(percentile(times, 99))}   (+${((p50 - base50) * 1000).toFixed(0)} µs p50 added)`,
      );
    }
    console.log(
      `intake: ${DRAIN_EVENTS} events drained by one worker (concurrency 8, no-op onEvent, the backend's store)`,
    );
    const redisRate = await drainRate(
      inboxes['redisInbox (ioredis)'](),
      redisStore(io, { prefix: `bench-drain-${process.pid}:` }),
    );
    console.log(`  redisInbox + redisStore      ${redisRate.toFixed(0).padStart(6)} events/s`);
    const pgRate = await drainRate(
      inboxes['postgresInbox (pg)'](),
      postgresStore(pool, { table: `bench_store_${process.pid}` }),
    );
    console.log(`  postgresInbox + postgresStore ${pgRate.toFixed(0).padStart(5)} events/s`);

    const base = { apiKey: mock.apiKey, sellerId: mock.sellerId, baseUrl: http.url, logLevel: 'off' as const };
    const clients = {
      memory: new DeliveryClient({ ...base, store: memoryStore() }),
      postgres: new DeliveryClient({ ...base, store: postgresStore(pool, { table: `bench_creates_${process.pid}` }) }),
    };
    // Past the fresh-store window, so a create does not look its order up first.
    await postgresStore(pool, { table: `bench_creates_${process.pid}` }).setIfAbsent(
      storeKey({ baseUrl: clients.postgres.baseUrl, sellerId: mock.sellerId }, 'epoch'),
      String(Date.now() - 3_600_000),
      3_600_000,
    );
    const samples: Record<keyof typeof clients, number[]> = { memory: [], postgres: [] };
    let order = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of ['memory', 'postgres'] as const) {
        for (let index = 0; index < CREATES_PER_ROUND; index++) {
          const started = performance.now();
          await clients[name].tasks.create(orderParams(`PGBENCH-${++order}`));
          if (round > 0) samples[name].push(performance.now() - started);
        }
      }
      mock.reset();
    }
    const memory = median(samples.memory);
    const shared = median(samples.postgres);
    console.log(`postgres store: ${samples.memory.length} creates each over HTTP on 127.0.0.1 (median per create)`);
    console.log(`  memory store          ${µs(memory)}`);
    console.log(`  postgresStore (pg)    ${µs(shared)}   (+${((shared - memory) * 1000).toFixed(0)} µs per create)`);
  } finally {
    io.disconnect();
    await pool.end();
    await http.close();
    mock.close();
    await redis.stop().catch(() => {});
    await postgres.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
