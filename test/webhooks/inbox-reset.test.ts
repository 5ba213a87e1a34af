/**
 * A reset of the inbox's Redis seen while the handler runs (docs/several-instances.md "Redis settings"):
 * redis-server SIGKILLed and started empty on the same port (`volatile: true`: this server keeps nothing on
 * disk), restored from an older snapshot, its group destroyed, its keys deleted. Each is one error line,
 * `stats.resets`, and a `sync()` started at once that brings the lost webhooks' tasks to `onEvent`
 * (against the mock service, through both client libraries).
 */
import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { memoryStore } from '../../src/core/store.js';
import { type RedisClientLike, redisInbox } from '../../src/redis.js';
import { createWebhookHandler, type WebhookEvent } from '../../src/webhooks/index.js';
import { orderParams, useMockService } from '../support/mock-service.js';
import {
  describeWithRedis,
  ownsRedisServer,
  type RedisServer,
  startRedisServer,
} from '../support/redis-server.js';
import { fetchWebhook, gate } from './fixtures.js';

const silent = { warn() {} };

/** A handler logger keeping its error and info lines. */
function recordingLogger(): {
  errors: string[];
  infos: string[];
  logger: { debug(): void; info(message: string): void; warn(): void; error(message: string): void };
} {
  const errors: string[] = [];
  const infos: string[] = [];
  return {
    errors,
    infos,
    logger: {
      debug() {},
      info: (message: string) => void infos.push(message),
      warn() {},
      error: (message: string) => void errors.push(message),
    },
  };
}

describeWithRedis('redisInbox: a reset of its Redis while the handler runs', () => {
  const service = useMockService();
  let server: RedisServer;
  let io: IORedis;
  let nodeRedis: Awaited<ReturnType<ReturnType<typeof createClient>['connect']>>;
  beforeAll(async () => {
    server = await startRedisServer();
    io = new IORedis(server.url, { maxRetriesPerRequest: 1 }).on('error', () => {});
    nodeRedis = await createClient({ url: server.url })
      .on('error', () => {})
      .connect();
  }, 30_000);
  afterAll(async () => {
    io?.disconnect();
    await nodeRedis?.destroy();
    if (ownsRedisServer) await server?.stop();
  });
  const libraries = (): [string, RedisClientLike][] => [
    ['ioredis', io],
    ['node-redis', nodeRedis],
  ];

  for (const index of [0, 1]) {
    it.runIf(ownsRedisServer)(
      `${['ioredis', 'node-redis'][index]}: SIGKILLed and started empty, one error line, stats.resets 1, and a sync that brings every lost webhook's task to onEvent once`,
      async () => {
        const [, redis] = libraries()[index] ?? [];
        if (redis === undefined) throw new Error('no client');
        const client = service.client();
        const taskIds: string[] = [];
        for (let count = 0; count < 13; count++) {
          const task = await client.tasks.create(orderParams(`RESET-${randomUUID()}`));
          await service.mock.advance(task.id, 'accepted');
          taskIds.push(task.id);
        }
        const [late, ...sent] = taskIds;
        const { errors, infos, logger } = recordingLogger();
        const seen: WebhookEvent[] = [];
        const open = gate();
        const inbox = redisInbox(redis, { stream: `reset-${randomUUID()}`, volatile: true, logger: silent });
        const handler = createWebhookHandler({
          client,
          confirm: false,
          store: memoryStore(),
          concurrency: 1,
          inboxPollMs: 10,
          // onEvent waits on the gate through the restart: no timeout meanwhile.
          eventTimeoutMs: 30_000,
          inbox,
          logger,
          // The mock's client logs nothing, and the handler takes its level unless given one.
          logLevel: 'info',
          onEvent: async (event) => {
            await open.promise;
            seen.push(event);
          },
        });
        await inbox.ready();
        for (const taskId of sent) expect((await fetchWebhook(handler, taskId, 'accepted')).status).toBe(200);
        // The worker holds the first claims (concurrency 1); the rest wait in Redis, answered 200 already.
        await vi.waitFor(() => expect(handler.stats.claimed).toBe(2), { timeout: 10_000 });
        await server.restart();
        // The next webhook reaches the empty server (503 while the client reconnects).
        await vi.waitFor(
          async () => expect((await fetchWebhook(handler, late ?? '', 'accepted')).status).toBe(200),
          {
            timeout: 20_000,
            interval: 100,
          },
        );
        expect(handler.stats.resets).toBe(1);
        expect(errors, errors.join('\n')).toHaveLength(1);
        expect(errors[0]).toMatch(
          /Webhook inbox reset: the Redis of stream reset-\S+ lost its epoch key reset-\S+:epoch; the webhooks it held/,
        );
        expect(errors[0]).toContain('sync() started');
        await vi.waitFor(() => expect(service.mock.requestsFor('tasks.list').length).toBeGreaterThan(0));
        open.open();
        await vi.waitFor(
          () => expect(infos.some((line) => line.includes('Sync after the inbox reset'))).toBe(true),
          {
            timeout: 20_000,
          },
        );
        await handler.idle();
        // Each task once: the 2 held in memory and the late one as webhooks, the 10 lost by the sync.
        const byTask = new Map<string, string[]>();
        for (const event of seen)
          byTask.set(event.taskId, [...(byTask.get(event.taskId) ?? []), event.source]);
        expect([...byTask.keys()].sort()).toEqual([...taskIds].sort());
        for (const [taskId, sources] of byTask) expect(sources, taskId).toHaveLength(1);
        expect(seen.filter((event) => event.source === 'sync').length).toBeGreaterThanOrEqual(10);
        expect(handler.stats.resets).toBe(1);
        expect(errors).toHaveLength(1);
        await handler.close();
      },
      60_000,
    );
  }

  it.runIf(ownsRedisServer)(
    'restored from an older snapshot: fewer webhooks written than this process saw is a reset',
    async () => {
      const inbox = redisInbox(io, { stream: `restore-${randomUUID()}`, volatile: true, logger: silent });
      const reasons: string[] = [];
      inbox.onReset(({ reason }) => void reasons.push(reason));
      const entry = () => ({
        taskId: `task-${randomUUID()}`,
        kind: 'accepted',
        body: '{}',
        receivedAt: Date.now(),
      });
      for (let count = 0; count < 3; count++) await inbox.append(entry());
      await io.call('SAVE');
      for (let count = 0; count < 2; count++) await inbox.append(entry());
      expect(reasons).toEqual([]);
      // SIGKILL: the server comes back as the snapshot (dump.rdb in its directory), 2 webhooks short.
      await server.restart();
      await vi.waitFor(() => inbox.append(entry()), { timeout: 20_000, interval: 100 });
      expect(reasons).toHaveLength(1);
      expect(reasons[0]).toMatch(
        /counts 4 webhooks written where this process saw 5: it came back from an older snapshot/,
      );
      await inbox.append(entry());
      expect(reasons).toHaveLength(1);
    },
    60_000,
  );

  it('its consumer group destroyed: NOGROUP at the next claim is a reset, reported once; claims go on', async () => {
    for (const [library, redis] of libraries()) {
      const stream = `nogroup-${randomUUID()}`;
      const inbox = redisInbox(redis, { stream, volatile: true, logger: silent });
      const reasons: string[] = [];
      inbox.onReset(({ reason }) => void reasons.push(reason));
      await inbox.ready();
      await io.call('XGROUP', 'DESTROY', stream, 'dts-workers');
      const claims = await Promise.all([inbox.claim('a', 5), inbox.claim('b', 5), inbox.inspect()]);
      expect(claims.slice(0, 2), library).toEqual([[], []]);
      expect(reasons, library).toHaveLength(1);
      expect(reasons[0], library).toContain('NOGROUP');
      await inbox.append({ taskId: 't', kind: 'accepted', body: '{}', receivedAt: Date.now() });
      expect(await inbox.claim('a', 5), library).toHaveLength(1);
      expect(reasons, library).toHaveLength(1);
    }
  });

  it('its keys gone, seen by a handler without a client: one error line saying the loss cannot be recovered', async () => {
    for (const [library, redis] of libraries()) {
      const stream = `gone-${randomUUID()}`;
      const { errors, logger } = recordingLogger();
      const inbox = redisInbox(redis, { stream, volatile: true, logger: silent });
      const handler = createWebhookHandler({ inbox, inboxWorkers: false, logger, onEvent: () => {} });
      expect((await fetchWebhook(handler, `task-${randomUUID()}`, 'accepted')).status, library).toBe(200);
      await io.del(stream, `${stream}:open`, `${stream}:epoch`);
      for (let count = 0; count < 3; count++) {
        expect((await fetchWebhook(handler, `task-${randomUUID()}`, 'accepted')).status, library).toBe(200);
      }
      expect(handler.stats.resets, library).toBe(1);
      expect(errors, library).toHaveLength(1);
      expect(errors[0], library).toContain(
        `the Redis of stream ${stream} lost its epoch key ${stream}:epoch`,
      );
      expect(errors[0], library).toContain('cannot be recovered: sync() needs a client with tasks.list');
      await handler.close();
    }
  });

  it('logs the reset itself (one error line) when no handler listens', async () => {
    const stream = `alone-${randomUUID()}`;
    const lines: string[] = [];
    const inbox = redisInbox(io, {
      stream,
      volatile: true,
      logger: {
        warn: (message) => void lines.push(`warn ${message}`),
        error: (message) => void lines.push(`error ${message}`),
      },
    });
    await inbox.ready();
    await io.del(`${stream}:epoch`);
    await inbox.append({ taskId: 't', kind: 'accepted', body: '{}', receivedAt: Date.now() });
    await inbox.append({ taskId: 't', kind: 'delivered', body: '{}', receivedAt: Date.now() });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^error redisInbox reset: the Redis of stream alone-\S+ lost its epoch key .*handler\.sync\(\)/,
    );
  });
});
