/**
 * Receivers sharing a real Redis (README "Running several instances"): the shared-receivers suite over
 * `redisStore` with both client libraries, and a Redis stopped under a receiver.
 */
import IORedis from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { redisStore } from '../../src/redis.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import {
  describeWithRedis,
  ownsRedisServer,
  type RedisServer,
  startRedisServer,
} from '../support/redis-server.js';
import { postWebhook, webhookBody } from './fixtures.js';
import { startReceiver } from './servers.js';
import { describeSharedReceivers } from './shared-receivers.js';

describeWithRedis('webhook receivers sharing Redis', () => {
  let redis: RedisServer;
  let io: IORedis;
  let nodeRedis: Awaited<ReturnType<ReturnType<typeof createClient>['connect']>>;
  let prefixes = 0;
  const prefix = () => `webhooks-${process.pid}-${++prefixes}:`;

  beforeAll(async () => {
    redis = await startRedisServer();
    // Both libraries report a lost connection as an 'error' event; node-redis throws it without a listener.
    io = new IORedis(redis.url, { maxRetriesPerRequest: 1 }).on('error', () => {});
    nodeRedis = await createClient({ url: redis.url })
      .on('error', () => {})
      .connect();
  });
  afterAll(async () => {
    io.disconnect();
    await nodeRedis.destroy();
    if (ownsRedisServer) await redis.stop();
  });

  describeSharedReceivers('redisStore over ioredis', () => redisStore(io, { prefix: prefix() }));
  describeSharedReceivers('redisStore over node-redis', () => redisStore(nodeRedis, { prefix: prefix() }));

  it.runIf(ownsRedisServer)(
    'answers every webhook 200 within the 5 s budget while Redis is down, and processes it',
    async () => {
      const offline = new IORedis(redis.url, { maxRetriesPerRequest: 0 }).on('error', () => {});
      const processed: string[] = [];
      const warnings: string[] = [];
      const handler = createWebhookHandler({
        store: redisStore(offline, { prefix: prefix() }),
        storeTimeoutMs: 300,
        onEvent: (event) => void processed.push(`${event.taskId}:${event.status}`),
        logger: { debug() {}, info() {}, warn: (message) => void warnings.push(message), error() {} },
        dedupe: true,
      });
      const receiver = await startReceiver('node:http', handler);
      await redis.stop();
      try {
        const started = performance.now();
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, index) =>
            postWebhook(receiver.url, webhookBody(`down-${index}`, 'accepted')),
          ),
        );
        const elapsed = performance.now() - started;
        expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 20 }, () => 200));
        expect(elapsed).toBeLessThan(5000);
        await handler.idle();
        expect(new Set(processed).size).toBe(20);
        expect(warnings.length).toBe(1);
      } finally {
        await receiver.close();
        offline.disconnect();
        await redis.restart();
      }
    },
  );
});
