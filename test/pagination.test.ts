import { describe, expect, it } from 'vitest';
import { DeliveryError, PaginationLimitError, type Task, TaskListPromise, TaskPage } from '../src/index.js';

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
    const listing = new TaskListPromise(service.fetchPage, 1, 100);
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
    const ids = (await new TaskListPromise(service.fetchPage, 3, 100).toArray()).map((task) => task.id);
    expect(ids).toEqual(['t20', 't21', 't22', 't23', 't24']);
  });

  it('skips ids already yielded, and yields tasks without an id', async () => {
    const pages = [
      [{ id: 'a' }, { id: 'b' }],
      [{ id: 'b' }, { id: 'c' }, {}],
    ];
    const fetchPage = async (page: number): Promise<TaskPage> =>
      new TaskPage({ tasks: pages[page - 1] ?? [], page, limit: 3, total: 5, totalPages: 2 }, fetchPage);
    const tasks = await new TaskListPromise(fetchPage, 1, 10).toArray();
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
    expect(await new TaskListPromise(fetchPage, 1, 10).toArray()).toEqual([{ id: 'x' }]);
    expect(calls).toBe(2);
  });

  it('throws PaginationLimitError after maxPages while more pages are reported', async () => {
    const service = fakeService(1000);
    const error = await new TaskListPromise(service.fetchPage, 1, 4).toArray().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PaginationLimitError);
    expect(service.asked).toEqual([1, 2, 3, 4]);
  });

  it('reads only the pages toArray needs for max', async () => {
    const service = fakeService(100);
    expect(await new TaskListPromise(service.fetchPage, 1, 100).toArray({ max: 15 })).toHaveLength(15);
    expect(service.asked).toEqual([1, 2]);
    expect(await new TaskListPromise(service.fetchPage, 1, 100).toArray({ max: 0 })).toEqual([]);
  });

  it('rejects getNextPage on the last page', async () => {
    const service = fakeService(5);
    const page = await new TaskListPromise(service.fetchPage, 1, 10);
    expect(page.hasNextPage()).toBe(false);
    await expect(page.getNextPage()).rejects.toBeInstanceOf(DeliveryError);
  });

  it('passes a failure of the first page to await, catch and iteration alike', async () => {
    const failing = new TaskListPromise(() => Promise.reject(new DeliveryError('down')), 1, 10);
    await expect(failing).rejects.toThrow('down');
    expect(await failing.catch((error: unknown) => (error as Error).message)).toBe('down');
    await expect(failing.toArray()).rejects.toThrow('down');
  });
});
