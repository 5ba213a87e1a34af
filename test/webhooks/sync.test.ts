/**
 * `handler.sync()` and `handler.startSync()` catching lost webhooks, against the mock service with a
 * real `DeliveryClient`: the mock POSTs every status change to a front on 127.0.0.1 that loses 30 % of
 * them and spreads the rest over the receivers (one handler without a store, or three sharing one).
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import IORedis from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryClient } from '../../src/client.js';
import { ConfigurationError, type DeliveryStore, memoryStore, type Task } from '../../src/index.js';
import { redisStore } from '../../src/redis.js';
import { createMockDeliveryService, type MockDeliveryService } from '../../src/testing.js';
import {
  createWebhookHandler,
  type WebhookEvent,
  type WebhookHandler,
  type WebhookHandlerOptions,
} from '../../src/webhooks/index.js';
import { clientOf, orderParams } from '../support/mock-service.js';

import {
  ownsRedisServer,
  type RedisServer,
  redisAvailable,
  startRedisServer,
} from '../support/redis-server.js';

/**
 * A front for the webhook URL: loses deliveries 3, 6 and 9 of every 10 (30 %), spreads the rest round
 * robin over `handlers`, and loses every delivery while `handlers` is empty.
 */
class LossyFront {
  readonly server: Server;
  handlers: WebhookHandler[] = [];
  delivered = 0;
  lost = 0;
  #count = 0;

  constructor() {
    this.server = createServer((req, res) => {
      const index = this.#count++;
      if (this.handlers.length === 0 || index % 10 === 3 || index % 10 === 6 || index % 10 === 9) {
        this.lost++;
        req.resume();
        req.on('end', () => res.writeHead(200).end());
        return;
      }
      this.delivered++;
      void this.handlers[index % this.handlers.length]?.node(req, res);
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhooks/delivery`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const setups: readonly { setup: string; receivers: number; store: 'memory' | 'redis' | undefined }[] = [
  { setup: 'one handler without a store', receivers: 1, store: undefined },
  { setup: 'three handlers sharing one memoryStore()', receivers: 3, store: 'memory' },
  // A real redis-server (CI installs one; elsewhere this case runs when redis-server or REDIS_URL is there).
  ...(redisAvailable
    ? [{ setup: 'three handlers sharing a Redis store', receivers: 3, store: 'redis' as const }]
    : []),
];

describe.each(setups)('sync with $setup', ({ receivers, store: storeKind }) => {
  const front = new LossyFront();
  let mock: MockDeliveryService;
  let client: DeliveryClient;
  let handlers: WebhookHandler[];
  let events: WebhookEvent[];
  let errors: unknown[];
  /** The handlers' warnings: a store outage among them means the store's deduplication was not in force. */
  let warnings: string[] = [];

  let redis: RedisServer | undefined;
  let io: IORedis | undefined;
  let prefixes = 0;

  function makeHandlers(options: Partial<WebhookHandlerOptions> = {}): WebhookHandler[] {
    const store: DeliveryStore | undefined =
      storeKind === 'memory'
        ? memoryStore()
        : storeKind === 'redis' && io !== undefined
          ? redisStore(io, { prefix: `sync-${process.pid}-${++prefixes}:` })
          : undefined;
    return Array.from({ length: receivers }, () =>
      createWebhookHandler({
        client,
        ...(store === undefined ? {} : { store }),
        // Not a test of outages: a store starved of CPU on a loaded machine is given 10 s, not 1 s, before its
        // answers count as missing (then each handler filters on its own, as documented, and says so).
        storeTimeoutMs: 10_000,
        logger: {
          debug() {},
          info() {},
          warn: (message: string) => void warnings.push(message),
          error() {},
        },
        onEvent: (event) => void events.push(event),
        onError: (error) => void errors.push(error),
        ...options,
      }),
    );
  }

  async function idle(): Promise<void> {
    for (let round = 0; round < 3; round++) await Promise.all(handlers.map((handler) => handler.idle()));
  }

  /** Creates `count` tasks and moves each to delivered, sending its 7 webhooks through the front. */
  async function deliverTasks(label: string, count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let index = 0; index < count; index++) {
      const task = await client.tasks.create(orderParams(`ORD-${label}-${index}`));
      ids.push(task.id ?? '');
      await mock.advance(task.id ?? '', 'delivered');
    }
    await idle();
    return ids;
  }

  const deliveredEvents = (taskId: string) =>
    events.filter((event) => event.taskId === taskId && event.status === 'delivered');

  beforeAll(async () => {
    if (storeKind === 'redis') {
      redis = await startRedisServer();
      io = new IORedis(redis.url).on('error', () => {});
    }
    mock = createMockDeliveryService({ webhookUrl: await front.listen() });
    mock.listen();
    client = clientOf(mock);
  });
  afterEach(() => {
    mock.reset();
  });
  afterAll(async () => {
    mock.close();
    await front.close();
    io?.disconnect();
    if (ownsRedisServer) await redis?.stop();
  });

  it('processes the final status of every task exactly once overall, the lost ones as sync events, and nothing on a second sync', async () => {
    events = [];
    errors = [];
    warnings = [];
    handlers = makeHandlers();
    front.handlers = handlers;
    const taskIds = await deliverTasks('lost', 20);
    const byWebhook = taskIds.filter((taskId) => deliveredEvents(taskId).length === 1);
    expect(byWebhook.length).toBeLessThan(taskIds.length);
    expect(front.lost).toBeGreaterThan(0);

    const first = await handlers[0]?.sync();
    await idle();
    expect(errors).toEqual([]);
    for (const taskId of taskIds)
      expect(deliveredEvents(taskId), `${taskId}; ${warnings.join(' | ')}`).toHaveLength(1);
    const bySync = events.filter((event) => event.source === 'sync');
    expect(bySync.map((event) => event.taskId).toSorted()).toEqual(
      taskIds.filter((taskId) => !byWebhook.includes(taskId)).toSorted(),
    );
    for (const event of bySync) {
      expect(event).toMatchObject({
        source: 'sync',
        confirmed: true,
        kind: 'delivered',
        status: 'delivered',
      });
      expect(event.task).toMatchObject({ id: event.taskId, status: 'delivered' });
    }
    expect(events.filter((event) => event.source === 'webhook')).not.toHaveLength(0);
    expect(first).toMatchObject({
      tasks: 20,
      processed: bySync.length,
      duplicates: 20 - bySync.length,
      outOfOrder: 0,
      failed: 0,
      gaps: bySync.length,
      unverified: 0,
      gapsScope: storeKind === undefined ? 'process' : 'store',
    });
    const pairs = events.map((event) => `${event.taskId} ${event.status}`);
    expect(pairs).toHaveLength(new Set(pairs).size);

    const before = events.length;
    const second = await handlers.at(-1)?.sync();
    await idle();
    expect(second).toMatchObject({ tasks: 20, processed: 0, duplicates: 20, failed: 0, gaps: 0 });
    expect(events).toHaveLength(before);
    expect(second?.checkpoint?.getTime()).toBeGreaterThan(first?.checkpoint?.getTime() ?? Number.NaN);
  });

  it('walks only the tasks updated since the checkpoint (minus syncSkewMs), newest first', async () => {
    events = [];
    errors = [];
    handlers = makeHandlers({ syncSkewMs: 0 });
    front.handlers = handlers;
    await deliverTasks('early', 12);
    await handlers[0]?.sync();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await deliverTasks('late', 3);
    const listsBefore = mock.requestsFor('tasks.list').length;

    const result = await handlers[0]?.sync();
    expect(result?.tasks).toBe(3);
    const lists = mock.requestsFor('tasks.list').slice(listsBefore);
    expect(lists).toHaveLength(1);
    expect(lists[0]?.query).toMatchObject({ sortBy: 'updatedAt', sortOrder: '-1', page: '1' });
  });

  it(`keeps the checkpoint where it was when onEvent fails, and the next sync ${storeKind === undefined ? 'counts the status as seen (in process, as for webhooks)' : 'processes that task'}`, async () => {
    events = [];
    errors = [];
    let failing = true;
    handlers = makeHandlers({
      onEvent: (event) => {
        if (event.source === 'sync' && failing) throw new Error('ledger unavailable');
        events.push(event);
      },
    });
    front.handlers = [];
    const [taskId = ''] = await deliverTasks('failing', 1);

    const first = await handlers[0]?.sync();
    expect(first).toMatchObject({ tasks: 1, processed: 0, failed: 1, checkpoint: undefined });
    expect(errors).toEqual([new Error('ledger unavailable')]);
    failing = false;
    const second = await handlers[0]?.sync();
    if (storeKind === undefined) {
      // In process a status counts as seen once confirmed, before onEvent: a failure is not retried.
      expect(second).toMatchObject({ tasks: 1, processed: 0, duplicates: 1, failed: 0 });
      expect(deliveredEvents(taskId)).toHaveLength(0);
    } else {
      // In a store a status is recorded once onEvent completed: the next sync processes it.
      expect(second).toMatchObject({ tasks: 1, processed: 1, failed: 0 });
      expect(deliveredEvents(taskId)).toHaveLength(1);
    }
    expect(second?.checkpoint).toBeInstanceOf(Date);
  });

  it('reports a failing GET tasks from startSync to onError and keeps syncing', async () => {
    events = [];
    errors = [];
    handlers = makeHandlers();
    front.handlers = [];
    await deliverTasks('periodic', 2);
    mock.inject({ kind: 'status', status: 401, operation: 'tasks.list', times: 1 });
    const stop = handlers[0]?.startSync({ intervalMs: 20 });
    const started = Date.now();
    while (events.filter((event) => event.source === 'sync').length < 2 && Date.now() - started < 3_000) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await stop?.();
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).name).toBe('AuthenticationError');
    expect(events.filter((event) => event.source === 'sync')).toHaveLength(2);
  });
});

describe('sync without tasks.list', () => {
  const retrieveOnly = { tasks: { retrieve: async (id: string): Promise<Task> => ({ id }) } };

  it('rejects sync() and throws from startSync() with a ConfigurationError naming the client', async () => {
    const handler = createWebhookHandler({ client: retrieveOnly, onEvent: () => {} });
    const error = await handler.sync().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({ option: 'client' });
    expect(() => handler.startSync({ intervalMs: 1000 })).toThrow(ConfigurationError);
    expect(() => createWebhookHandler({ onEvent: () => {} }).startSync()).toThrow(/tasks\.list/);
  });
});

/** A webhook request carrying `{ _id: taskId, status }`. */
const webhook = (taskId: string, status: string) =>
  new Request('http://receiver.test/webhooks', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ _id: taskId, status }),
  });

describe('the gap report of sync()', () => {
  const now = new Date().toISOString();
  const listed: Task[] = [
    { id: 't-gap-1', status: 'delivered', updatedAt: now },
    { id: 't-gap-2', status: 'cancelled', updatedAt: now },
    { id: 't-gap-3', status: 'enroute', updatedAt: now },
    { id: 't-gap-4', status: 'delivered', updatedAt: now },
  ];
  const client = {
    tasks: {
      retrieve: async (id: string): Promise<Task> => listed.find((task) => task.id === id) ?? { id },
      async *list(): AsyncIterable<Task> {
        yield* listed;
      },
    },
  };

  it('counts and logs the final statuses it found that no webhook had delivered', async () => {
    const warnings: string[] = [];
    const handler = createWebhookHandler({
      client,
      onEvent: () => {},
      syncSkewMs: 0,
      logger: { debug() {}, info() {}, warn: (message) => void warnings.push(message), error() {} },
    });
    // Updated after the handler was created: this process can tell no webhook brought them.
    const later = new Date(Date.now() + 1000).toISOString();
    for (const task of listed) task.updatedAt = later;
    const webhook = new Request('http://receiver.test/webhooks', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ _id: 't-gap-4', status: 'delivered' }),
    });
    expect((await handler.fetch(webhook)).status).toBe(200);
    await handler.idle();
    const result = await handler.sync();
    expect(result).toMatchObject({
      tasks: 4,
      processed: 3,
      duplicates: 1,
      gaps: 2,
      unverified: 0,
      gapsScope: 'process',
    });
    expect(warnings).toEqual([expect.stringMatching(/2 final statuses .*no webhook had delivered/)]);
    const again = await handler.sync();
    expect(again.gaps).toBe(0);
    expect(warnings).toHaveLength(1);
  });

  /** A logger keeping warning and info lines. */
  function keeping() {
    const lines: string[] = [];
    const logger = {
      debug() {},
      info: (message: string) => void lines.push(`info ${message}`),
      warn: (message: string) => void lines.push(`warn ${message}`),
      error() {},
    };
    return { lines, logger };
  }

  it('after a restart without a store, does not count as gaps what an earlier process may have processed', async () => {
    const before = new Date(Date.now() - 60_000).toISOString();
    for (const task of listed) task.updatedAt = before;
    // The previous process received every webhook; this one starts with an empty memory.
    const previous = createWebhookHandler({ client, onEvent: () => {}, logLevel: 'off' });
    for (const task of listed) await previous.fetch(webhook(task.id ?? '', task.status ?? ''));
    await previous.idle();
    const { lines, logger } = keeping();
    const restarted = createWebhookHandler({ client, onEvent: () => {}, logger, logLevel: 'info' });
    const result = await restarted.sync();
    expect(result).toMatchObject({ tasks: 4, processed: 4, gaps: 0, unverified: 3, gapsScope: 'process' });
    // No gap warning: the result says what was counted (gapsScope) and what could not be (unverified).
    expect(lines).toEqual([]);
  });

  it('with a shared store, counts as gaps only what no instance processed, across a restart', async () => {
    const before = new Date(Date.now() - 60_000).toISOString();
    for (const task of listed) task.updatedAt = before;
    const store = memoryStore();
    const previous = createWebhookHandler({ client, store, onEvent: () => {}, logLevel: 'off' });
    await previous.fetch(webhook('t-gap-1', 'delivered'));
    await previous.idle();
    const { lines, logger } = keeping();
    const restarted = createWebhookHandler({ client, store, onEvent: () => {}, logger });
    const result = await restarted.sync();
    expect(result).toMatchObject({
      tasks: 4,
      processed: 3,
      duplicates: 1,
      gaps: 2,
      unverified: 0,
      gapsScope: 'store',
    });
    expect(lines).toEqual([
      expect.stringMatching(
        /^warn \[delivery-task-sdk\] Webhook sync: 2 final statuses .*no webhook had delivered to any instance/,
      ),
    ]);
  });
});
