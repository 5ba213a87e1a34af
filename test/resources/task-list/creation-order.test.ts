/**
 * A creation window against a service that does not sort as asked (the mock's `sort` fault): the walk
 * stops early only on an order it has seen, reads on to the end (or `maxPages`) on a page out of order or a
 * later page newer than the one before it, and reports that drift once; an honest service costs nothing more.
 */
import { describe, expect, it } from 'vitest';
import { PaginationLimitError, type SchemaDrift, type Task, type TaskPage } from '../../../src/index.js';
import type { MockDeliveryService } from '../../../src/testing.js';
import { orderParams, useMockService } from '../../support/mock-service.js';

const T0 = Date.parse('2026-11-01T00:00:00.000Z');
const HOUR = 3_600_000;
/** The mock's clock: while seeding (`undefined`), task i is created at T0 + i hours. */
let clock: number | undefined;
const { mock, client } = useMockService({
  account: { type: 'invoice' },
  now: () => new Date(clock ?? T0 + mock.tasks.length * HOUR),
});

/** POSTs one task through the mock's own endpoint (no SDK lookups). */
async function post(index: number, customerName: string): Promise<void> {
  const response = await fetch(`${mock.baseUrl}/tasks`, {
    method: 'POST',
    headers: {
      authorization: `apikey ${mock.apiKey}`,
      'x-seller-id': mock.sellerId,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ ...orderParams(`N-${index}`), customerName }),
  });
  expect(response.status).toBe(200);
}

/** `count` tasks, task i created at T0 + i hours: all at once, or in turn when `nameOf` names each. */
async function seed(count: number, nameOf?: (index: number) => string): Promise<void> {
  clock = undefined;
  if (nameOf === undefined)
    await Promise.all(range(0, count - 1).map((index) => post(index, `Customer ${index}`)));
  else for (const index of range(0, count - 1)) await post(index, nameOf(index));
  clock = T0 + 1000 * HOUR;
}

const iso = (hours: number) => new Date(T0 + hours * HOUR).toISOString();
/** The hour after T0 each task was created at, ascending: task i of `seed`. */
const indexes = (tasks: readonly Task[]) =>
  tasks.map((task) => (Date.parse(task.createdAt ?? '') - T0) / HOUR).toSorted((a, b) => a - b);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);
const listRequests = (service: MockDeliveryService) => service.requestsFor('tasks.list').length;

/** A client collecting what it reports through `onDrift`, and its warnings. */
function reporting() {
  const drifts: SchemaDrift[] = [];
  const warnings: string[] = [];
  const logger = { debug() {}, info() {}, warn: (line: string) => void warnings.push(line), error() {} };
  return {
    drifts,
    warnings,
    sdk: client({ onDrift: (drift) => void drifts.push(drift), logger, logLevel: 'warn' }),
  };
}

const ORDER_DRIFT = {
  operation: 'tasks.list',
  path: 'tasks',
  expected: 'sorted by createdAt, newest first',
  received: 'another order',
  action: 'read-all',
};

describe('a creation window over a service that ignores the sort', () => {
  it('reads every page of a service answering oldest first, finds all 20 tasks of the window, and reports it once', async () => {
    await seed(40);
    mock.inject({ kind: 'sort', operation: 'tasks.list', times: Number.POSITIVE_INFINITY });
    const { drifts, warnings, sdk } = reporting();
    const before = listRequests(mock);
    const tasks = await sdk.tasks.list({ createdAfter: iso(20) }).toArray();
    expect(indexes(tasks)).toEqual(range(20, 39));
    expect(warnings).toEqual([
      expect.stringMatching(
        /Schema drift in tasks\.list: tasks came as another order where sorted by createdAt, newest first was asked for; the walk reads on/,
      ),
    ]);
    // Every page of the listing (4), one after another: nothing asked for beyond its end.
    expect(
      mock
        .requestsFor('tasks.list')
        .slice(before)
        .map((request) => request.query.page),
    ).toEqual(['1', '2', '3', '4']);
    expect(drifts).toEqual([ORDER_DRIFT]);
  });

  it('reads on when the service sorts by updatedAt instead', async () => {
    await seed(40);
    // Every task updated once, in a scrambled order: updatedAt no longer follows createdAt.
    const ids = mock.tasks.map((task) => task.id ?? '');
    for (const index of range(0, 39).map((index) => (index * 17) % 40)) {
      clock = (clock ?? 0) + HOUR;
      await mock.advance(ids[index] ?? '');
    }
    mock.inject({ kind: 'sort', sortBy: 'updatedAt', sortOrder: -1, times: Number.POSITIVE_INFINITY });
    const { drifts, sdk } = reporting();
    const tasks = await sdk.tasks.list({ createdAfter: iso(20) }).toArray();
    expect(indexes(tasks)).toEqual(range(20, 39));
    expect(drifts).toEqual([ORDER_DRIFT]);
  });

  it('does not stop on a first page of one task, which shows no order: pages of one task, sorted by updatedAt', async () => {
    await seed(3);
    // Task 0 updated last: served first by updatedAt, newest first; tasks 1 and 2 are in the window.
    clock = T0 + 100 * HOUR;
    await mock.advance(mock.tasks[0]?.id ?? '');
    mock.inject({ kind: 'sort', sortBy: 'updatedAt', sortOrder: -1, times: Number.POSITIVE_INFINITY });
    const { drifts, sdk } = reporting();
    const tasks = await sdk.tasks.list({ createdAfter: iso(1), limit: 1 }).toArray();
    expect(indexes(tasks)).toEqual([1, 2]);
    expect(drifts).toEqual([ORDER_DRIFT]);
  });

  it('reads on past a page in order whose first task is newer than the last of the page before', async () => {
    // Served by customerName: page 1 = tasks 19…10, page 2 = 29…25 then 4…0 (in order within itself,
    // holding tasks older than the bound), page 3 = 24…20 then 9…5. Window: tasks 5 and later.
    const served = [...range(10, 19), ...range(25, 29), ...range(0, 4), ...range(20, 24), ...range(5, 9)];
    const positions = new Map(served.map((taskIndex, position) => [taskIndex, position]));
    await seed(30, (index) => {
      const page = Math.floor((positions.get(index) ?? 0) / 10);
      return `p${page}-${String(99 - index).padStart(2, '0')}`;
    });
    mock.inject({ kind: 'sort', sortBy: 'customerName', sortOrder: 1, times: Number.POSITIVE_INFINITY });
    const { drifts, sdk } = reporting();
    const before = listRequests(mock);
    const tasks = await sdk.tasks.list({ createdAfter: iso(5) }).toArray();
    expect(indexes(tasks)).toEqual(range(5, 29));
    expect(listRequests(mock) - before).toBe(3);
    expect(drifts).toEqual([ORDER_DRIFT]);

    // The same, a page at a time with getNextPage(): page 2 is not the last.
    const first = await client().tasks.list({ createdAfter: iso(5) });
    const second = await first.getNextPage();
    expect(indexes(second.tasks)).toEqual(range(25, 29));
    expect(second.hasNextPage()).toBe(true);
    expect(indexes((await second.getNextPage()).tasks)).toEqual([...range(5, 9), ...range(20, 24)]);
  });

  it('tells from the first page alone that it is out of order: hasNextPage() stays true', async () => {
    await seed(40);
    mock.inject({ kind: 'sort', times: Number.POSITIVE_INFINITY });
    const pages: TaskPage[] = [await client().tasks.list({ createdAfter: iso(20) })];
    while (pages.at(-1)?.hasNextPage()) pages.push(await (pages.at(-1) as TaskPage).getNextPage());
    expect(pages.map((page) => page.page)).toEqual([1, 2, 3, 4]);
    expect(indexes(pages.flatMap((page) => page.tasks))).toEqual(range(20, 39));
  });

  it('reads on oldest first too: a createdBefore walk over a service answering newest first', async () => {
    await seed(40);
    mock.inject({ kind: 'sort', sortOrder: -1, times: Number.POSITIVE_INFINITY });
    const { drifts, sdk } = reporting();
    const tasks = await sdk.tasks
      .list({ createdBefore: iso(15), sortBy: 'createdAt', sortOrder: 1 })
      .toArray();
    expect(indexes(tasks)).toEqual(range(0, 14));
    expect(drifts).toEqual([{ ...ORDER_DRIFT, expected: 'sorted by createdAt, oldest first' }]);
  });

  it('stops at maxPages while reading on, with PaginationLimitError', async () => {
    await seed(40);
    mock.inject({ kind: 'sort', times: Number.POSITIVE_INFINITY });
    const { drifts, sdk } = reporting();
    const before = listRequests(mock);
    const error = await sdk.tasks
      .list({ createdAfter: iso(20) }, { maxPages: 2 })
      .toArray()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PaginationLimitError);
    expect(listRequests(mock) - before).toBe(2);
    expect(drifts).toEqual([ORDER_DRIFT]);
  });

  it('tells tasks pushed onto the next page by tasks created during the walk from tasks out of order', async () => {
    await seed(40);
    // After each page is served, 3 tasks are created: the last 3 of that page move onto the next.
    let created = 0;
    const drifts: SchemaDrift[] = [];
    const sdk = client({
      onDrift: (drift) => void drifts.push(drift),
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (new URL(input instanceof Request ? input.url : String(input)).pathname.endsWith('/tasks')) {
          for (let count = 0; count < 3; count++) await post(100 + created++, 'New');
        }
        return response;
      },
    });
    const before = listRequests(mock);
    const tasks = await sdk.tasks.list({ createdAfter: iso(20) }).toArray();
    expect(indexes(tasks).slice(0, 20)).toEqual(range(20, 39));
    // Pages 1–3, as over a listing held still; no task yielded twice, no drift.
    expect(listRequests(mock) - before).toBe(3);
    expect(new Set(tasks.map((task) => task.id)).size).toBe(tasks.length);
    expect(drifts).toEqual([]);
  });

  it('costs an honest service nothing: the same requests, no drift', async () => {
    await seed(40);
    const { drifts, sdk } = reporting();
    const before = listRequests(mock);
    const tasks = await sdk.tasks.list({ createdAfter: iso(20) }).toArray();
    expect(indexes(tasks)).toEqual(range(20, 39));
    // Page 1 (39…30), page 2 (29…20), page 3 (19…10: older than the window, the last read).
    expect(listRequests(mock) - before).toBe(3);
    expect(drifts).toEqual([]);
  });
});
