/**
 * One webhook receiver process for `lease-stall.test.ts`: a handler over `redisStore` behind node:http,
 * which stalls (its thread held, as a frozen or CPU-starved process is) where the task id says, until
 * the test creates the file `<dir>/release-<task id>`:
 * - `before-…`: right after its lease take for the task was answered, before `onEvent`;
 * - `inside-…`: inside `onEvent`, at its start;
 * - `slow-…`: inside `onEvent`, after awaiting `slowMs` (the lease is renewed meanwhile), for `slowStallMs`
 *   by its own clock (no release file).
 *
 * Usage: node --import tsx test/webhooks/stall-receiver.ts '<json StallReceiverConfig>'
 * Prints `READY <port>`, then `STALLED <task id>` at each stall and `EVENT <task id> <status>` at each
 * `onEvent`. `GET /idle` answers once the handler is idle: `{ stats, errors, logs }`.
 */
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Redis from 'ioredis';
import type { DeliveryStore } from '../../src/core/store.js';
import { redisStore } from '../../src/redis.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';

/** What the test asks of the receiver. */
export interface StallReceiverConfig {
  /** Redis URL. */
  url: string;
  /** Key prefix shared with the test's own handler. */
  prefix: string;
  /** Where the release files appear. */
  dir: string;
  eventTimeoutMs: number;
  storeTimeoutMs: number;
  slowMs: number;
  slowStallMs: number;
}

const config = JSON.parse(process.argv[2] ?? '{}') as StallReceiverConfig;

const hold = new Int32Array(new SharedArrayBuffer(4));

/** Holds this thread until the test releases `taskId` (checked every 10 ms), or for `ms`. */
function stallUntilReleased(taskId: string, ms?: number): void {
  process.stdout.write(`STALLED ${taskId}\n`);
  if (ms !== undefined) Atomics.wait(hold, 0, 0, ms);
  else while (!existsSync(join(config.dir, `release-${taskId}`))) Atomics.wait(hold, 0, 0, 10);
}

const taskOfLease = (key: string) => /:lease:\{(before-[^}]+)\}/.exec(key)?.[1];
const redis = new Redis(config.url).on('error', () => {});
const shared = redisStore(redis, { prefix: config.prefix });
const stalled = new Set<string>();
const store: DeliveryStore = {
  ...shared,
  setIfAbsent: shared.setIfAbsent.bind(shared),
  get: shared.get.bind(shared),
  compareAndSet: shared.compareAndSet.bind(shared),
  delete: shared.delete.bind(shared),
  setIfAbsentThenGet: async (key, value, ttlMs, readKey) => {
    const answer = await (shared.setIfAbsentThenGet as NonNullable<DeliveryStore['setIfAbsentThenGet']>).call(
      shared,
      key,
      value,
      ttlMs,
      readKey,
    );
    const taskId = taskOfLease(key);
    if (answer[0] && taskId !== undefined && !stalled.has(taskId)) {
      stalled.add(taskId);
      stallUntilReleased(taskId);
    }
    return answer;
  },
};
if (shared.compareAndSetReleasing !== undefined)
  store.compareAndSetReleasing = shared.compareAndSetReleasing.bind(shared);

const errors: string[] = [];
const logs: string[] = [];
const log = (level: string) => (message: string) => void logs.push(`${level} ${message}`);
const handler = createWebhookHandler({
  store,
  confirm: false,
  eventTimeoutMs: config.eventTimeoutMs,
  storeTimeoutMs: config.storeTimeoutMs,
  logger: { debug() {}, info: log('info'), warn: log('warn'), error: log('error') },
  onError: (error) => void errors.push(String(error)),
  onEvent: async (event) => {
    process.stdout.write(`EVENT ${event.taskId} ${event.status}\n`);
    if (event.taskId.startsWith('inside-')) stallUntilReleased(event.taskId);
    if (event.taskId.startsWith('slow-')) {
      await new Promise((resolve) => setTimeout(resolve, config.slowMs));
      stallUntilReleased(event.taskId, config.slowStallMs);
    }
  },
});
const server = createServer((req, res) => {
  if (req.url === '/idle') {
    void handler.idle().then(() => res.end(JSON.stringify({ stats: handler.stats, errors, logs })));
    return;
  }
  void handler.node(req, res);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`READY ${(server.address() as AddressInfo).port}\n`);
});
