import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DeliveryError,
  PaginationLimitError,
  type Task,
  TaskListPromise,
  TaskPage,
} from '../../../src/index.js';
import {
  DEFAULT_LIST_CONCURRENCY,
  type FetchTaskPage,
  MAX_REREADS,
} from '../../../src/resources/task-list/page.js';

/** A fake service of `total` tasks, `limit` per page, recording the pages asked for. */
function fakeService(total: number, limit = 10) {
  const asked: number[] = [];
  const fetchPage = async (page: number): Promise<TaskPage> => {
    asked.push(page);
    const tasks: Task[] = [];
    for (let index = (page - 1) * limit; index < Math.min(total, page * limit); index++)
      tasks.push({ id: `t${index}` });
    return new TaskPage({ tasks, page, limit, total, totalPages: Math.ceil(total / limit) }, fetchPage);
  };
  return { asked, fetchPage };
}

describe('TaskListPromise', () => {
  it('sends nothing until awaited or iterated, then fetches the first page once', async () => {
    const service = fakeService(25);
    const listing = new TaskListPromise(service.fetchPage, 1, { maxPages: 100, concurrency: 1 });
    expect(service.asked).toEqual([]);
    const page = await listing;
    expect(page.tasks).toHaveLength(10);
    const all: Task[] = [];
    for await (const task of listing) all.push(task);
    expect(all).toHaveLength(25);
    expect(service.asked).toEqual([1, 2, 3]);
  });

  it('starts at the requested page', async () => {
    const service = fakeService(25);
    const ids = (
      await new TaskListPromise(service.fetchPage, 3, { maxPages: 100, concurrency: 1 }).toArray()
    ).map((task) => task.id);
    expect(ids).toEqual(['t20', 't21', 't22', 't23', 't24']);
  });

  it('skips ids already yielded, and yields tasks without an id', async () => {
    const pages = [
      [{ id: 'a' }, { id: 'b' }],
      [{ id: 'b' }, { id: 'c' }, {}],
    ];
    const fetchPage = async (page: number): Promise<TaskPage> =>
      new TaskPage({ tasks: pages[page - 1] ?? [], page, limit: 3, total: 5, totalPages: 2 }, fetchPage);
    const tasks = await new TaskListPromise(fetchPage, 1, { maxPages: 10, concurrency: 1 }).toArray();
    expect(tasks).toEqual([{ id: 'a' }, { id: 'b' }, { id: 'c' }, {}]);
  });

  it('stops on an empty page even when more pages are reported', async () => {
    let calls = 0;
    const fetchPage = async (page: number): Promise<TaskPage> => {
      calls++;
      return new TaskPage(
        { tasks: page === 1 ? [{ id: 'x' }] : [], page, limit: 10, total: 50, totalPages: 5 },
        fetchPage,
      );
    };
    expect(await new TaskListPromise(fetchPage, 1, { maxPages: 10, concurrency: 1 }).toArray()).toEqual([
      { id: 'x' },
    ]);
    expect(calls).toBe(2);
  });

  it('throws PaginationLimitError after maxPages while more pages are reported', async () => {
    const service = fakeService(1000);
    const error = await new TaskListPromise(service.fetchPage, 1, { maxPages: 4, concurrency: 1 })
      .toArray()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PaginationLimitError);
    expect(service.asked).toEqual([1, 2, 3, 4]);
  });

  it('reads only the pages toArray needs for max', async () => {
    const service = fakeService(100);
    expect(
      await new TaskListPromise(service.fetchPage, 1, { maxPages: 100, concurrency: 1 }).toArray({ max: 15 }),
    ).toHaveLength(15);
    expect(service.asked).toEqual([1, 2]);
    expect(
      await new TaskListPromise(service.fetchPage, 1, { maxPages: 100, concurrency: 1 }).toArray({ max: 0 }),
    ).toEqual([]);
  });

  it('rejects getNextPage on the last page', async () => {
    const service = fakeService(5);
    const page = await new TaskListPromise(service.fetchPage, 1, { maxPages: 10, concurrency: 1 });
    expect(page.hasNextPage()).toBe(false);
    await expect(page.getNextPage()).rejects.toBeInstanceOf(DeliveryError);
  });

  it('passes a failure of the first page to await, catch and iteration alike', async () => {
    const failing = new TaskListPromise(() => Promise.reject(new DeliveryError('down')), 1, {
      maxPages: 10,
      concurrency: 1,
    });
    await expect(failing).rejects.toThrow('down');
    expect(await failing.catch((error: unknown) => (error as Error).message)).toBe('down');
    await expect(failing.toArray()).rejects.toThrow('down');
  });
});

/**
 * A listing sorted newest first whose pages are served when a fast-check scheduler says so, with
 * `inserts` new tasks added at the front (newest first; `atEnd`: at the end, oldest first) at scheduled
 * moments in between: offset pages shift under the walk, and pages requested together are served in any order.
 */
function shiftingService(
  scheduler: fc.Scheduler,
  initial: number,
  limit: number,
  inserts: number,
  atEnd = false,
) {
  const ids = Array.from({ length: initial }, (_, index) => `t${initial - 1 - index}`);
  const initialIds = [...ids];
  const requested: number[] = [];
  for (let index = 0; index < inserts; index++) {
    void scheduler.schedule(Promise.resolve(), `insert n${index}`).then(() => {
      if (atEnd) ids.push(`n${index}`);
      else ids.unshift(`n${index}`);
    });
  }
  const fetchPage: FetchTaskPage = (page) => {
    requested.push(page);
    return scheduler.schedule(Promise.resolve(), `serve page ${page}`).then(() => {
      const start = (page - 1) * limit;
      const tasks = ids.slice(start, start + limit).map((id) => ({ id }));
      return new TaskPage(
        { tasks, page, limit, totalPages: Math.ceil(ids.length / limit), total: ids.length },
        fetchPage,
      );
    });
  };
  return { initialIds, requested, fetchPage };
}

describe('TaskListPromise with concurrent pages', () => {
  it('requests pages ahead and yields them in page order when they resolve in reverse', async () => {
    const resolvers = new Map<number, () => void>();
    const asked: number[] = [];
    const fetchPage: FetchTaskPage = (page) => {
      asked.push(page);
      const tasks = [{ id: `p${page}a` }, { id: `p${page}b` }];
      const built = new TaskPage({ tasks, page, limit: 2, totalPages: 5, total: 10 }, fetchPage);
      if (page === 1) return Promise.resolve(built);
      return new Promise((resolve) => resolvers.set(page, () => resolve(built)));
    };
    const collected = new TaskListPromise(fetchPage, 1, { maxPages: 100, concurrency: 4 }).toArray();
    while (resolvers.size < 4) await new Promise((resolve) => setTimeout(resolve, 1));
    expect(asked).toEqual([1, 2, 3, 4, 5]);
    for (const page of [5, 4, 3, 2]) resolvers.get(page)?.();
    expect((await collected).map((task) => task.id)).toEqual([
      'p1a',
      'p1b',
      'p2a',
      'p2b',
      'p3a',
      'p3b',
      'p4a',
      'p4b',
      'p5a',
      'p5b',
    ]);
  });

  it('stops on an empty page whatever was requested after it', async () => {
    const fetchPage: FetchTaskPage = async (page) =>
      new TaskPage(
        {
          tasks: page === 1 ? [{ id: 'x' }] : page === 3 ? [{ id: 'y' }] : [],
          page,
          limit: 1,
          total: 5,
          totalPages: 5,
        },
        fetchPage,
      );
    const listing = new TaskListPromise(fetchPage, 1, {
      maxPages: 10,
      concurrency: DEFAULT_LIST_CONCURRENCY,
    });
    expect(await listing.toArray()).toEqual([{ id: 'x' }]);
  });

  it('reads pages again at most MAX_REREADS times a walk, from a service whose total keeps falling', async () => {
    const asked: number[] = [];
    let total = 100_000;
    const fetchPage: FetchTaskPage = async (page) => {
      asked.push(page);
      total--;
      const tasks = [{ id: `p${page}-${asked.length}` }];
      return new TaskPage({ tasks, page, limit: 1, totalPages: 200, total }, fetchPage);
    };
    await new TaskListPromise(fetchPage, 1, { maxPages: 1000, concurrency: 1 }).toArray();
    expect(new Set(asked).size).toBe(200);
    expect(asked).toHaveLength(200 + MAX_REREADS);
  });

  it('never requests a page past the last page the latest answer reports', async () => {
    const asked: number[] = [];
    const held = new Map<number, () => void>();
    const fetchPage: FetchTaskPage = (page) => {
      asked.push(page);
      // Page 1 reports 10 pages; by the time the others are served the listing has 3.
      const built = () =>
        new TaskPage(
          {
            tasks: page <= 3 ? [{ id: `p${page}` }] : [],
            page,
            limit: 1,
            totalPages: page === 1 ? 10 : 3,
            total: 3,
          },
          fetchPage,
        );
      if (page === 1) return Promise.resolve(built());
      return new Promise((resolve) => held.set(page, () => resolve(built())));
    };
    const walk = new TaskListPromise(fetchPage, 1, { maxPages: 100, concurrency: 4 }).toArray();
    while (held.size < 4) await new Promise((resolve) => setTimeout(resolve, 1));
    for (const page of [2, 3, 4, 5]) {
      held.get(page)?.();
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect((await walk).map((task) => task.id)).toEqual(['p1', 'p2', 'p3']);
    // 2…5 were asked on page 1's word; none after page 2 said there are 3.
    expect(asked).toEqual([1, 2, 3, 4, 5]);
  });

  it('never yields an id twice nor requests a page twice while tasks are added, whatever the serve order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 0, max: 40 }),
        fc.boolean(),
        async (scheduler, initial, limit, concurrency, inserts, atEnd) => {
          const service = shiftingService(scheduler, initial, limit, inserts, atEnd);
          const walk = new TaskListPromise(service.fetchPage, 1, { maxPages: 1000, concurrency }).toArray();
          const ids = (await scheduler.waitFor(walk)).map((task) => task.id ?? '');
          expect(new Set(ids).size).toBe(ids.length);
          expect(new Set(service.requested).size).toBe(service.requested.length);
          // Added at the end (oldest first) or one page at a time, no initial task is missed, and they
          // come in their listing order.
          if (atEnd) expect(ids.slice(0, initial)).toEqual(service.initialIds);
          if (concurrency === 1) expect(ids.filter((id) => id.startsWith('t'))).toEqual(service.initialIds);
        },
      ),
      { numRuns: 800 },
    );
  });

  it('against a service answering any contract-valid figures, requests at most MAX_REREADS + concurrency pages more than it hands over, none past a reported last page', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.tuple(fc.nat(400), fc.integer({ min: 1, max: 40 }), fc.nat(10)), {
          minLength: 1,
          maxLength: 80,
        }),
        async (scheduler, concurrency, answers) => {
          const asked: number[] = [];
          let largestAnswered = 0;
          let pastKnown = 0;
          const fetchPage: FetchTaskPage = (page) => {
            if (asked.length > 0 && page > largestAnswered) pastKnown++;
            const [total, totalPages, count] = answers[asked.length % answers.length] as [
              number,
              number,
              number,
            ];
            asked.push(page);
            const tasks = Array.from({ length: count }, (_, index) => ({ id: `r${asked.length}-${index}` }));
            return scheduler.schedule(Promise.resolve(), `serve page ${page}`).then(() => {
              largestAnswered = Math.max(largestAnswered, totalPages);
              return new TaskPage({ tasks, page, limit: 10, totalPages, total }, fetchPage);
            });
          };
          let handedOver = 0;
          const walk = (async () => {
            for await (const _page of new TaskListPromise(fetchPage, 1, {
              maxPages: 1000,
              concurrency,
            }).byPage())
              handedOver++;
          })();
          await scheduler.waitFor(walk);
          expect(pastKnown).toBe(0);
          expect(asked.length).toBeLessThanOrEqual(handedOver + MAX_REREADS + concurrency);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('with a window of W ids, never yields an id twice while at most W tasks are added', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 0, max: 80 }),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 6 }),
        fc
          .integer({ min: 0, max: 25 })
          .chain((window) => fc.tuple(fc.constant(window), fc.integer({ min: 0, max: window }))),
        async (scheduler, initial, limit, concurrency, [window, inserts]) => {
          const service = shiftingService(scheduler, initial, limit, inserts);
          const walk = new TaskListPromise(service.fetchPage, 1, {
            maxPages: 1000,
            concurrency,
            dedupeWindow: window,
          }).toArray();
          const ids = (await scheduler.waitFor(walk)).map((task) => task.id ?? '');
          expect(new Set(ids).size).toBe(ids.length);
          if (concurrency === 1) expect(ids.filter((id) => id.startsWith('t'))).toEqual(service.initialIds);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('forgets ids beyond the window: a task shifted further than it is yielded again (memory stays bounded)', async () => {
    // 50 tasks newest first; 12 are added at the front after page 2 is served, so the last two tasks of
    // page 1 (positions 8 and 9) are at 20 and 21 when page 3 is served.
    const walkWith = async (dedupeWindow: number) => {
      const ids = Array.from({ length: 50 }, (_, index) => `t${index}`);
      const fetchPage: FetchTaskPage = async (page) => {
        if (page === 3) ids.unshift(...Array.from({ length: 12 }, (_, index) => `n${index}`));
        const tasks = ids.slice((page - 1) * 10, page * 10).map((id) => ({ id }));
        return new TaskPage(
          { tasks, page, limit: 10, totalPages: Math.ceil(ids.length / 10), total: ids.length },
          fetchPage,
        );
      };
      const listed = await new TaskListPromise(fetchPage, 1, {
        maxPages: 100,
        concurrency: 1,
        dedupeWindow,
      }).toArray();
      return listed.map((task) => task.id ?? '');
    };
    const narrow = await walkWith(10);
    expect(narrow.filter((id) => id === 't8' || id === 't9')).toEqual(['t8', 't9', 't8', 't9']);
    const wide = await walkWith(20);
    expect(new Set(wide).size).toBe(wide.length);
    expect(wide.filter((id) => id.startsWith('t'))).toHaveLength(50);
  });
});
