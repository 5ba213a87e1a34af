/**
 * Durable intake through store faults (README "Running several instances"; docs/several-instances.md
 * § "Durable intake", "When the store fails"): 3 receivers (in-process handlers, each with its own
 * connections) share an inbox and a store on one backend while it fails: Redis SIGSTOPped for a few
 * seconds, Redis at `maxmemory` (noeviction), PostgreSQL stopped with `pg_ctl stop -m immediate` and
 * started again. Webhooks (tasks interleaved, a quarter sent twice, some copies sent again later) are
 * sent until answered 200. Every (task, status) answered 200 must reach `onEvent` exactly once, in order
 * per task: lost, processed twice and out of order are all 0.
 */
import { randomUUID } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import Redis from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type DeliveryStore, storeKey } from '../../src/core/store.js';
import { postgresInbox, postgresStore } from '../../src/postgres.js';
import { redisInbox, redisStore } from '../../src/redis.js';
import { createWebhookHandler, type WebhookHandler, type WebhookInbox } from '../../src/webhooks/index.js';
import { seededRandom } from '../support/create-workers.js';
import { describeWithPostgres, type PostgresServer, startPostgresServer } from '../support/postgres-server.js';
import { describeWithRedis, ownsRedisServer, type RedisServer, startRedisServer } from '../support/redis-server.js';
import { webhookBody } from './fixtures.js';

const STATUSES = ['accepted', 'inprogress', 'pickedup', 'enroute', 'delivered'] as const;
const TASKS = 60;
const LANES = 10;
const RECEIVERS = 3;

interface Backend {
  store: DeliveryStore;
  inbox: WebhookInbox;
  close(): Promise<void>;
}

interface Fault {
  /** Starts the fault; resolves once it is in place. */
  start(): Promise<void>;
  /** Ends it; must be safe to call twice and after a failed start. */
  end(): Promise<void>;
}

const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Sends every webhook through `receivers` (each until answered 200), with `fault` on for `faultMs` from
 * a third of the way in; returns the counts.
 */
async function attack(makeBackend: () => Backend, fault: Fault, faultMs: number) {
  const backends = Array.from({ length: RECEIVERS }, makeBackend);
  const processed: string[] = [];
  const perTask = new Map<string, string[]>();
  const errors: unknown[] = [];
  const handlers: WebhookHandler[] = backends.map(({ store, inbox }) =>
    createWebhookHandler({
      store,
      inbox,
      confirm: false,
      storeTimeoutMs: 1000,
      inboxTimeoutMs: 500,
      eventTimeoutMs: 2000,
      inboxPollMs: 20,
      logLevel: 'off',
      onError: (error) => {
        errors.push(error);
      },
      onEvent: async (event) => {
        await sleep(1);
        processed.push(`${event.taskId} ${event.status}`);
        perTask.set(event.taskId, [...(perTask.get(event.taskId) ?? []), event.status]);
      },
    }),
  );
  const random = seededRandom(20261126);
  const answered = new Set<string>();
  let posts = 0;
  const post = async (taskId: string, status: string): Promise<void> => {
    for (;;) {
      const handler = handlers[Math.floor(random() * handlers.length)] as WebhookHandler;
      posts++;
      const response = await handler.fetch(
        new Request('http://receiver.test/webhooks', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(webhookBody(taskId, status)),
        }),
      );
      if (response.status === 200) {
        answered.add(`${taskId} ${status}`);
        return;
      }
      await sleep(50);
    }
  };
  const name = randomUUID().slice(0, 8);
  const tasks = Array.from({ length: TASKS }, (_, index) => `fault-${name}-${index}`);
  const late: [string, string][] = [];
  let next = 0;
  const sending = Promise.all(
    Array.from({ length: LANES }, async () => {
      for (let index = next++; index < tasks.length; index = next++) {
        const taskId = tasks[index] ?? '';
        for (const status of STATUSES) {
          await post(taskId, status);
          if (random() < 0.25) await post(taskId, status); // a duplicate at once
          if (random() < 0.1) late.push([taskId, status]); // a copy sent again later
          await sleep(5 + Math.floor(random() * 20));
        }
      }
    }),
  );
  let faulted = false;
  let inspection: unknown;
  try {
    await sleep(400);
    await fault.start();
    faulted = true;
    await sleep(faultMs);
    await fault.end();
    await sending;
    for (const [taskId, status] of late) await post(taskId, status);
    const expected = TASKS * STATUSES.length;
    const deadline = Date.now() + 60_000;
    while (new Set(processed).size < expected && Date.now() < deadline) await sleep(100);
    await Promise.all(handlers.map((handler) => handler.idle()));
    inspection = await backends[0]?.inbox.inspect({ limit: 10 });
  } finally {
    if (!faulted) await sending.catch(() => {});
    await fault.end();
    await Promise.all(handlers.map((handler) => handler.close()));
    await Promise.all(backends.map((backend) => backend.close()));
  }
  const unique = new Set(processed);
  const lost = [...answered].filter((pair) => !unique.has(pair));
  let outOfOrder = 0;
  for (const statuses of perTask.values()) {
    const ranks = statuses.map((status) => STATUSES.indexOf(status as (typeof STATUSES)[number]));
    for (let index = 1; index < ranks.length; index++) if ((ranks[index] ?? 0) <= (ranks[index - 1] ?? 0)) outOfOrder++;
  }
  return {
    answered: answered.size,
    posts,
    lost,
    twice: processed.length - unique.size,
    outOfOrder,
    errors,
    inspection,
  };
}

function check(label: string, result: Awaited<ReturnType<typeof attack>>): void {
  console.log(
    `${label}: ${result.answered} (task, status) answered 200, ${result.posts} POSTs; ${result.lost.length} lost, ${result.twice} processed twice, ${result.outOfOrder} out of order`,
  );
  if (result.lost.length > 0 || result.twice > 0) {
    console.log('inbox', JSON.stringify(result.inspection), 'errors', result.errors.slice(0, 5).map(String));
  }
  expect(result.answered).toBe(TASKS * STATUSES.length);
  expect(result.lost).toEqual([]);
  expect(result.twice).toBe(0);
  expect(result.outOfOrder).toBe(0);
}

describeWithRedis('durable intake over Redis through store faults', () => {
  let server: RedisServer;
  let admin: Redis;
  let pid = 0;
  beforeAll(async () => {
    server = await startRedisServer();
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
      inbox: redisInbox(redis, { stream: 'faults:events', visibilityTimeoutMs: 20_000, logger: { warn: () => {} } }),
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

describeWithPostgres('durable intake over PostgreSQL through store faults', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgresServer();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('attaches an error listener to a pool that has none (an idle client dropped by the server cannot end the process)', async () => {
    const pool = new pg.Pool({ connectionString: server.url, max: 2 });
    try {
      expect(pool.listenerCount('error')).toBe(0);
      postgresStore(pool, { table: 'listener_store' });
      expect(pool.listenerCount('error')).toBe(1);
      postgresInbox(pool, { table: 'listener_inbox' });
      expect(pool.listenerCount('error')).toBe(1);
      const own = new pg.Pool({ connectionString: server.url, max: 1 });
      const mine = () => {};
      own.on('error', mine);
      postgresStore(own, { table: 'listener_store' });
      postgresInbox(own, { table: 'listener_inbox' });
      expect(own.listeners('error')).toEqual([mine]);
      await own.end();
      // What the pool does with an idle client's error: emits it, which throws without a listener.
      expect(() => (pool as unknown as EventEmitter).emit('error', new Error('terminating connection'))).not.toThrow();
    } finally {
      await pool.end();
    }
  });

  it('processes each event once and in order across `pg_ctl stop -m immediate` and a start, with pools built without an error listener', async () => {
    const { crash, start } = server;
    if (crash === undefined || start === undefined) return; // DATABASE_URL: never stopped
    const name = `faults_${randomUUID().replaceAll('-', '').slice(0, 8)}`;
    const backend = (): Backend => {
      // As docs/several-instances.md showed it: no error listener of our own.
      const pool = new pg.Pool({
        connectionString: server.url,
        max: 6,
        connectionTimeoutMillis: 500,
        // A commit acknowledged must survive the crash, as on a production server (the test server turns it off).
        options: '-c synchronous_commit=on',
      });
      return {
        store: postgresStore(pool, { table: `${name}_store`, logger: silent }),
        inbox: postgresInbox(pool, {
          table: `${name}_inbox`,
          visibilityTimeoutMs: 20_000,
          logger: silent,
        }),
        close: () => pool.end(),
      };
    };
    let down = false;
    const fault: Fault = {
      start: async () => {
        down = true;
        await crash();
      },
      end: async () => {
        if (!down) return;
        down = false;
        await start();
      },
    };
    check('PostgreSQL stop -m immediate 3 s', await attack(backend, fault, 3000));
  }, 120_000);
});
