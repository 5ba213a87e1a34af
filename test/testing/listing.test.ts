import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMockDeliveryService } from '../../src/testing.js';
import { callService, createTask, type TaskShape, taskBody } from './calls.js';

interface Page {
  tasks: TaskShape[];
  page: number;
  limit: number;
  totalPages: number;
  total: number;
}

// A clock that ticks one second per reading, so createdAt orders tasks.
let tick = Date.parse('2026-05-01T00:00:00.000Z');
const mock = createMockDeliveryService({
  now: () => {
    tick += 1000;
    return new Date(tick);
  },
  account: { type: 'invoice' },
});
beforeAll(() => mock.listen());
afterEach(() => mock.reset());
afterAll(() => mock.close());

async function list(query: Record<string, string | number | boolean> = {}): Promise<Page> {
  const result = await callService(mock, 'GET', 'tasks', { query });
  if (result.status !== 200) throw new Error(`list failed: ${result.status} ${JSON.stringify(result.body)}`);
  return result.body as Page;
}

async function listStatus(
  query: Record<string, string | number | boolean>,
): Promise<{ status: number; code: string | undefined }> {
  const result = await callService(mock, 'GET', 'tasks', { query });
  return { status: result.status, code: (result.body as { code?: string }).code };
}

async function createMany(
  orderNumbers: readonly string[],
  fields: (index: number) => Record<string, unknown> = () => ({}),
) {
  const created: TaskShape[] = [];
  for (const [index, orderNumber] of orderNumbers.entries()) {
    created.push(await createTask(mock, taskBody(orderNumber, fields(index))));
  }
  return created;
}

const orderNumbersOf = (tasks: readonly TaskShape[]) => tasks.map((task) => task.orderNumber);

describe('pagination', () => {
  it('splits 25 tasks into pages of 10, 10 and 5, newest first', async () => {
    const created = await createMany(Array.from({ length: 25 }, (_, index) => `ORD-${index + 1}`));
    const pages = [await list(), await list({ page: 2 }), await list({ page: 3, limit: 10 })];
    expect(pages.map((page) => page.tasks.length)).toEqual([10, 10, 5]);
    expect(pages.map(({ page, limit, totalPages, total }) => ({ page, limit, totalPages, total }))).toEqual([
      { page: 1, limit: 10, totalPages: Math.ceil(25 / 10), total: 25 },
      { page: 2, limit: 10, totalPages: Math.ceil(25 / 10), total: 25 },
      { page: 3, limit: 10, totalPages: Math.ceil(25 / 10), total: 25 },
    ]);
    const listed = pages.flatMap((page) => page.tasks);
    expect(listed.map((task) => task.id)).toEqual(created.map((task) => task.id).reverse());
  });

  it('answers an empty page past the end and totalPages 0 when nothing matches', async () => {
    await createMany(['ORD-1', 'ORD-2']);
    expect(await list({ page: 2 })).toEqual({ tasks: [], page: 2, limit: 10, totalPages: 1, total: 2 });
    expect(await list({ search: 'nothing-like-this' })).toEqual({
      tasks: [],
      page: 1,
      limit: 10,
      totalPages: 0,
      total: 0,
    });
  });

  it('honours a smaller limit', async () => {
    await createMany(['ORD-1', 'ORD-2', 'ORD-3']);
    const page = await list({ limit: 2 });
    expect(page).toMatchObject({ limit: 2, totalPages: 2, total: 3 });
    expect(orderNumbersOf(page.tasks)).toEqual(['ORD-3', 'ORD-2']);
  });

  it('shifts later pages when a task is created between two page reads', async () => {
    await createMany(Array.from({ length: 15 }, (_, index) => `ORD-${index + 1}`));
    const first = await list();
    await createTask(mock, taskBody('ORD-NEW'));
    const second = await list({ page: 2 });
    expect(second.tasks[0]?.id).toBe(first.tasks.at(-1)?.id);
  });

  it('answers 400 for a limit, page, ignoreRegex or sortOrder out of its rules', async () => {
    const bad = [
      { limit: 11 },
      { limit: 0 },
      { limit: 2.5 },
      { limit: 'ten' },
      { page: 0 },
      { page: -1 },
      { ignoreRegex: 'yes' },
      { sortOrder: 2 },
    ];
    for (const query of bad) {
      expect({ query, ...(await listStatus(query)) }).toEqual({ query, status: 400, code: 'BAD_REQUEST' });
    }
  });

  it('treats empty parameters as absent', async () => {
    expect(
      (await listStatus({ limit: '', page: '', ignoreRegex: '', sortOrder: '', sortBy: '', search: '' }))
        .status,
    ).toBe(200);
  });
});

describe('search', () => {
  it('matches the literal text with ignoreRegex=true, even with regex characters', async () => {
    await createMany(['ORD-CPP', 'ORD-C', 'ORD-EVIL', 'ORD-AAA'], (index) => ({
      customerName: ['C++ Trading', 'C Trading', 'Shop (a+)+$', 'aaaaaaaa'][index],
    }));
    expect(orderNumbersOf((await list({ search: 'C++', ignoreRegex: true })).tasks)).toEqual(['ORD-CPP']);
    expect(orderNumbersOf((await list({ search: '(a+)+$', ignoreRegex: true })).tasks)).toEqual(['ORD-EVIL']);
  });

  it('treats the search as a regular expression by default and with ignoreRegex=false', async () => {
    const orderNumbers = ['ORD-1', 'ORD-10', 'ORD-15', 'ORD-19', 'ORD-2', 'ORD-21', 'X-ORD-1A'];
    await createMany(orderNumbers);
    const pattern = 'ORD-1\\d';
    const expected = orderNumbers
      .filter((orderNumber) => new RegExp(pattern, 'i').test(orderNumber))
      .reverse();
    expect(expected.length).toBeGreaterThan(0);
    expect(orderNumbersOf((await list({ search: pattern })).tasks)).toEqual(expected);
    expect(orderNumbersOf((await list({ search: pattern, ignoreRegex: false })).tasks)).toEqual(expected);
    expect((await list({ search: pattern, ignoreRegex: true })).tasks).toEqual([]);
  });

  it('ignores letter case', async () => {
    await createMany(['ord-lower', 'ORD-UPPER']);
    expect(orderNumbersOf((await list({ search: 'ORD-LOWER', ignoreRegex: true })).tasks)).toEqual([
      'ord-lower',
    ]);
    expect(orderNumbersOf((await list({ search: '^ord-upper$' })).tasks)).toEqual(['ORD-UPPER']);
  });

  it('looks at the customer number, delivery zone and id too', async () => {
    const [byNumber, byZone, byId] = await createMany(
      ['ORD-N', 'ORD-Z', 'ORD-I'],
      (index) => [{ customerNumber: '+96599887766' }, { deliveryZone: 'Hawally' }, {}][index] ?? {},
    );
    expect(orderNumbersOf((await list({ search: '99887766', ignoreRegex: true })).tasks)).toEqual([
      byNumber?.orderNumber,
    ]);
    expect(orderNumbersOf((await list({ search: 'hawally', ignoreRegex: true })).tasks)).toEqual([
      byZone?.orderNumber,
    ]);
    expect(orderNumbersOf((await list({ search: byId?.id ?? '', ignoreRegex: true })).tasks)).toEqual([
      byId?.orderNumber,
    ]);
  });

  it('answers 400 for an invalid or overlong regular expression', async () => {
    expect(await listStatus({ search: 'C++' })).toEqual({ status: 400, code: 'BAD_REQUEST' });
    expect(await listStatus({ search: 'a'.repeat(201) })).toEqual({ status: 400, code: 'BAD_REQUEST' });
    expect((await listStatus({ search: 'a'.repeat(201), ignoreRegex: true })).status).toBe(200);
  });

  it('runs a catastrophic pattern in linear time: (a+)+$ against a…a! finds nothing, and answers', async () => {
    await createMany(['ORD-EVIL'], () => ({ customerName: `${'a'.repeat(60)}!` }));
    expect(await list({ search: '(a+)+$' })).toMatchObject({ tasks: [], total: 0 });
    expect(orderNumbersOf((await list({ search: '^(a+)+!$' })).tasks)).toEqual(['ORD-EVIL']);
  });

  it('answers 400 for lookarounds and backreferences, naming what is not supported', async () => {
    for (const search of ['(?=a)', '(?<!a)b', '(a)\\1', '\\bORD']) {
      const result = await callService(mock, 'GET', 'tasks', { query: { search } });
      expect(result.status, search).toBe(400);
      expect(JSON.stringify(result.body), search).toMatch(/do not support/);
    }
  });

  it('answers 400 for a search needing more steps than its bound over the tasks', async () => {
    await createMany(
      Array.from({ length: 40 }, (_, index) => `ORD-${index}`),
      () => ({ customerName: 'b'.repeat(100) }),
    );
    const costly = `(${'.*'.repeat(90)}){2}z`;
    const result = await callService(mock, 'GET', 'tasks', { query: { search: costly } });
    expect(result.status).toBe(400);
    expect(JSON.stringify(result.body)).toMatch(/steps/);
  });
});

describe('sorting', () => {
  const names = ['Mona', 'Ali', 'Zaid', 'Huda'];

  it('sorts by customerName in either order', async () => {
    await createMany(['ORD-1', 'ORD-2', 'ORD-3', 'ORD-4'], (index) => ({ customerName: names[index] }));
    const ascending = [...names].sort();
    const namesOf = (page: Page) => page.tasks.map((task) => task.customerName);
    expect(namesOf(await list({ sortBy: 'customerName' }))).toEqual(ascending);
    expect(namesOf(await list({ sortBy: 'customerName', sortOrder: 1 }))).toEqual(ascending);
    expect(namesOf(await list({ sortBy: 'customerName', sortOrder: -1 }))).toEqual([...ascending].reverse());
  });

  it('sorts by createdAt and orderNumber', async () => {
    const orderNumbers = ['ORD-C', 'ORD-A', 'ORD-D', 'ORD-B'];
    await createMany(orderNumbers);
    expect(orderNumbersOf((await list({ sortBy: 'createdAt' })).tasks)).toEqual(orderNumbers);
    expect(orderNumbersOf((await list({ sortBy: 'createdAt', sortOrder: -1 })).tasks)).toEqual(
      [...orderNumbers].reverse(),
    );
    expect(orderNumbersOf((await list({ sortBy: 'orderNumber' })).tasks)).toEqual([...orderNumbers].sort());
  });

  it('sorts by status and updatedAt after tasks move on, ties in creation order', async () => {
    const [first, , third] = await createMany(['ORD-1', 'ORD-2', 'ORD-3', 'ORD-4']);
    await mock.advance(first?.id ?? '', 'accepted');
    await mock.advance(third?.id ?? '');
    // ORD-1 accepted, ORD-2 pending, ORD-3 requested (changed last), ORD-4 pending.
    expect(orderNumbersOf((await list({ sortBy: 'status' })).tasks)).toEqual([
      'ORD-1',
      'ORD-2',
      'ORD-4',
      'ORD-3',
    ]);
    expect(orderNumbersOf((await list({ sortBy: 'updatedAt', sortOrder: -1 })).tasks)).toEqual([
      'ORD-3',
      'ORD-1',
      'ORD-4',
      'ORD-2',
    ]);
  });

  it('lists newest first when sortBy is empty or unknown', async () => {
    const orderNumbers = ['ORD-1', 'ORD-2', 'ORD-3'];
    await createMany(orderNumbers);
    const newestFirst = [...orderNumbers].reverse();
    expect(orderNumbersOf((await list({ sortBy: '' })).tasks)).toEqual(newestFirst);
    expect(orderNumbersOf((await list({ sortBy: 'colour', sortOrder: 1 })).tasks)).toEqual(newestFirst);
  });
});

describe('the regular-expression search budget', () => {
  it('stops inside the scan of one field, the last one searched included', async () => {
    const { listPage, parseListQuery, SearchTooCostlyError, SEARCHED_FIELDS } = await import(
      '../../src/testing/listing.js'
    );
    const field = SEARCHED_FIELDS.at(-1) as string;
    const record = {
      seq: 1,
      task: { id: 'x', [field]: 'a'.repeat(200_000) },
      feeFils: 0,
      walletDeducted: false,
      pickupAddress: [],
      events: [],
      completedAt: undefined,
    } as unknown as Parameters<typeof listPage>[0][number];
    const query = parseListQuery(new URLSearchParams({ search: '((a?){100}){9}q', ignoreRegex: 'false' }));
    if (!query.ok) throw new Error(query.message);
    expect(() => listPage([record], query.value)).toThrow(SearchTooCostlyError);
  });
});
