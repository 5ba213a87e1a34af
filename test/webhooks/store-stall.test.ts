/**
 * A stall of this process is not a store outage (docs/several-instances.md "Stalls while receiving
 * webhooks"): the process is held (a synchronous wait, as a CPU-starved or frozen process is) right
 * after a store call was sent, for longer than `storeTimeoutMs`, while the store answers at once. After
 * the stall the event loop runs its timers before it reads the answer; the call must still take that
 * answer, so the handler keeps deduplicating and ordering in the store instead of in its own memory
 * (where a copy, or a sync's stale read, of a status another instance processed runs again). And a
 * `startSync` walk whose sync lease a stall outlived passes nothing more on once another instance took
 * the lease.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { storeKey } from '../../src/core/store.js';
import { type DeliveryStore, type Logger, memoryStore, type Task } from '../../src/index.js';
import { redisStore } from '../../src/redis.js';
import {
  createWebhookHandler,
  type WebhookClient,
  type WebhookHandlerOptions,
} from '../../src/webhooks/index.js';
import { describeWithRedis, useRedisClient } from '../support/redis-server.js';
import { fetchWebhook } from './fixtures.js';

/** `storeTimeoutMs` with a store in memory; with Redis the default 1 s (its answer must come within the stall). */
const STORE_TIMEOUT_MS = 200;

/** Longer than the store timeout, and than the half of it that marks a late timer. */
const stallMsOf = (storeTimeoutMs: number) => 2 * storeTimeoutMs + 100;

/** Holds this thread for `ms`: nothing else of the process runs meanwhile. */
function stall(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * `store` whose first lease take for `taskId` is sent, then the process stalls for `stallMs`; the
 * answer comes on the next turn of the event loop after the stall, as an answer already in the socket
 * would (with `store` in memory), or from the socket itself (with a Redis store).
 */
function stallingAtLease(
  store: DeliveryStore,
  taskId: string,
  stallMs: number,
): { store: DeliveryStore; stalls: () => number } {
  let stalls = 0;
  const leaseKeyOf = (key: string) => stalls === 0 && key.includes(':lease:') && key.includes(taskId);
  const held = <T>(answer: Promise<T>, inMemory: boolean): Promise<T> => {
    stalls++;
    stall(stallMs);
    return inMemory
      ? answer.then((value) => new Promise<T>((resolve) => setImmediate(() => resolve(value))))
      : answer;
  };
  const wrapped: DeliveryStore = {
    setIfAbsent: (key, value, ttlMs) => {
      const answer = store.setIfAbsent(key, value, ttlMs);
      return leaseKeyOf(key) ? held(answer, true) : answer;
    },
    get: (key) => store.get(key),
    compareAndSet: (key, expected, value, ttlMs) => store.compareAndSet(key, expected, value, ttlMs),
    delete: (key, expected) => store.delete(key, expected),
  };
  const { setIfAbsentThenGet, compareAndSetReleasing } = store;
  if (setIfAbsentThenGet !== undefined) {
    wrapped.setIfAbsentThenGet = (key, value, ttlMs, readKey) => {
      const answer = setIfAbsentThenGet.call(store, key, value, ttlMs, readKey);
      return leaseKeyOf(key) ? held(answer, false) : answer;
    };
  }
  if (compareAndSetReleasing !== undefined)
    wrapped.compareAndSetReleasing = compareAndSetReleasing.bind(store);
  return { store: wrapped, stalls: () => stalls };
}

function recordingLogger(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const record = (message: string) => void warnings.push(message);
  return { logger: { debug() {}, info() {}, warn: record, error: record }, warnings };
}

/** Two receivers sharing `store`, `a` through `stalled`; `events` lists each onEvent call as `<receiver> <status>`. */
function twoReceivers(
  store: DeliveryStore,
  stalled: DeliveryStore,
  storeTimeoutMs: number,
  client?: WebhookClient,
) {
  const events: string[] = [];
  const { logger, warnings } = recordingLogger();
  const options = (name: string): WebhookHandlerOptions => ({
    confirm: false,
    storeTimeoutMs,
    logger,
    onEvent: (event) => void events.push(`${name} ${event.status}`),
    ...(client === undefined ? {} : { client }),
  });
  const a = createWebhookHandler({ ...options('a'), store: stalled });
  const b = createWebhookHandler({ ...options('b'), store });
  return { a, b, events, warnings };
}

/** A copy of a status processed by `b` reaches `a`, which stalls right after sending its lease take. */
async function expectCopyDropped(store: DeliveryStore, storeTimeoutMs: number): Promise<void> {
  const taskId = `stall-copy-${randomUUID()}`;
  const stalling = stallingAtLease(store, taskId, stallMsOf(storeTimeoutMs));
  const { a, b, events, warnings } = twoReceivers(store, stalling.store, storeTimeoutMs);
  expect((await fetchWebhook(b, taskId, 'accepted')).status).toBe(200);
  await b.idle();
  expect((await fetchWebhook(a, taskId, 'accepted')).status).toBe(200);
  await a.idle();
  expect(stalling.stalls()).toBe(1);
  expect(events).toEqual(['b accepted']);
  expect(a.stats.duplicates).toBe(1);
  expect(warnings).toEqual([]);
}

describe('a stall of this process past storeTimeoutMs, while the store answers', () => {
  it('drops a copy of a status another receiver processed: the store is still read, not this process’s memory', async () => {
    await expectCopyDropped(memoryStore(), STORE_TIMEOUT_MS);
  });

  it('drops a sync’s stale read of a task another receiver moved on: accepted never follows pickedup', async () => {
    const store = memoryStore();
    const taskId = `stall-sync-${randomUUID()}`;
    // The listing was read before the task was picked up.
    const stale: Task = { id: taskId, status: 'accepted', updatedAt: new Date().toISOString() };
    const client: WebhookClient = {
      tasks: {
        retrieve: async (id) => ({ id, status: 'pickedup' }),
        list: async function* () {
          yield stale;
        },
      },
    };
    const stalling = stallingAtLease(store, taskId, stallMsOf(STORE_TIMEOUT_MS));
    const { a, b, events, warnings } = twoReceivers(store, stalling.store, STORE_TIMEOUT_MS, client);
    expect((await fetchWebhook(b, taskId, 'pickedup')).status).toBe(200);
    await b.idle();
    const result = await a.sync();
    expect(stalling.stalls()).toBe(1);
    expect(events).toEqual(['b pickedup']);
    expect(result).toMatchObject({ tasks: 1, processed: 0, outOfOrder: 1, failed: 0 });
    expect(warnings).toEqual([]);
  });
});

describeWithRedis('a stall of this process past storeTimeoutMs, with redisStore', () => {
  const redis = useRedisClient();
  it('drops a copy of a status another receiver processed: the answer read from the socket after the stall counts', async () => {
    await expectCopyDropped(redisStore(redis.io(), { prefix: `dts-test:stall:${randomUUID()}:` }), 1000);
  });
});

/**
 * A listing of two pages, one task each, whose second page is read after the process stalled past the
 * sync lease and another instance took it (`takeOver`, run right after the stall).
 */
function stallingListing(
  first: Task,
  second: Task,
  takeOver: () => void,
): NonNullable<WebhookClient['tasks']['list']> {
  async function* pages() {
    yield { tasks: [first] };
    stall(700);
    takeOver();
    yield { tasks: [second] };
  }
  async function* tasks() {
    for await (const page of pages()) yield* page.tasks;
  }
  return () => Object.assign(tasks(), { byPage: pages });
}

describe('startSync when a stall outlives the sync lease', () => {
  it('passes nothing more to onEvent once another instance took the lease', async () => {
    const store = memoryStore();
    const leaseKey = storeKey({ baseUrl: 'default', sellerId: 'default' }, 'webhook', 'sync', 'lease');
    const now = Date.now();
    const first: Task = {
      id: `walk-1-${randomUUID()}`,
      status: 'accepted',
      updatedAt: new Date(now).toISOString(),
    };
    const second: Task = {
      id: `walk-2-${randomUUID()}`,
      status: 'accepted',
      updatedAt: new Date(now - 1).toISOString(),
    };
    let tookOver = false;
    // The lease lives 1.5 × 200 + 2 × 50 = 400 ms; the stall lasts 700 ms: it expired, and the other instance takes it.
    const takeOver = () =>
      void store.setIfAbsent(leaseKey, 'another-instance', 60_000).then((taken) => (tookOver = taken));
    const events: string[] = [];
    const { logger, warnings } = recordingLogger();
    const handler = createWebhookHandler({
      store,
      storeTimeoutMs: 50,
      confirm: false,
      logger,
      client: { tasks: { retrieve: async (id) => ({ id }), list: stallingListing(first, second, takeOver) } },
      onEvent: (event) => void events.push(event.taskId),
    });
    const stop = handler.startSync({ intervalMs: 200 });
    try {
      await expect.poll(() => tookOver, { timeout: 10_000 }).toBe(true);
    } finally {
      // Waits for the walk under way.
      await stop();
    }
    await handler.idle();
    expect(events).toEqual([first.id]);
    expect(warnings).toEqual([
      expect.stringMatching(/the sync lease \(400 ms\) went unrenewed .*; this walk stops$/),
    ]);
    expect(await store.get(leaseKey)).toBe('another-instance');
  });
});
