/**
 * One webhook receiver process for the multi-process intake tests: a webhook handler with a durable
 * inbox and a shared store (Redis or PostgreSQL), behind node:http on a free loopback port. `onEvent`
 * appends `<task id> <status> <pid>` to a log file; the test kills these processes with SIGKILL.
 *
 * Usage: node --import tsx test/support/intake-receiver.ts '<json ReceiverConfig>'
 * Prints `READY <port>` once listening.
 */
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Redis from 'ioredis';
import pg from 'pg';
import type { DeliveryStore } from '../../src/core/store.js';
import { postgresInbox, postgresStore } from '../../src/postgres.js';
import { redisInbox, redisStore } from '../../src/redis.js';
import { createWebhookHandler, type WebhookInbox } from '../../src/webhooks/index.js';

/** What the test asks of a receiver. */
export interface ReceiverConfig {
  backend: 'redis' | 'postgres';
  /** Redis or PostgreSQL URL. */
  url: string;
  /** Stream, table and key names of this run. */
  name: string;
  /** The file `onEvent` appends to. */
  log: string;
  /** The inbox's visibility timeout, ms. */
  visibilityTimeoutMs: number;
}

const config = JSON.parse(process.argv[2] ?? '{}') as ReceiverConfig;
let store: DeliveryStore & { ready(): Promise<void> };
let inbox: WebhookInbox & { ready(): Promise<void> };
if (config.backend === 'redis') {
  const redis = new Redis(config.url, { maxRetriesPerRequest: 1 }).on('error', () => {});
  store = redisStore(redis, { prefix: `${config.name}:` });
  inbox = redisInbox(redis, {
    stream: `${config.name}:events`,
    visibilityTimeoutMs: config.visibilityTimeoutMs,
  });
} else {
  const pool = new pg.Pool({ connectionString: config.url, max: 8 });
  pool.on('error', () => {});
  store = postgresStore(pool, { table: `${config.name}_store` });
  inbox = postgresInbox(pool, {
    table: `${config.name}_inbox`,
    visibilityTimeoutMs: config.visibilityTimeoutMs,
  });
}
// At boot, as a service does: the server's settings (or the tables) checked before the first webhook.
await Promise.all([store.ready(), inbox.ready()]);
const handler = createWebhookHandler({
  store,
  inbox,
  confirm: false,
  storeTimeoutMs: 500,
  eventTimeoutMs: 1000,
  inboxPollMs: 20,
  logLevel: 'error',
  onEvent: async (event) => {
    await new Promise((resolve) => setTimeout(resolve, 2));
    appendFileSync(config.log, `${event.taskId} ${event.status} ${process.pid}\n`);
  },
});
const server = createServer((req, res) => void handler.node(req, res));
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`READY ${(server.address() as AddressInfo).port}\n`);
});
// Keeps the process alive: the handler's timers do not.
setInterval(() => {}, 60_000);
