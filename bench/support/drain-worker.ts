/**
 * One worker process of `bench/intake.ts` part 2 and `bench/peers-drain.ts`: a webhook handler with a
 * durable inbox (and the store of the same backend, or none), a no-op `onEvent`, that starts claiming when
 * its parent writes a line to stdin. The SDK is the build's (`built-sdk.ts`: `npm run build` first).
 *
 * Usage: tsx bench/support/drain-worker.ts '<json DrainWorkerConfig>'; prints `READY` once connected, then
 * once started `handled <n>` every {@link PROGRESS_EVERY_MS} ms (processed, duplicates, out of order and
 * failed), and its counts as a JSON line at the second line on stdin.
 */
import { appendFileSync } from 'node:fs';
import IORedis from 'ioredis';
import pg from 'pg';
import type { DeliveryStore } from '../../src/core/store.js';
import type { WebhookInbox } from '../../src/webhooks.node.js';
import { builtSdk } from './built-sdk.js';
import { PROGRESS_EVERY_MS } from './ready-worker.js';

/** What the parent asks of a worker. */
export interface DrainWorkerConfig {
  backend: 'redis' | 'postgres';
  /** Redis or PostgreSQL URL. */
  url: string;
  /** Stream, table and key names of this run. */
  name: string;
  /** Give the handler the backend's store (else none: each process's memory filters duplicates). */
  store: boolean;
  /** The build's folder in the repository (`builtSdk`); default `dist`. */
  build?: string;
}

const config = JSON.parse(process.argv[2] ?? '{}') as DrainWorkerConfig;
// The package's build, its webhooks entry as Node loads it (the `node` condition: zod's schema compiler
// installed).
const {
  postgres: { postgresInbox, postgresStore },
  redis: { redisInbox, redisStore },
  webhooks: { createWebhookHandler },
} = await builtSdk(config.build);
let store: DeliveryStore;
let inbox: WebhookInbox;
let end: () => Promise<void>;
/** Commands (Redis) or statements (PostgreSQL) sent once started, by the store and the inbox together. */
let calls = 0;
let counting = false;
/** With DRAIN_KINDS_FILE: statements by their first 60 characters, appended to that file as JSON at the end. */
const kinds = process.env.DRAIN_KINDS_FILE ? new Map<string, number>() : undefined;
if (config.backend === 'redis') {
  const redis = new IORedis(config.url);
  // Every command, sent alone or in a pipeline, goes through `sendCommand`.
  const sendCommand = redis.sendCommand.bind(redis) as (...args: unknown[]) => unknown;
  (redis as unknown as { sendCommand: typeof sendCommand }).sendCommand = (...args) => {
    if (counting) calls++;
    return sendCommand(...args);
  };
  store = redisStore(redis, { prefix: `${config.name}:` });
  inbox = redisInbox(redis, { stream: `${config.name}:events`, volatile: true });
  end = async () => void redis.disconnect();
} else {
  const pool = new pg.Pool({ connectionString: config.url, max: 10 });
  const query = pool.query.bind(pool) as (text: unknown, values?: unknown[]) => Promise<unknown>;
  (pool as unknown as { query: typeof query }).query = (text, values) => {
    if (counting) {
      calls++;
      if (kinds !== undefined) {
        const sql = typeof text === 'string' ? text : (text as { text: string }).text;
        const kind = sql.replace(/\s+/g, ' ').slice(0, 60);
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      }
    }
    return query(text, values);
  };
  store = postgresStore(pool, { table: `${config.name}_store` });
  inbox = postgresInbox(pool, { table: `${config.name}_inbox` });
  end = () => pool.end();
}
// Connected and the tables there before the parent starts the clock.
await inbox.inspect({ limit: 0 });
await store.get('warm-up');
process.stdout.write('READY\n');
// The parent gone (its end of stdin closed): nothing to report to.
process.stdin.once('end', () => process.exit(1));
process.stdin.once('data', () => {
  counting = true;
  const handler = createWebhookHandler({
    inbox,
    ...(config.store ? { store } : {}),
    confirm: false,
    inboxPollMs: 5,
    ...(process.env.DRAIN_CONCURRENCY ? { concurrency: Number(process.env.DRAIN_CONCURRENCY) } : {}),
    logLevel: 'off',
    onEvent: () => {},
  });
  const progress = setInterval(() => {
    const { processed, duplicates, outOfOrder, failed } = handler.stats;
    process.stdout.write(`handled ${processed + duplicates + outOfOrder + failed}\n`);
  }, PROGRESS_EVERY_MS);
  process.stdin.once('data', () => {
    clearInterval(progress);
    counting = false;
    void handler
      .close()
      .then(end)
      .then(() => {
        const { processed, duplicates, outOfOrder, failed } = handler.stats;
        if (kinds !== undefined && process.env.DRAIN_KINDS_FILE) {
          appendFileSync(
            process.env.DRAIN_KINDS_FILE,
            `${JSON.stringify({ name: config.name, store: config.store, kinds: Object.fromEntries(kinds) })}\n`,
          );
        }
        process.stdout.write(`${JSON.stringify({ processed, duplicates, outOfOrder, failed, calls })}\n`);
        process.exit(0);
      });
  });
});
