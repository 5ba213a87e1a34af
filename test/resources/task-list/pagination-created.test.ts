/**
 * `tasks.list({ createdAfter, createdBefore })` against the mock, counting requests: filtered on the
 * client, newest first unless the caller sorts otherwise, stopping at the first page older than
 * `createdAfter`, never sent to the service; with `for await`, `.byPage()`, `.toArray()` and concurrency.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { RequestValidationError, type Task } from '../../../src/index.js';
import type { TaskListParams } from '../../../src/schemas.js';
import { orderParams, useMockService } from '../../support/mock-service.js';

const T0 = Date.parse('2026-11-01T00:00:00.000Z');
const HOUR = 3_600_000;
let clock = T0;
const { mock, client } = useMockService({ now: () => new Date(clock) });

/** 35 tasks `N-0` … `N-34`, task i created at T0 + 6 i hours (4 pages of 10). */
async function seed(): Promise<void> {
  const creating = client();
  for (let index = 0; index < 35; index++) {
    clock = T0 + index * 6 * HOUR;
    await creating.tasks.create(orderParams(`N-${index}`));
  }
  clock = T0 + 240 * HOUR;
}

const iso = (hours: number) => new Date(T0 + hours * HOUR).toISOString();
const orders = (tasks: readonly Task[]) => tasks.map((task) => task.orderNumber);
/** `N-from` … `N-to`, newest first. */
const newestFirst = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, index) => `N-${to - index}`);

describe('tasks.list by creation time', () => {
  it('lists the tasks of a window newest first, in 2 requests, sending neither bound', async () => {
    await seed();
    const before = mock.requestsFor('tasks.list').length;
    // Tasks 17 … 31: created at or after 100 h, before 190 h.
    const tasks = await client()
      .tasks.list({ createdAfter: iso(100), createdBefore: iso(190) })
      .toArray();
    expect(orders(tasks)).toEqual(newestFirst(17, 31));
    const requests = mock.requestsFor('tasks.list').slice(before);
    // Page 1 (tasks 34…25), page 2 (24…15, older than the window: the last page read).
    expect(requests.map((request) => request.query.page)).toEqual(['1', '2']);
    for (const request of requests) {
      expect(request.query).toMatchObject({ sortBy: 'createdAt', sortOrder: '-1' });
      expect(Object.keys(request.query).some((key) => key.startsWith('created'))).toBe(false);
    }
  });

  it('works with for await, byPage, await and Date bounds', async () => {
    await seed();
    const params = { createdAfter: new Date(T0 + 100 * HOUR) };
    const seen: Task[] = [];
    for await (const task of client().tasks.list(params)) seen.push(task);
    expect(orders(seen)).toEqual(newestFirst(17, 34));
    const pages: string[][] = [];
    const more: boolean[] = [];
    for await (const page of client().tasks.list(params).byPage()) {
      pages.push(orders(page.tasks) as string[]);
      more.push(page.hasNextPage());
    }
    expect(pages).toEqual([newestFirst(25, 34), newestFirst(17, 24)]);
    // The page holding tasks older than createdAfter is the last, though the service reports 4.
    expect(more).toEqual([true, false]);
    const first = await client().tasks.list({ createdBefore: iso(190) });
    expect(orders(first.tasks)).toEqual(newestFirst(25, 31));
    expect(first.hasNextPage()).toBe(true);
    expect(orders((await first.getNextPage()).tasks)).toEqual(newestFirst(15, 24));
  });

  it('reads ahead with an explicit concurrency, and yields the same tasks', async () => {
    await seed();
    const before = mock.requestsFor('tasks.list').length;
    const tasks = await client()
      .tasks.list({ createdAfter: iso(100) }, { concurrency: 3 })
      .toArray();
    expect(orders(tasks)).toEqual(newestFirst(17, 34));
    // Page 1, then pages 2–4 at once; what follows page 2 is aborted.
    expect(mock.requestsFor('tasks.list').length - before).toBeLessThanOrEqual(1 + 3);
  });

  it('filters without stopping early when the caller sorts otherwise', async () => {
    await seed();
    const before = mock.requestsFor('tasks.list').length;
    const tasks = await client()
      .tasks.list({ createdAfter: iso(100), createdBefore: iso(190), sortBy: 'orderNumber' })
      .toArray();
    expect(new Set(orders(tasks))).toEqual(new Set(newestFirst(17, 31)));
    const requests = mock.requestsFor('tasks.list').slice(before);
    expect(requests).toHaveLength(4);
    expect(requests[0]?.query.sortBy).toBe('orderNumber');
  });

  it('refuses a bad bound naming the field, and sends nothing', async () => {
    const before = mock.requestsFor('tasks.list').length;
    const cases: Array<[TaskListParams, string]> = [
      [{ createdAfter: 'last week' }, 'createdAfter'],
      [{ createdBefore: new Date(Number.NaN) }, 'createdBefore'],
      [{ createdAfter: '2026-11-01T00:00:00' }, 'createdAfter'],
      [{ createdAfter: '2026-02-30' }, 'createdAfter'],
      [{ createdAfter: 12 as never }, 'createdAfter'],
      [{ createdAfter: iso(10), createdBefore: iso(5) }, 'createdBefore'],
    ];
    for (const [params, field] of cases) {
      const error = await client()
        .tasks.list(params)
        .toArray()
        .catch((caught: unknown) => caught);
      expect(error, JSON.stringify(params)).toBeInstanceOf(RequestValidationError);
      expect((error as RequestValidationError).issues.map((issue) => issue.path)).toEqual([field]);
    }
    expect(mock.requestsFor('tasks.list').length - before).toBe(0);
    expectTypeOf<TaskListParams['createdAfter']>().toEqualTypeOf<string | Date | undefined>();
  });
});
