/**
 * Exactly-once creation (src/creation/exactly-once-creation.ts): one flight per order in a process, the narrow
 * search for the exact order. Answers that are not rejections (3xx, unreadable error bodies) are in
 * test/reliability/hostile-server.test.ts, over real sockets.
 */
import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APIUserAbortError,
  InsufficientBalanceError,
  ResponseValidationError,
  type Task,
  TaskCreationOutcomeUnknownError,
} from '../../../src/index.js';
import { redisStore } from '../../../src/redis.js';
import { exactPattern } from '../../../src/resources/task-creation/order-lookup.js';
import { orderParams, useMockService } from '../../support/mock-service.js';
import {
  describeWithRedis,
  ownsRedisServer,
  type RedisServer,
  startRedisServer,
} from '../../support/redis-server.js';

const { mock, client } = useMockService({ account: { type: 'wallet', balance: 5000 } });

const tasksFor = (orderNumber: string) => mock.tasks.filter((task) => task.orderNumber === orderNumber);

describe('one flight per order', () => {
  it('sends one POST for 50 concurrent creates of one order, and every caller gets the same task', async () => {
    const sdk = client();
    const results = await Promise.all(
      Array.from({ length: 50 }, () => sdk.tasks.create(orderParams('SF-1'))),
    );
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    expect(tasksFor('SF-1')).toHaveLength(1);
    expect(mock.wallet.feesCharged).toBe(1);
    expect(new Set(results.map((task) => task.id))).toEqual(new Set([tasksFor('SF-1')[0]?.id]));
  });

  it('shares the flight between clients of the same seller, not between sellers', async () => {
    // The flights are the subject, counted by their POSTs: no lookup before sending.
    const first = client({ lookupFirst: false });
    const second = client({ lookupFirst: false });
    const [a, b] = await Promise.all([
      first.tasks.create(orderParams('SF-2')),
      second.tasks.create(orderParams('SF-2')),
    ]);
    expect(a.id).toBe(b.id);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    const otherSeller = client({ sellerId: 'another-seller', lookupFirst: false });
    await Promise.allSettled([
      first.tasks.create(orderParams('SF-3')),
      otherSeller.tasks.create(orderParams('SF-3')),
    ]);
    // The other seller's request is its own flight (the mock refuses it: a different seller id).
    expect(mock.requestsFor('tasks.create')).toHaveLength(3);
  });

  it('reconciles once for 50 callers when the first request is committed and then dropped', async () => {
    mock.inject({ operation: 'tasks.create', kind: 'commit-then-drop' });
    const sdk = client();
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, () => sdk.tasks.create(orderParams('SF-4'))),
    );
    expect(results.every((result) => result.status === 'fulfilled')).toBe(true);
    const ids = new Set(results.map((result) => (result as PromiseFulfilledResult<Task>).value.id));
    expect(ids).toEqual(new Set([tasksFor('SF-4')[0]?.id]));
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    expect(mock.wallet.feesCharged).toBe(1);
  });

  it('gives every caller the same typed error when the create is rejected', async () => {
    mock.inject({
      operation: 'tasks.create',
      kind: 'status',
      status: 402,
      body: { message: 'Insufficient wallet balance', code: 'INSUFFICIENT_BALANCE' },
      times: Number.POSITIVE_INFINITY,
    });
    const sdk = client();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => sdk.tasks.create(orderParams('SF-5'))),
    );
    const reasons = results.map((result) => (result.status === 'rejected' ? result.reason : result.value));
    expect(reasons[0]).toBeInstanceOf(InsufficientBalanceError);
    expect(new Set(reasons).size).toBe(1);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
  });

  it('leaves creates without an orderNumber alone: each one is sent', async () => {
    const sdk = client();
    const { orderNumber: _omitted, ...params } = orderParams('unused');
    await Promise.all(Array.from({ length: 5 }, () => sdk.tasks.create(params)));
    expect(mock.requestsFor('tasks.create')).toHaveLength(5);
  });

  it('lets one caller stop waiting while the others get the task, and sends once', async () => {
    mock.inject({ operation: 'tasks.create', kind: 'delay', ms: 100 });
    const sdk = client();
    const leaving = new AbortController();
    const first = sdk.tasks.create(orderParams('SF-6'), { signal: leaving.signal });
    const second = sdk.tasks.create(orderParams('SF-6'));
    setTimeout(() => leaving.abort(), 20);
    await expect(first).rejects.toBeInstanceOf(TaskCreationOutcomeUnknownError);
    expect((await second).orderNumber).toBe('SF-6');
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    expect(tasksFor('SF-6')).toHaveLength(1);
  });

  it('aborts the request when its only caller aborts before it is sent', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      client().tasks.create(orderParams('SF-7'), { signal: controller.signal }),
    ).rejects.toBeInstanceOf(APIUserAbortError);
    expect(mock.requestsFor('tasks.create')).toHaveLength(0);
  });

  it('starts a new flight once the previous one has settled', async () => {
    const sdk = client();
    mock.inject({ operation: 'tasks.create', kind: 'status', status: 400 });
    await expect(sdk.tasks.create(orderParams('SF-8'))).rejects.toThrow();
    expect((await sdk.tasks.create(orderParams('SF-8'))).orderNumber).toBe('SF-8');
    expect(mock.requestsFor('tasks.create')).toHaveLength(2);
  });
});

/** Creates ORD-1000 … ORD-1119: 120 recent orders whose number contains "ORD-1" (12 pages of a literal search). */
async function createNearMatches(sdk: ReturnType<typeof client>): Promise<void> {
  // Setup, not the subject: order numbers new by construction, sent without a lookup.
  for (let index = 0; index < 120; index++)
    await sdk.tasks.create(orderParams(`ORD-1${String(index).padStart(3, '0')}`), { lookupFirst: false });
}

describe('the narrow search for the exact order', () => {
  it('escapes every regular-expression character and anchors the pattern', () => {
    expect(exactPattern('ORD-1')).toBe('^ORD-1$');
    expect(exactPattern('a.b*c+d?(e)[f]{g}|h^i$j\\k')).toBe(
      '^a\\.b\\*c\\+d\\?\\(e\\)\\[f\\]\\{g\\}\\|h\\^i\\$j\\\\k$',
    );
    expect(new RegExp(exactPattern('a.b*(c)')).test('a.b*(c)')).toBe(true);
    expect(new RegExp(exactPattern('a.b*(c)')).test('axb*(c)')).toBe(false);
  });

  it('finds ORD-1 among 120 recent orders containing "ORD-1" within the page cap', async () => {
    const sdk = client();
    await createNearMatches(sdk);
    mock.inject({ operation: 'tasks.create', kind: 'commit-then-drop' });
    const task = await sdk.tasks.create(orderParams('ORD-1'));
    expect(task.orderNumber).toBe('ORD-1');
    expect(tasksFor('ORD-1')).toHaveLength(1);
    // One lookup before the POST (no store: lookupFirst), then at most two reconciling it: one page each.
    expect(mock.requestsFor('tasks.list').length).toBeLessThanOrEqual(3);
  });

  it('resends once when ORD-1 is absent among 120 near matches, creating it exactly once', async () => {
    const sdk = client();
    await createNearMatches(sdk);
    mock.inject({ operation: 'tasks.create', kind: 'network-error' });
    const task = await sdk.tasks.create(orderParams('ORD-1'));
    const listed = mock.requestsFor('tasks.list').length;
    expect(task.orderNumber).toBe('ORD-1');
    expect(tasksFor('ORD-1')).toHaveLength(1);
    expect(
      mock
        .requestsFor('tasks.create')
        .filter((request) => (request.body as { orderNumber?: string }).orderNumber === 'ORD-1'),
    ).toHaveLength(2);
    // Sent again: the order is looked up once more after the listing delay (late-commit.ts); waited for
    // here, so that lookup does not land in the next test's requests.
    const until = Date.now() + 5000;
    while (mock.requestsFor('tasks.list').length === listed && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(mock.requestsFor('tasks.list')).toHaveLength(listed + 1);
  });
});

describe('a remembered order whose task is gone', () => {
  it('after mock.reset(), creating the same order looks it up, then creates one new task with one POST', async () => {
    const sdk = client();
    const before = await sdk.tasks.create(orderParams('RS-1'));
    mock.reset();
    const after = await sdk.tasks.create(orderParams('RS-1'));
    expect(after.id).not.toBe(before.id);
    expect(mock.task(after.id)?.orderNumber).toBe('RS-1');
    expect(tasksFor('RS-1')).toHaveLength(1);
    // After the reset: the remembered task answered 404, the order was looked up, then sent once.
    expect(mock.requests.map((request) => request.operation)).toEqual([
      'tasks.retrieve',
      'tasks.list',
      'tasks.create',
    ]);
    expect(mock.requests[0]?.status).toBe(404);
    // The new task is remembered in place of the old one: a third create sends nothing.
    expect((await sdk.tasks.create(orderParams('RS-1'))).id).toBe(after.id);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
  });

  it('returns the order it finds by lookup when the remembered task is gone but another one exists', async () => {
    const sdk = client();
    const before = await sdk.tasks.create(orderParams('RS-2'));
    mock.reset();
    // Another client (another process, say) created the order again after the reset.
    const other = await client().tasks.create(orderParams('RS-2'));
    expect(other.id).not.toBe(before.id);
    const again = await sdk.tasks.create(orderParams('RS-2'));
    expect(again.id).toBe(other.id);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    expect(tasksFor('RS-2')).toHaveLength(1);
  });
});

describe('reading back a remembered task confirms it', () => {
  it('refuses an answer without an id (ResponseValidationError), where tasks.retrieve fills it: nothing shows it is the task', async () => {
    const sdk = client();
    const created = await sdk.tasks.create(orderParams('RB-1'));
    mock.inject({
      operation: 'tasks.retrieve',
      kind: 'status',
      status: 200,
      body: { status: 'pending' },
      times: 2,
    });
    const error = await sdk.tasks.create(orderParams('RB-1')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues).toEqual([expect.objectContaining({ path: 'id' })]);
    expect(await sdk.tasks.retrieve(created.id)).toMatchObject({ id: created.id, status: 'pending' });
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
  });
});

describe('reading back a remembered task that does not answer', () => {
  it("keeps reading within the create's totalTimeout: a slow service costs time, not the task", async () => {
    const sdk = client({ timeout: 200, maxRetries: 0 });
    const created = await sdk.tasks.create(orderParams('RB-SLOW-1'));
    mock.inject({ operation: 'tasks.retrieve', kind: 'network-error', times: 3 });
    const again = await sdk.tasks.create(orderParams('RB-SLOW-1'), { totalTimeout: 10_000 });
    expect(again.id).toBe(created.id);
    expect(mock.requestsFor('tasks.retrieve').length).toBeGreaterThanOrEqual(4);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
  });

  it('ends at the deadline with TaskCreationOutcomeUnknownError naming the task, never "no task was created"', async () => {
    const sdk = client({ timeout: 200, maxRetries: 0 });
    const created = await sdk.tasks.create(orderParams('RB-SLOW-2'));
    mock.inject({ operation: 'tasks.retrieve', kind: 'delay', ms: 5_000, times: 50 });
    const error = await sdk.tasks
      .create(orderParams('RB-SLOW-2'), { totalTimeout: 1_000 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    expect((error as TaskCreationOutcomeUnknownError).candidateTaskIds).toEqual([created.id]);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
  });
});

describeWithRedis('a remembered order whose task is gone, over a shared Redis store', () => {
  let redis: RedisServer;
  let io: IORedis;
  beforeAll(async () => {
    redis = await startRedisServer();
    io = new IORedis(redis.url, { maxRetriesPerRequest: 1 }).on('error', () => {});
  });
  afterAll(async () => {
    io?.disconnect();
    if (ownsRedisServer) await redis?.stop();
  });

  it('after mock.reset(), a second instance creating the same order sends one POST and both then get the new task', async () => {
    const prefix = `reset-${randomUUID()}:`;
    const first = client({ store: redisStore(io, { prefix }) });
    const second = client({ store: redisStore(io, { prefix }) });
    const before = await first.tasks.create(orderParams('RS-3'));
    mock.reset();
    const after = await second.tasks.create(orderParams('RS-3'));
    expect(after.id).not.toBe(before.id);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    // The shared record now names the new task: the first instance gets it without a POST.
    expect((await first.tasks.create(orderParams('RS-3'))).id).toBe(after.id);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    expect(tasksFor('RS-3')).toHaveLength(1);
  }, 30_000);
});
