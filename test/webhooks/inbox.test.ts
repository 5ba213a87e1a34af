/**
 * The durable inbox (`redisInbox`, `postgresInbox`) under the webhook handler, against a real
 * redis-server (both client libraries; `appendonly yes`, the setting the inbox asks for) and a real PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresInbox } from '../../src/postgres.js';
import { redisInbox } from '../../src/redis.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import { describeWithPostgres, usePostgresServer } from '../support/postgres-server.js';
import {
  describeWithRedis,
  ownsRedisServer,
  type RedisServer,
  startRedisServer,
} from '../support/redis-server.js';
import { describeInboxContract } from './inbox-contract.js';

describeWithRedis('redisInbox on a real redis-server', () => {
  let redis: RedisServer;
  let io: IORedis;
  let nodeRedis: Awaited<ReturnType<ReturnType<typeof createClient>['connect']>>;
  beforeAll(async () => {
    redis = await startRedisServer({ args: ['--appendonly', 'yes'] });
    io = new IORedis(redis.url, { maxRetriesPerRequest: 1 }).on('error', () => {});
    nodeRedis = await createClient({ url: redis.url })
      .on('error', () => {})
      .connect();
  }, 30_000);
  afterAll(async () => {
    io?.disconnect();
    await nodeRedis?.destroy();
    if (ownsRedisServer) await redis?.stop();
  });
  const stream = () => `dts-test:${randomUUID()}:events`;
  // Commands the inboxes send, counted (the batch tests check one call per batch).
  let calls = 0;
  const countedIo = {
    call: (command: string, ...args: string[]) => {
      calls++;
      return io.call(command, ...args);
    },
  };
  const countedNodeRedis = {
    sendCommand: (args: readonly string[]) => {
      calls++;
      return nodeRedis.sendCommand([...args]);
    },
  };

  describe('over ioredis', () => {
    describeInboxContract((options = {}) => redisInbox(countedIo, { stream: stream(), ...options }), {
      dedupesOnWrite: false,
      calls: () => calls,
    });
  });
  describe('over node-redis', () => {
    describeInboxContract((options = {}) => redisInbox(countedNodeRedis, { stream: stream(), ...options }), {
      dedupesOnWrite: false,
      calls: () => calls,
    });
  });

  it('answers 503 with one warning per webhook when Redis cannot be reached, and within inboxTimeoutMs when the client queues commands', async () => {
    const unreachable = new IORedis({
      host: '127.0.0.1',
      port: 1,
      enableOfflineQueue: false,
      retryStrategy: () => 1000,
    });
    unreachable.on('error', () => {});
    const queueing = new IORedis({ host: '127.0.0.1', port: 1, retryStrategy: () => 1000 });
    queueing.on('error', () => {});
    try {
      for (const [client, timeoutMs] of [
        [unreachable, 60_000],
        [queueing, 300],
      ] as const) {
        const warnings: string[] = [];
        const handler = createWebhookHandler({
          inbox: redisInbox(client, { stream: stream() }),
          inboxWorkers: false,
          inboxTimeoutMs: timeoutMs,
          onEvent: () => {},
          logger: { debug() {}, info() {}, warn: (message) => void warnings.push(message), error() {} },
        });
        const response = await handler.fetch(
          new Request('http://receiver.test/webhooks', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ _id: 'unreachable-task', status: 'accepted' }),
          }),
        );
        expect(response.status).toBe(503);
        expect(warnings.filter((message) => message.includes('503'))).toHaveLength(1);
      }
    } finally {
      unreachable.disconnect();
      queueing.disconnect();
    }
  });

  it("inspect() reads the listed events' fields together, not one round trip after another", async () => {
    // Each reply 50 ms late, as from a distant Redis: 30 events one after another would take 1.5 s.
    const distant = {
      call: async (command: string, ...args: string[]) => {
        const reply = await io.call(command, ...args);
        await new Promise((resolve) => setTimeout(resolve, 50));
        return reply;
      },
    };
    const name = stream();
    const inbox = redisInbox(io, { stream: name });
    for (let task = 0; task < 30; task++)
      await inbox.append({ taskId: `listed-${task}`, kind: 'accepted', body: '{}', receivedAt: task });
    expect(await inbox.claim('worker', 30)).toHaveLength(30);
    const started = performance.now();
    const inspection = await redisInbox(distant, { stream: name }).inspect();
    expect(performance.now() - started).toBeLessThan(800);
    expect(inspection.pending).toBe(30);
    expect(inspection.events.map((event) => `${event.taskId} ${event.receivedAt}`)).toEqual(
      Array.from({ length: 30 }, (_, task) => `listed-${task} ${task}`),
    );
  });

  it('refuses an inbox whose visibility timeout is not longer than eventTimeoutMs', () => {
    expect(() =>
      createWebhookHandler({
        inbox: redisInbox(io, { visibilityTimeoutMs: 1000 }),
        eventTimeoutMs: 1000,
        onEvent: () => {},
      }),
    ).toThrow(expect.objectContaining({ name: 'ConfigurationError', option: 'inbox' }));
  });

  it('warns once and answers writes when the server has no WAITAOF', async () => {
    const warnings: string[] = [];
    const inbox = redisInbox(io, {
      stream: stream(),
      waitAof: true,
      logger: { warn: (m) => void warnings.push(m) },
    });
    const entry = { taskId: 't1', kind: 'accepted', body: '{}', receivedAt: Date.now() };
    await inbox.append(entry);
    await inbox.append({ ...entry, taskId: 't2' });
    const info = String(await io.call('INFO', 'server'));
    if (/redis_version:7\.[01]\.|redis_version:[0-6]\./.test(info)) {
      expect(warnings.filter((message) => message.includes('WAITAOF'))).toHaveLength(1);
    }
  });
});

describeWithPostgres('postgresInbox on a real PostgreSQL', () => {
  const postgres = usePostgresServer(20);
  let tables = 0;
  // Statements the inboxes send, counted (the batch tests check one statement per batch), but the count of
  // held events for maxEntries, sent aside at most once a second by the writes.
  let calls = 0;
  const counted = {
    totalCount: 0,
    query: (text: string | { text: string }, values?: unknown[]) => {
      if (!(typeof text === 'string' ? text : text.text).startsWith('SELECT count(*)::bigint AS n')) calls++;
      return postgres.pool().query(text as string, values);
    },
  };
  describeInboxContract(
    (options = {}) => postgresInbox(counted, { table: `inbox_${process.pid}_${++tables}`, ...options }),
    { dedupesOnWrite: true, calls: () => calls },
  );

  it('keeps the statistics of a table a peak filled fresh, so a claim reads the oldest rows only', async () => {
    const table = `inbox_${process.pid}_${++tables}`;
    const inbox = postgresInbox(postgres.pool(), { table });
    for (let from = 0; from < 1200; from += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, index) =>
          inbox.append({
            taskId: `task-${from + index}`,
            kind: 'accepted',
            body: '{}',
            receivedAt: Date.now(),
          }),
        ),
      );
    }
    const reltuples = async () =>
      Number(
        (await postgres.pool().query(`SELECT reltuples FROM pg_class WHERE oid = $1::regclass`, [table]))
          .rows[0]?.reltuples,
      );
    expect(await reltuples()).toBeLessThanOrEqual(0); // never analyzed: the planner guesses
    await inbox.maintain?.();
    expect(await reltuples()).toBe(1200);
  });
});
