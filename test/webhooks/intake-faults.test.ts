/**
 * Durable intake over Redis through store faults (README "Running several instances";
 * docs/several-instances.md § "Durable intake", "When the store fails"): Redis SIGSTOPped for a few
 * seconds, Redis at `maxmemory` (noeviction), a task lease left by a holder that died. The attack is
 * `store-fault-attack.ts`.
 */
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { storeKey } from '../../src/core/store.js';
import { redisInbox, redisStore } from '../../src/redis.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import {
  describeWithRedis,
  ownsRedisServer,
  type RedisServer,
  startRedisServer,
} from '../support/redis-server.js';
import { webhookBody } from './fixtures.js';
import { attack, type Backend, check, type Fault, silent, sleep } from './store-fault-attack.js';

describeWithRedis('durable intake over Redis through store faults', () => {
  let server: RedisServer;
  let admin: Redis;
  let pid = 0;
  beforeAll(async () => {
    // The setting the inbox asks for: this Redis is stopped and filled, never restarted.
    server = await startRedisServer({ args: ['--appendonly', 'yes'] });
    admin = new Redis(server.url, { lazyConnect: true });
    admin.on('error', () => {});
    await admin.connect();
    pid = Number(/process_id:(\d+)/.exec(await admin.info('server'))?.[1]);
  });
  afterAll(async () => {
    if (pid > 0) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // already gone
      }
    }
    admin?.disconnect();
    if (ownsRedisServer) await server?.stop();
  });

  const backend = (): Backend => {
    const redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
    redis.on('error', () => {});
    return {
      store: redisStore(redis, { prefix: 'faults:', logger: { warn: () => {} } }),
      inbox: redisInbox(redis, {
        stream: 'faults:events',
        visibilityTimeoutMs: 20_000,
        logger: { warn: () => {} },
      }),
      close: async () => {
        redis.disconnect();
      },
    };
  };

  it.runIf(ownsRedisServer)(
    'processes each event once and in order while Redis is SIGSTOPped for 5 s',
    async () => {
      let stopped = false;
      const fault: Fault = {
        start: async () => {
          process.kill(pid, 'SIGSTOP');
          stopped = true;
        },
        end: async () => {
          if (!stopped) return;
          stopped = false;
          process.kill(pid, 'SIGCONT');
        },
      };
      check('Redis SIGSTOP 5 s', await attack(backend, fault, 5000));
    },
    120_000,
  );

  it('processes each event once and in order while Redis is at maxmemory (noeviction)', async () => {
    let full = false;
    const fault: Fault = {
      start: async () => {
        await admin.config('SET', 'maxmemory-policy', 'noeviction');
        await admin.config('SET', 'maxmemory', '1');
        full = true;
      },
      end: async () => {
        if (!full) return;
        full = false;
        await admin.config('SET', 'maxmemory', '0');
      },
    };
    check('Redis maxmemory 3 s', await attack(backend, fault, 3000));
  }, 120_000);
  it("lets an event wait while its task's lease stays taken (a holder that died), instead of failing it", async () => {
    const redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
    redis.on('error', () => {});
    const stream = `lease-${randomUUID()}:events`;
    const inbox = redisInbox(redis, { stream, visibilityTimeoutMs: 15_000, logger: silent });
    const processed: string[] = [];
    const handler = createWebhookHandler({
      store: redisStore(redis, { prefix: 'lease:', logger: silent }),
      inbox,
      confirm: false,
      // The task's lease lives 100 + 4 × 50 + 1 000 = 1 300 ms; a waiter gave up after twice that.
      eventTimeoutMs: 100,
      storeTimeoutMs: 50,
      inboxPollMs: 20,
      logLevel: 'off',
      onError: () => {},
      onEvent: (event) => {
        processed.push(`${event.taskId} ${event.status}`);
      },
    });
    try {
      const taskId = `lease-${randomUUID()}`;
      // A lease left by a holder that died, expiring after the waiter's 2 600 ms.
      const leaseKey = `lease:${storeKey({ baseUrl: 'default', sellerId: 'default' }, 'webhook', 'lease', taskId)}`;
      await redis.set(leaseKey, 'a-dead-holder', 'PX', 4000);
      const response = await handler.fetch(
        new Request('http://receiver.test/webhooks', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(webhookBody(taskId, 'accepted')),
        }),
      );
      expect(response.status).toBe(200);
      const deadline = Date.now() + 12_000;
      while (processed.length === 0 && Date.now() < deadline) await sleep(100);
      await handler.idle();
      expect(processed).toEqual([`${taskId} accepted`]);
      expect((await inbox.inspect()).failed).toBe(0);
    } finally {
      await handler.close();
      redis.disconnect();
    }
  }, 30_000);
});
