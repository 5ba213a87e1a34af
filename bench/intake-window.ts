/**
 * The window of the durable intake's at-least-once (`npm run bench:intake-window`; docs/several-instances.md
 * § "Durable intake", "At least once, with a narrow window"): how long after `onEvent` returns the
 * status is recorded in the store, the time in which a worker killed has its event processed again.
 * 2 000 events drained from each inbox by one handler (concurrency 8) with the store of the same backend;
 * the time from `onEvent` returning to the store answering the compare-and-set of the task's record.
 */
import IORedis from 'ioredis';
import pg from 'pg';
import type { DeliveryStore } from '../src/core/store.js';
import { postgresInbox, postgresStore } from '../src/postgres.js';
import { redisInbox, redisStore } from '../src/redis.js';
import { createWebhookHandler, type WebhookInbox } from '../src/webhooks/index.js';
import { startPostgresServer } from '../test/support/postgres-server.js';
import { startRedisServer } from '../test/support/redis-server.js';

const EVENTS = 2000;

const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
const ms = (value: number) => `${value.toFixed(2).padStart(7)} ms`;

/** Windows of EVENTS events, ms: `onEvent` returned → the record's compare-and-set answered. */
async function windows(inbox: WebhookInbox, store: DeliveryStore): Promise<number[]> {
  const returned = new Map<string, number>();
  const samples: number[] = [];
  /** `result` of the record's write for `key`: a sample when it recorded the status. */
  const sample = (key: string, recorded: boolean) => {
    const task = /:task:\{?([^}]+)\}?$/.exec(key)?.[1];
    const start = task === undefined ? undefined : returned.get(task);
    if (start !== undefined && recorded) {
      samples.push(performance.now() - start);
      returned.delete(task as string);
    }
  };
  const timed: DeliveryStore = {
    ...store,
    setIfAbsent: (...args) => store.setIfAbsent(...args),
    get: (...args) => store.get(...args),
    delete: (...args) => store.delete(...args),
    compareAndSet: async (key, expected, value, ttlMs) => {
      const result = await store.compareAndSet(key, expected, value, ttlMs);
      sample(key, result);
      return result;
    },
  };
  // The store's one-call record and release, where it has it (the handler's path then).
  const releasing = store.compareAndSetReleasing;
  if (releasing !== undefined) {
    timed.compareAndSetReleasing = async (key, ...rest) => {
      const outcome = await releasing.call(store, key, ...rest);
      sample(key, outcome === 'set');
      return outcome;
    };
  }
  const thenGet = store.setIfAbsentThenGet;
  if (thenGet !== undefined) timed.setIfAbsentThenGet = (...args) => thenGet.apply(store, args);
  const run = `${process.pid}-${Date.now()}`;
  for (let index = 0; index < EVENTS; index++) {
    await inbox.append({
      taskId: `window-${run}-${index}`,
      kind: 'accepted',
      body: JSON.stringify({ _id: `window-${run}-${index}`, status: 'accepted' }),
      receivedAt: Date.now(),
    });
  }
  const handler = createWebhookHandler({
    store: timed,
    inbox,
    logLevel: 'off',
    onEvent: (event) => {
      returned.set(event.taskId, performance.now());
    },
  });
  await handler.idle();
  await handler.close();
  return samples;
}

async function main(): Promise<void> {
  const redisServer = await startRedisServer();
  const postgres = await startPostgresServer();
  const redis = new IORedis(redisServer.url);
  const pool = new pg.Pool({ connectionString: postgres.url, max: 8 });
  try {
    console.log(`intake window: ${EVENTS} events, onEvent returned → status recorded in the store`);
    for (const [label, inbox, store] of [
      [
        'redisInbox + redisStore      ',
        redisInbox(redis, { stream: 'window:events', volatile: true }),
        redisStore(redis),
      ],
      ['postgresInbox + postgresStore', postgresInbox(pool), postgresStore(pool)],
    ] as const) {
      const samples = await windows(inbox, store);
      console.log(
        `  ${label}  p50 ${ms(percentile(samples, 50))}   p99 ${ms(percentile(samples, 99))}   max ${ms(Math.max(...samples))}`,
      );
    }
  } finally {
    redis.disconnect();
    await pool.end();
    await redisServer.stop();
    await postgres.stop();
  }
}

await main();
