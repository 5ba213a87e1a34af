/**
 * What the shared store adds to a create (`npm run bench:shared`, part of `npm run bench`): sequential
 * `tasks.create` calls against the mock served over HTTP on 127.0.0.1, with the client's default memory
 * store and with `redisStore` over a loopback redis-server (ioredis 5), interleaved in rounds. Prints
 * the median per create and the difference: the store's cost (a lease, two record writes, a release).
 */
import IORedis from 'ioredis';
import { DeliveryClient, memoryStore } from '../src/index.js';
import { redisStore } from '../src/redis.js';
import { createMockDeliveryService, startMockHttpServer } from '../src/testing/index.js';
import { orderParams } from '../test/support/order-params.js';
import { startRedisServer } from '../test/support/redis-server.js';

const ROUNDS = 5;
const CREATES_PER_ROUND = 200;

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

async function main(): Promise<void> {
  const redis = await startRedisServer();
  const mock = createMockDeliveryService({ account: { type: 'invoice' } });
  const http = await startMockHttpServer(mock);
  const io = new IORedis(redis.url);
  const base = { apiKey: mock.apiKey, sellerId: mock.sellerId, baseUrl: http.url, logLevel: 'off' as const };
  const clients = {
    memory: new DeliveryClient({ ...base, store: memoryStore() }),
    redis: new DeliveryClient({ ...base, store: redisStore(io, { prefix: `bench-${process.pid}:` }) }),
  };
  // Past the fresh-store window of the Redis store, so a create does not look the order up first.
  await redisStore(io, { prefix: `bench-${process.pid}:` }).setIfAbsent(
    `v1:${mock.sellerId}:epoch`,
    String(Date.now() - 3_600_000),
    3_600_000,
  );
  const samples: Record<keyof typeof clients, number[]> = { memory: [], redis: [] };
  let order = 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of ['memory', 'redis'] as const) {
        for (let index = 0; index < CREATES_PER_ROUND; index++) {
          const started = performance.now();
          await clients[name].tasks.create(orderParams(`BENCH-${++order}`));
          if (round > 0) samples[name].push(performance.now() - started);
        }
      }
      mock.reset();
    }
    const memory = median(samples.memory);
    const shared = median(samples.redis);
    console.log(`shared state: ${samples.memory.length} creates each over HTTP on 127.0.0.1 (median per create)`);
    console.log(`  memory store          ${(memory * 1000).toFixed(0).padStart(6)} µs`);
    console.log(
      `  redisStore (ioredis)  ${(shared * 1000).toFixed(0).padStart(6)} µs   (+${((shared - memory) * 1000).toFixed(0)} µs per create)`,
    );
  } finally {
    io.disconnect();
    await http.close();
    mock.close();
    await redis.stop().catch(() => {});
  }
}

void main();
