/**
 * What the shared store adds to a create (`npm run bench:shared`, part of `npm run bench`): sequential
 * `tasks.create` calls against the mock served over HTTP on 127.0.0.1, with the client's default memory
 * store and with `redisStore` over a loopback redis-server (ioredis 5), interleaved in rounds. Prints
 * the median per create and the difference: the store's cost (a lease, two record writes, a release).
 * Then the same for a webhook: POSTed to a node:http receiver and processed (`onEvent` done), without a
 * store and with `redisStore` (the task's lease, its record read and written).
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import IORedis from 'ioredis';
import { storeKey } from '../src/core/store.js';
import { createWebhookHandler, DeliveryClient, type DeliveryStore, memoryStore } from '../src/index.js';
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
    storeKey({ baseUrl: clients.redis.baseUrl, sellerId: mock.sellerId }, 'epoch'),
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
    await http.close();
    mock.close();
    await redis.stop().catch(() => {});
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
