/**
 * `handler.sync()` against services that do not hold still or do not sort as asked: tasks that progress
 * (and so move to the top by `updatedAt`) while the walk reads, a service that ignores the sort, and times
 * without a zone read on a machine in Kuwait (UTC+3). Deliveries are lost by having no webhook URL: every
 * status reaches `onEvent` through `sync()` or not at all.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { SchemaDrift, Task } from '../../src/index.js';
import { createWebhookHandler, type WebhookEvent } from '../../src/webhooks/index.js';
import { clientOf, orderParams, useMockService } from '../support/mock-service.js';

// Before any time is read: Node reads TZ again when it is set, in this worker process only.
const zone = process.env.TZ;
process.env.TZ = 'Asia/Kuwait';
afterAll(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

/** The mock's clock: `undefined` for the real time. */
let clock: number | undefined;
const { mock } = useMockService({ account: { type: 'invoice' }, now: () => new Date(clock ?? Date.now()) });

/** A seeded generator of numbers in [0, 1) (mulberry32). */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** `count` tasks created at once through the mock's own POST; their ids, in creation order. */
async function createTasks(label: string, count: number): Promise<string[]> {
  const known = new Set(mock.tasks.map((task) => task.id));
  await Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const response = await fetch(`${mock.baseUrl}/tasks`, {
        method: 'POST',
        headers: {
          authorization: `apikey ${mock.apiKey}`,
          'x-seller-id': mock.sellerId,
          'content-type': 'application/json',
        },
        body: JSON.stringify(orderParams(`${label}-${index}`)),
      });
      expect(response.status).toBe(200);
    }),
  );
  return mock.tasks.map((task) => task.id ?? '').filter((id) => !known.has(id));
}

/** Moves each task to delivered; no webhook URL is set, so every delivery is lost. */
async function deliver(ids: readonly string[]): Promise<void> {
  for (const id of ids) await mock.advance(id, 'delivered');
}

/** A handler of `client` collecting its events and drift; `syncSkewMs: 0` so the checkpoint is exact. */
function handlerOf(client: ReturnType<typeof clientOf>) {
  const events: WebhookEvent[] = [];
  const drifts: SchemaDrift[] = [];
  const errors: unknown[] = [];
  const handler = createWebhookHandler({
    client,
    confirm: false,
    syncSkewMs: 0,
    logLevel: 'off',
    onEvent: (event) => void events.push(event),
    onError: (error) => void errors.push(error),
    onDrift: (drift) => void drifts.push(drift),
  });
  const statusesOf = (taskId: string) =>
    events.filter((event) => event.taskId === taskId).map((event) => event.status);
  return { handler, events, drifts, errors, statusesOf };
}

const ORDER_DRIFT = {
  operation: 'tasks.list',
  path: 'tasks',
  expected: 'sorted by updatedAt, newest first',
  received: 'another order',
  action: 'read-all',
};

describe('sync() over tasks that move while it walks', () => {
  it('catches every lost delivery in one round, and every status moved during it in the next', async () => {
    clock = undefined;
    const delivered = await createTasks('LOST', 60);
    const moving = await createTasks('MOVING', 60);
    // Each list request waits 0–10 ms (seeded), so requests sent together are served in any order; once
    // served, 4 of the moving tasks move one step: to the top by updatedAt, pushing the others down.
    const random = seeded(37);
    let moves = true;
    let served = 0;
    const client = clientOf(mock, {
      fetch: async (input, init) => {
        const url = new URL(input instanceof Request ? input.url : String(input));
        const listing = url.pathname.endsWith('/tasks') && (init?.method ?? 'GET') === 'GET';
        if (listing) await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 10)));
        const response = await fetch(input, init);
        if (listing) {
          served++;
          for (let move = 0; moves && move < 4; move++) {
            const id = moving[Math.floor(random() * moving.length)] ?? '';
            if (mock.task(id)?.status !== 'delivered') await mock.advance(id);
          }
        }
        return response;
      },
    });
    // Created before the deliveries: without a store it can tell they were lost (gaps).
    const { handler, drifts, errors, statusesOf } = handlerOf(client);
    await deliver(delivered);

    const first = await handler.sync();
    await handler.idle();
    expect(errors).toEqual([]);
    const missed = delivered.filter((id) => !statusesOf(id).includes('delivered'));
    expect(missed, `${missed.length} of ${delivered.length} lost deliveries not caught`).toEqual([]);
    expect(first.gaps).toBeGreaterThanOrEqual(delivered.length);
    expect(served).toBeGreaterThanOrEqual(12);

    moves = false;
    await handler.sync();
    await handler.idle();
    // Every task's status now, by a webhook or a sync: none left behind the checkpoint.
    const behind = [...delivered, ...moving].filter((id) => {
      const status = mock.task(id)?.status ?? '';
      return !statusesOf(id).includes(status);
    });
    expect(behind, `${behind.length} tasks whose status never reached onEvent`).toEqual([]);
    expect(drifts).toEqual([]);
  });
});

describe('sync() over a service that ignores the sort', () => {
  it('reads on to the end, passes all 25 lost deliveries to onEvent, and reports the drift once', async () => {
    // 30 tasks updated a day ago (1 s apart), then 25 delivered now.
    const dayAgo = Date.now() - 86_400_000;
    clock = dayAgo;
    const old: string[] = [];
    for (let index = 0; index < 30; index++) {
      clock = dayAgo + index * 1000;
      old.push(...(await createTasks(`OLD-${index}`, 1)));
    }
    clock = undefined;
    const { handler, drifts, errors, statusesOf } = handlerOf(clientOf(mock));
    const lost = await createTasks('LOST', 25);
    await deliver(lost);
    mock.inject({ kind: 'sort', operation: 'tasks.list', times: Number.POSITIVE_INFINITY });
    const before = mock.requestsFor('tasks.list').length;

    const result = await handler.sync();
    await handler.idle();
    expect(errors).toEqual([]);
    expect(lost.filter((id) => !statusesOf(id).includes('delivered'))).toEqual([]);
    expect(result).toMatchObject({ tasks: 25, processed: 25, gaps: 25 });
    expect(old.every((id) => statusesOf(id).length === 0)).toBe(true);
    // Oldest first: every page of the listing (55 tasks), one after another.
    expect(
      mock
        .requestsFor('tasks.list')
        .slice(before)
        .map((request) => request.query.page),
    ).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(drifts).toEqual([ORDER_DRIFT]);
  });

  it('costs an honest service nothing more: it stops at the first page holding an older task', async () => {
    const dayAgo = Date.now() - 86_400_000;
    clock = dayAgo;
    await createTasks('OLD', 30);
    clock = undefined;
    const { handler, drifts, statusesOf } = handlerOf(clientOf(mock));
    const lost = await createTasks('LOST', 25);
    await deliver(lost);
    const before = mock.requestsFor('tasks.list').length;
    const result = await handler.sync();
    await handler.idle();
    expect(result).toMatchObject({ tasks: 25, processed: 25, gaps: 25 });
    expect(lost.filter((id) => !statusesOf(id).includes('delivered'))).toEqual([]);
    // Pages 1–3: the 25 delivered now, then page 3 holds older tasks.
    expect(
      mock
        .requestsFor('tasks.list')
        .slice(before)
        .map((request) => request.query.page),
    ).toEqual(['1', '2', '3']);
    expect(drifts).toEqual([]);
  });
});

describe('sync() on a machine in Asia/Kuwait', () => {
  it('runs in that zone: Date reads a time without a zone as Kuwait time', () => {
    expect(new Date('2026-11-20T13:00:00').toISOString()).toBe('2026-11-20T10:00:00.000Z');
  });

  it('reads an updatedAt without a zone as UTC: all 25 lost deliveries caught, the drift reported once', async () => {
    clock = undefined;
    const lost = await createTasks('LOST', 25);
    await deliver(lost);
    mock.inject({
      kind: 'drift',
      operation: 'tasks.list',
      mutations: ['times-without-zone'],
      times: Infinity,
    });
    const { handler, drifts, statusesOf } = handlerOf(clientOf(mock));
    const listed: Task[] = await clientOf(mock).tasks.list().toArray();
    expect(listed[0]?.updatedAt).not.toMatch(/Z$/);
    const result = await handler.sync();
    await handler.idle();
    expect(result).toMatchObject({ tasks: 25, processed: 25 });
    expect(lost.filter((id) => !statusesOf(id).includes('delivered'))).toEqual([]);
    expect(drifts).toEqual([
      {
        operation: 'tasks.list',
        path: 'tasks.0.updatedAt',
        expected: 'date-time in UTC',
        received: 'date-time without a zone',
        action: 'coerced',
      },
    ]);
  });
});
