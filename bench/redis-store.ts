/**
 * What `redisStore` costs (`npm run bench:redis`): Redis memory per 100 000 orders, and the latency of
 * one store call on loopback through each client library.
 *
 * Memory: 100 000 orders written the way task creation does (src/resources/task-creation/order-lease.ts): per order its
 * one record, `sending` with its lease (`setIfAbsent`, 24 h), then `created` with the task id over it
 * (`compareAndSet`, which also releases the lease), under the default prefix and the
 * `v2:<base URL>:<seller>:<kind>:{<order>}` layout. Prints the growth of `INFO memory` `used_memory` per 100 000 orders.
 *
 * Latency: sequential calls (one in flight) of `setIfAbsent`, `get` and `compareAndSet` through ioredis
 * 5 and 6 and node-redis 5 and 6; prints p50 and p99 in ms.
 *
 * Starts its own empty redis-server on a free loopback port (see test/support/redis-server.ts); with
 * `REDIS_URL` set it uses that server, writes under a unique prefix and deletes its keys afterwards
 * (memory figures are then only as good as the server is quiet).
 */
import { randomUUID } from 'node:crypto';
import IORedis5 from 'ioredis';
import IORedis6 from 'ioredis6';
import { createClient as createNodeRedis5 } from 'redis';
import { createClient as createNodeRedis6 } from 'redis6';
import { storeKey } from '../src/core/store.js';
import { type RedisClientLike, redisStore } from '../src/redis.js';
import { startRedisServer } from '../test/support/redis-server.js';

const ORDERS = 100_000;
/** Store calls in flight while writing the orders. */
const IN_FLIGHT = 256;
/** Sequential calls per operation and library for the latency figures (after as many warm-up calls / 5). */
const SAMPLES = 5_000;
const ORDER_TTL_MS = 86_400_000;
const LEASE_TTL_MS = 10_000;

/** The order record task creation keeps after a success (src/resources/task-creation/order-lease.ts): the task id. */
function orderRecord(index: number): string {
  return JSON.stringify({ state: 'created', taskId: `6b02${String(index).padStart(20, '0')}`, fence: 1 });
}

async function usedMemory(raw: IORedis5): Promise<number> {
  const info = await raw.info('memory');
  return Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? Number.NaN);
}

/** Runs `task(0…count-1)` with at most `limit` in flight. */
async function inParallel(
  count: number,
  limit: number,
  task: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

async function latencies(store: ReturnType<typeof redisStore>): Promise<Record<string, number[]>> {
  const timings: Record<string, number[]> = { setIfAbsent: [], get: [], compareAndSet: [] };
  const measure = async (operation: string, call: () => Promise<unknown>, record: boolean) => {
    const started = performance.now();
    await call();
    if (record) timings[operation]?.push(performance.now() - started);
  };
  let current = 'v0';
  for (let index = 0; index < SAMPLES * 1.2; index++) {
    const record = index >= SAMPLES * 0.2;
    await measure('setIfAbsent', () => store.setIfAbsent(`latency:${index}`, 'v', 60_000), record);
    await measure('get', () => store.get(`latency:${index}`), record);
    const next = `v${index + 1}`;
    const expected = index === 0 ? undefined : current;
    await measure('compareAndSet', () => store.compareAndSet('latency:cas', expected, next, 60_000), record);
    current = next;
  }
  return timings;
}

async function main(): Promise<void> {
  const server = await startRedisServer();
  const external = process.env.REDIS_URL !== undefined;
  const raw = new IORedis5(server.url);
  const prefix = external ? `dts-bench:${randomUUID()}:` : 'dts:';
  const connections: { library: string; client: RedisClientLike; close: () => unknown }[] = [];
  try {
    const io5 = new IORedis5(server.url);
    connections.push({ library: 'ioredis 5', client: io5, close: () => io5.disconnect() });
    const io6 = new IORedis6(server.url);
    connections.push({ library: 'ioredis 6', client: io6, close: () => io6.disconnect() });
    const nr5 = await createNodeRedis5({ url: server.url }).connect();
    connections.push({ library: 'redis 5', client: nr5, close: () => nr5.destroy() });
    const nr6 = await createNodeRedis6({ url: server.url }).connect();
    connections.push({ library: 'redis 6', client: nr6, close: () => nr6.destroy() });

    // Memory per 100 000 orders.
    const store = redisStore(io5, { prefix });
    const seller = { baseUrl: 'https://delivery.example/rest/', sellerId: 'seller-4821' };
    const before = await usedMemory(raw);
    const started = performance.now();
    await inParallel(ORDERS, IN_FLIGHT, async (index) => {
      const orderNumber = `ORD-2026-${String(index).padStart(7, '0')}`;
      // As a create does: its `sending` record holding the lease, then the outcome over it (the release).
      const order = storeKey(seller, 'order', orderNumber);
      const now = Date.now();
      const sending = JSON.stringify({
        state: 'sending',
        since: now,
        fence: 1,
        until: now + 31_250,
        holder: randomUUID(),
        leaseUntil: now + LEASE_TTL_MS,
      });
      if (!(await store.setIfAbsent(order, sending, ORDER_TTL_MS))) throw new Error('order taken');
      await store.compareAndSet(order, sending, orderRecord(index), ORDER_TTL_MS);
    });
    const elapsedS = (performance.now() - started) / 1000;
    const after = await usedMemory(raw);
    const perOrder = (after - before) / ORDERS;
    console.log(
      `memory: ${ORDERS} orders (${orderRecord(0).length}-byte record, lease released) ` +
        `grew used_memory by ${((perOrder * 100_000) / 1024 / 1024).toFixed(1)} MiB per 100 000 orders ` +
        `(${perOrder.toFixed(0)} B per order); written in ${elapsedS.toFixed(1)} s ` +
        `(${Math.round(ORDERS / elapsedS)} orders/s, ${IN_FLIGHT} in flight, ioredis 5)`,
    );

    // Latency per call, sequential, loopback.
    console.log(`latency, ${SAMPLES} sequential calls each, ms (p50 / p99):`);
    for (const { library, client } of connections) {
      const timings = await latencies(
        redisStore(client, { prefix: `${prefix}${library.replace(' ', '')}:` }),
      );
      const cells = Object.entries(timings).map(([operation, samples]) => {
        const sorted = [...samples].sort((a, b) => a - b);
        return `${operation} ${percentile(sorted, 50).toFixed(3)} / ${percentile(sorted, 99).toFixed(3)}`;
      });
      console.log(`  ${library.padEnd(10)} ${cells.join('   ')}`);
    }

    if (external) {
      let cursor = '0';
      do {
        const [next, keys] = await raw.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length > 0) await raw.unlink(...keys);
      } while (cursor !== '0');
    }
  } finally {
    for (const { close } of connections) await close();
    raw.disconnect();
    if (!external) await server.stop();
  }
}

await main();
