/**
 * A create's POST that outlives its attempt timeout (src/resources/task-creation/held-post.ts;
 * docs/several-instances.md "Stalls"): a service that holds a request (queued in it, or before it in a
 * full accept queue) serves it whenever it does, whether its client is still there or not. The request
 * stays open: its late answer decides, and nothing is sent again while it may still arrive. The service
 * is a real node:http server on 127.0.0.1 that holds the first POST before passing it to the mock, and
 * serves it even when its client has gone.
 */
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type ClientOptions,
  type DeliveryStore,
  DuplicateTaskError,
  memoryStore,
  TaskCreationOutcomeUnknownError,
} from '../../../src/index.js';
import { aged } from '../../support/aged-store.js';
import {
  type Forwarded,
  type HostileHandler,
  type HostileServer,
  hostileClient,
  startHostileServer,
} from '../../support/hostile-server.js';
import { orderParams } from '../../support/mock-service.js';

const TIMEOUT_MS = 500;

let hostile: HostileServer;
beforeAll(async () => {
  hostile = await startHostileServer();
});
beforeEach(() => hostile.mock.reset());
afterAll(() => hostile.close());

const tasksFor = (orderNumber: string) =>
  hostile.mock.tasks.filter((task) => task.orderNumber === orderNumber);
const postsFor = (orderNumber: string) =>
  hostile.mock
    .requestsFor('tasks.create')
    .filter((request) => (request.body as { orderNumber?: string }).orderNumber === orderNumber);

/** Serves a request as the mock answers it. */
const passOn = async (response: ServerResponse, forward: () => Promise<Forwarded>): Promise<void> => {
  const answer = await forward();
  response.writeHead(answer.status, Object.fromEntries(answer.headers));
  response.end(answer.body);
};

/** Holds the first POST `holdMs` before serving it (to a client still there, or to nobody); the rest pass. */
function holdingFirstPost(holdMs: number): { handler: HostileHandler; served: Promise<void> } {
  let held = false;
  let served: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    served = resolve;
  });
  const handler: HostileHandler = async (request, response, { forward }) => {
    const first = request.method === 'POST' && !held;
    if (first) {
      held = true;
      await sleep(holdMs);
    }
    const answer = await forward();
    if (first) served();
    if (response.destroyed || response.writableEnded) return;
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    response.end(answer.body);
  };
  return { handler, served: done };
}

const client = (overrides: ClientOptions = {}) =>
  hostileClient(hostile, { timeout: TIMEOUT_MS, store: memoryStore(), ...overrides });

describe('a create whose POST outlives its attempt timeout', () => {
  it('takes the answer that comes after the timeout, before the listing delay ends, and sends once', async () => {
    const listingDelayMs = 4000;
    const { handler } = holdingFirstPost(1500);
    hostile.use(handler);
    const startedAt = Date.now();
    const task = await client({ listingDelayMs }).tasks.create(orderParams('HELD-1'), { lookupFirst: false });
    const elapsed = Date.now() - startedAt;
    expect(postsFor('HELD-1')).toHaveLength(1);
    expect(tasksFor('HELD-1').map((created) => created.id)).toEqual([task.id]);
    // Aborted at its timeout, the POST would be decided only by the lookup at the end of the listing delay.
    expect(elapsed).toBeLessThan(TIMEOUT_MS + listingDelayMs - 1000);
  }, 20_000);

  it('holds its POST open past the listing delay, however late the service answers, and takes that answer: one POST', async () => {
    const listingDelayMs = 500;
    // Served after the attempt timeout and three listing delays: a resend in between would make a second task.
    hostile.use(holdingFirstPost(TIMEOUT_MS + 3 * listingDelayMs + 500).handler);
    const task = await client({ listingDelayMs }).tasks.create(orderParams('HELD-2'), { lookupFirst: false });
    expect(postsFor('HELD-2')).toHaveLength(1);
    expect(tasksFor('HELD-2').map((created) => created.id)).toEqual([task.id]);
  }, 20_000);

  it('ends a caller at its deadline while its POST stays open, and a create after retryAfterMs waits for that POST and takes its task', async () => {
    const listingDelayMs = 500;
    const { handler, served } = holdingFirstPost(TIMEOUT_MS + 4 * listingDelayMs + 500);
    hostile.use(handler);
    const sdk = client({ listingDelayMs });
    const errors: unknown[] = [];
    let task: { id: string } | undefined;
    for (let attempt = 0; task === undefined && attempt < 20; attempt++) {
      try {
        task = await sdk.tasks.create(orderParams('HELD-7'), { lookupFirst: false, totalTimeout: 1200 });
      } catch (error) {
        errors.push(error);
        if (!(error instanceof TaskCreationOutcomeUnknownError)) throw error;
        await sleep(Math.max(error.retryAfterMs ?? 0, 100));
      }
    }
    await served;
    expect(errors.length).toBeGreaterThan(0);
    expect(postsFor('HELD-7')).toHaveLength(1);
    expect(tasksFor('HELD-7').map((created) => created.id)).toEqual([task?.id]);
  }, 30_000);

  it('reports the duplicates a lookup found while its POST was held, though that POST is answered later', async () => {
    // Two tasks of the order already (a first delivery and a repeat), made before this create.
    const earlier = client({ listingDelayMs: 0, timeout: 5000 });
    await earlier.tasks.create(orderParams('HELD-8'), { lookupFirst: false });
    await earlier.tasks.create(orderParams('HELD-8'), { repeatDelivery: true });
    expect(tasksFor('HELD-8')).toHaveLength(2);
    const { handler, served } = holdingFirstPost(TIMEOUT_MS + 1000);
    hostile.use(handler);
    // A store in use for a while, so the create sends without looking first (FRESH_STORE_MS).
    const store = await aged(memoryStore(), { baseUrl: `${hostile.url}/`, sellerId: hostile.mock.sellerId });
    const error = await client({ listingDelayMs: 300, store })
      .tasks.create(orderParams('HELD-8'), { lookupFirst: false })
      .catch((caught: unknown) => caught);
    await served;
    // Its own POST made a third: the caller is told of the duplicates, not handed one task of three.
    expect(tasksFor('HELD-8')).toHaveLength(3);
    expect(error).toBeInstanceOf(DuplicateTaskError);
  }, 20_000);

  it('sends again once the service closed the held connection and the listing delay passed with nothing listed', async () => {
    const listingDelayMs = 800;
    let closed = false;
    hostile.use(async (request, response, { forward }) => {
      if (request.method === 'POST' && !closed) {
        closed = true;
        await sleep(TIMEOUT_MS + 300);
        request.socket.destroy();
        return;
      }
      await passOn(response, forward);
    });
    const task = await client({ listingDelayMs }).tasks.create(orderParams('HELD-3'), { lookupFirst: false });
    expect(postsFor('HELD-3')).toHaveLength(1);
    expect(tasksFor('HELD-3').map((created) => created.id)).toEqual([task.id]);
  }, 20_000);

  it('abandons its held POST once the order record no longer covers it (the store stopped taking writes)', async () => {
    const listingDelayMs = 6000;
    const inner = memoryStore();
    let failing = false;
    const store: DeliveryStore = {
      get: (key) => inner.get(key),
      setIfAbsent: (key, value, ttlMs) => inner.setIfAbsent(key, value, ttlMs),
      delete: (key, expected) => inner.delete(key, expected),
      compareAndSet: (key, expected, value, ttlMs) =>
        failing
          ? Promise.reject(new Error('the store is down'))
          : inner.compareAndSet(key, expected, value, ttlMs),
    };
    let closedAt = 0;
    hostile.use(async (request, response, { forward }) => {
      if (request.method !== 'POST') return passOn(response, forward);
      // The POST arrives, then the store stops: the holder can no longer keep `until` ahead of it.
      failing = true;
      response.on('close', () => {
        closedAt = Date.now();
      });
    });
    const sdk = client({ listingDelayMs, store, storeTimeoutMs: 200 });
    const startedAt = Date.now();
    const error = await sdk.tasks
      .create(orderParams('HELD-4'), { lookupFirst: false })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    expect((error as Error).message).toMatch(/abandoned unanswered/);
    for (let waited = 0; closedAt === 0 && waited < 2000; waited += 20) await sleep(20);
    // Covered to the end of its attempt plus 1.25 s, not to the end of the listing delay.
    expect(closedAt - startedAt).toBeGreaterThan(TIMEOUT_MS);
    expect(closedAt - startedAt).toBeLessThan(TIMEOUT_MS + listingDelayMs - 2000);
    expect(hostile.mock.requestsFor('tasks.create')).toHaveLength(0);
  }, 20_000);

  it('ends its caller at once when it aborts, keeps the POST open, and the late answer is the task a later create gets', async () => {
    const { handler, served } = holdingFirstPost(TIMEOUT_MS + 1500);
    hostile.use(handler);
    const sdk = client({ listingDelayMs: 5000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), TIMEOUT_MS + 300);
    const error = await sdk.tasks
      .create(orderParams('HELD-5'), { lookupFirst: false, signal: controller.signal })
      .catch((caught: unknown) => caught);
    const abortedAt = Date.now();
    expect(error).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    expect((error as Error).message).toMatch(/aborted/);
    // The lease of the order is held until the POST ends: this create waits for it, then takes its task.
    const again = await sdk.tasks.create(orderParams('HELD-5'));
    await served;
    expect(Date.now() - abortedAt).toBeLessThan(5000);
    expect(postsFor('HELD-5')).toHaveLength(1);
    expect(tasksFor('HELD-5').map((created) => created.id)).toEqual([again.id]);
  }, 20_000);

  it('says when a retry can decide when its deadline passes while its first POST is still in its attempt', async () => {
    let postArrivedAt: number | undefined;
    hostile.use(async (request, response, { forward }) => {
      if (request.method !== 'POST') await passOn(response, forward);
      else {
        postArrivedAt ??= Date.now();
        // Closed after the caller's deadline: the POST is held until then.
        setTimeout(() => request.socket.destroy(), 3000);
      }
    });
    const listingDelayMs = 1000;
    const totalTimeout = 1000;
    // A store in use for a while: the create sends at once, without looking the order up first (a fresh
    // store's lookup could use up the deadline before the POST on a busy machine).
    const store = await aged(memoryStore(), { baseUrl: `${hostile.url}/`, sellerId: hostile.mock.sellerId });
    const startedAt = Date.now();
    const error = await client({ listingDelayMs, timeout: 2000, store })
      .tasks.create(orderParams('HELD-6'), { lookupFirst: false, totalTimeout })
      .catch((caught: unknown) => caught);
    const receivedAt = Date.now();
    expect(postArrivedAt, 'the POST reached the server before the deadline').toBeLessThan(
      startedAt + totalTimeout,
    );
    expect(error).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    // Its attempt ends with the deadline; the task may be listed a listing delay after that: not "at once".
    // `retryAfterMs` counts from the moment the error is made, at most `receivedAt`: however late a busy
    // machine makes it, the instant it names is the deadline plus the listing delay.
    const retryAt = receivedAt + ((error as TaskCreationOutcomeUnknownError).retryAfterMs ?? Number.NaN);
    expect(retryAt - startedAt).toBeGreaterThan(totalTimeout + listingDelayMs - 100);
    expect(retryAt - startedAt).toBeLessThan(totalTimeout + listingDelayMs + (receivedAt - startedAt));
  }, 20_000);
});
