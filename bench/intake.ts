/**
 * The durable intake's costs (`npm run bench:intake`, part of `npm run bench`): README "Running several
 * instances", docs/several-instances.md § "Durable intake" and § "Postgres store".
 *
 * 1. The latency a webhook's answer gains from the inbox write: webhooks POSTed one at a time to a
 *    node:http receiver on 127.0.0.1, answered without an inbox (the in-process queue), with
 *    `redisInbox` (ioredis 5, loopback redis-server) and with `postgresInbox` (pg, loopback PostgreSQL,
 *    fsync and synchronous_commit on);
 *    p50 and p99 of the time to the answer, and the p50 added.
 * 2. Events per second the workers drain: 5 000 webhooks (1 000 tasks × 4 statuses in lifecycle order, plus
 *    a repeat of each task's second status) written to each inbox round by round, then 1 and 4 worker
 *    processes (bench/support/drain-worker.ts: concurrency 8 each, a no-op `onEvent`, with the backend's
 *    store and without a store) process them all: from the start line to an inbox with nothing pending.
 *    Each figure is printed beside its goal, with the calls (Redis commands, SQL statements) per webhook
 *    and the machine's load. `npm run bench:intake -- drain` runs this part only; `DRAIN_ONLY=redis:store,postgres:none`
 *    keeps those variants, `DRAIN_CONCURRENCY=32` sets the workers' `concurrency`, `DRAIN_PROFILE=<dir>` writes
 *    each worker's CPU profile there.
 *
 * A create's cost through each store is `npm run bench:shared` (bench/shared-state.ts).
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import IORedis from 'ioredis';
import pg from 'pg';
import { postgresInbox } from '../src/postgres.js';
import { redisInbox } from '../src/redis.js';
import { createWebhookHandler, type WebhookInbox } from '../src/webhooks/index.js';
import { startPostgresServer } from '../test/support/postgres-server.js';
import { startRedisServer } from '../test/support/redis-server.js';
import type { DrainWorkerConfig } from './support/drain-worker.js';
import { type ReadyWorker, startReadyWorker } from './support/ready-worker.js';

const WEBHOOKS = 2000;
const WARMUP = 300;

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
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`answered ${response.status}`);
    if (index >= WARMUP) samples.push(performance.now() - started);
  }
  server.closeAllConnections();
  server.close();
  await handler.idle();
  return samples;
}

/** Statuses of each task, in lifecycle order; the second one is sent twice (a repeat). */
const DRAIN_STATUSES = ['accepted', 'pickedup', 'enroute', 'delivered'] as const;
const DRAIN_TASKS = 1000;
const DRAIN_EVENTS = DRAIN_TASKS * (DRAIN_STATUSES.length + 1);

/** One drain worker process (bench/support/drain-worker.ts), connected and waiting for the start line. */
function startDrainWorker(config: DrainWorkerConfig): Promise<ReadyWorker> {
  return startReadyWorker('bench/support/drain-worker.ts', config);
}

/**
 * Events per second `workers` processes drain from an inbox holding DRAIN_EVENTS events (DRAIN_TASKS tasks ×
 * 4 statuses, plus a repeat of each task's second status): from the start line to an inbox with nothing
 * pending, polled every 5 ms.
 */
async function drainRate(config: DrainWorkerConfig, inbox: WebhookInbox, workers: number) {
  const { name } = config;
  const rounds: { taskId: string; status: string }[][] = [];
  for (const [round, status] of [
    ...DRAIN_STATUSES.slice(0, 2),
    DRAIN_STATUSES[1],
    ...DRAIN_STATUSES.slice(2),
  ].entries()) {
    rounds[round] = Array.from({ length: DRAIN_TASKS }, (_, index) => ({
      taskId: `drain-${name}-${index}`,
      status,
    }));
  }
  // Round by round, so each task's events are written in order (a round holds one event per task).
  for (const round of rounds) {
    for (let from = 0; from < round.length; from += 50) {
      await Promise.all(
        round.slice(from, from + 50).map(({ taskId, status }) =>
          inbox.append({
            taskId,
            kind: status,
            body: JSON.stringify({ _id: taskId, status }),
            receivedAt: Date.now(),
          }),
        ),
      );
    }
  }
  const started = await Promise.all(Array.from({ length: workers }, () => startDrainWorker(config)));
  const startedAt = performance.now();
  for (const worker of started) worker.child.stdin?.write('go\n');
  while ((await inbox.inspect({ limit: 0 })).pending > 0)
    await new Promise((resolve) => setTimeout(resolve, 5));
  const seconds = (performance.now() - startedAt) / 1000;
  for (const worker of started) worker.child.stdin?.write('stop\n');
  const stats = await Promise.all(started.map((worker) => worker.stats));
  const totals = { processed: 0, duplicates: 0, outOfOrder: 0, failed: 0, calls: 0 };
  for (const line of stats) {
    const counts = JSON.parse(line) as typeof totals;
    for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += counts[key];
  }
  return { rate: DRAIN_EVENTS / seconds, totals };
}

/** The machine's load averages over 1, 5 and 15 minutes. */
const loadAverage = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
const thousands = (value: number) => Math.round(value).toLocaleString('en-US');

async function main(): Promise<void> {
  const [redis, postgres] = await Promise.all([startRedisServer(), startPostgresServer({ durable: true })]);
  const io = new IORedis(redis.url);
  const pool = new pg.Pool({ connectionString: postgres.url, max: 10 });
  try {
    const inboxes = {
      // The bench's Redis keeps nothing on disk (volatile: true): the figures leave persistence out.
      'redisInbox (ioredis)': () =>
        redisInbox(io, { stream: `bench-${process.pid}-${++run}`, volatile: true }),
      'postgresInbox (pg)': () => postgresInbox(pool, { table: `bench_inbox_${process.pid}_${++run}` }),
    };
    // `npm run bench:intake -- drain`: part 2 only.
    const drainOnly = process.argv.includes('drain');
    if (!drainOnly) {
      await answerTimes(undefined); // warm-up of the process
      const baseline = await answerTimes(undefined);
      const base50 = percentile(baseline, 50);
      console.log(
        `intake: ${WEBHOOKS} webhooks POSTed one at a time over HTTP on 127.0.0.1, time to the answer`,
      );
      console.log(`  no inbox (in-process queue)  p50 ${µs(base50)}   p99 ${µs(percentile(baseline, 99))}`);
      for (const [name, make] of Object.entries(inboxes)) {
        const times = await answerTimes(make());
        const p50 = percentile(times, 50);
        console.log(
          `  ${name.padEnd(27)}  p50 ${µs(p50)}   p99 ${µs(percentile(times, 99))}   (+${((p50 - base50) * 1000).toFixed(0)} µs p50 added)`,
        );
      }
    }
    console.log(
      `intake: ${thousands(DRAIN_EVENTS)} webhooks (${DRAIN_TASKS} tasks × ${DRAIN_STATUSES.length} statuses + ${DRAIN_TASKS} repeats) drained by worker processes (concurrency 8 each, no-op onEvent; PostgreSQL with fsync on); load ${loadAverage()}`,
    );
    const goals = { redis: 6000, postgres: 2000 } as const;
    for (const store of [true, false]) {
      console.log(
        store ? "  with the backend's store (duplicates and order across processes):" : '  without a store:',
      );
      for (const backend of ['redis', 'postgres'] as const) {
        const label = backend === 'redis' ? 'redisInbox' : 'postgresInbox';
        let one = 0;
        if (
          process.env.DRAIN_ONLY !== undefined &&
          !process.env.DRAIN_ONLY.split(',').includes(`${backend}:${store ? 'store' : 'none'}`)
        )
          continue;
        for (const workers of [1, 4]) {
          const name = `bench_drain_${process.pid}_${++run}`;
          const inbox =
            backend === 'redis'
              ? redisInbox(io, { stream: `${name}:events`, volatile: true })
              : postgresInbox(pool, { table: `${name}_inbox` });
          const url = backend === 'redis' ? redis.url : postgres.url;
          const { rate, totals } = await drainRate({ backend, url, name, store }, inbox, workers);
          if (workers === 1) one = rate;
          const goal =
            workers === 1 ? `goal ≥ ${thousands(goals[backend])}` : `goal ≥ 1 worker's ${thousands(one)}`;
          console.log(
            `    ${`${label} ${workers} worker${workers === 1 ? '' : 's'}:`.padEnd(25)} ${thousands(rate).padStart(6)} events/s (${goal})   processed ${totals.processed}, duplicates ${totals.duplicates}, out of order ${totals.outOfOrder}, failed ${totals.failed}; ${(totals.calls / DRAIN_EVENTS).toFixed(2)} calls per webhook; load ${loadAverage()}`,
          );
        }
      }
    }
  } finally {
    io.disconnect();
    await pool.end();
    await redis.stop().catch(() => {});
    await postgres.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
