/**
 * The mock's faults for a service that lists and dates its own way (docs/testing.md): `sort` answers
 * `GET tasks` in an order of its own whatever the request asked, and the `times-without-zone` drift
 * mutation writes each date-time as its UTC wall time without `Z`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMockDeliveryService, type MockFaultRule } from '../../src/testing.js';
import { callService, createTask, taskBody } from './calls.js';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-20T00:00:00.000Z');
let clock = T0;
const mock = createMockDeliveryService({ now: () => new Date(clock) });
beforeAll(() => mock.listen());
afterEach(() => mock.reset());
afterAll(() => mock.close());

interface ListedTask {
  orderNumber: string;
  createdAt: string;
  updatedAt: string;
  statusHistory?: { timestamp?: string }[];
}

/** Order numbers of one page, asked newest created first. */
async function orderNumbersOf(query: Record<string, string | number> = {}): Promise<string[]> {
  const result = await callService(mock, 'GET', 'tasks', {
    query: { sortBy: 'createdAt', sortOrder: -1, ...query },
  });
  return (result.body as { tasks: ListedTask[] }).tasks.map((task) => task.orderNumber);
}

async function seedFive(): Promise<void> {
  for (let index = 0; index < 5; index++) {
    clock = T0 + index * HOUR;
    await createTask(mock, taskBody(`ORD-${index}`));
  }
}

describe('the sort fault', () => {
  it('answers oldest first by default, whatever the request asked, then the asked order again', async () => {
    await seedFive();
    expect(await orderNumbersOf()).toEqual(['ORD-4', 'ORD-3', 'ORD-2', 'ORD-1', 'ORD-0']);
    mock.inject({ kind: 'sort', times: 2 });
    expect(await orderNumbersOf()).toEqual(['ORD-0', 'ORD-1', 'ORD-2', 'ORD-3', 'ORD-4']);
    expect(await orderNumbersOf({ sortBy: 'orderNumber' })).toEqual([
      'ORD-0',
      'ORD-1',
      'ORD-2',
      'ORD-3',
      'ORD-4',
    ]);
    expect(await orderNumbersOf()).toEqual(['ORD-4', 'ORD-3', 'ORD-2', 'ORD-1', 'ORD-0']);
    expect(mock.requestsFor('tasks.list').map((request) => request.fault)).toEqual([
      undefined,
      'sort',
      'sort',
      undefined,
    ]);
  });

  it('sorts by the field and direction it names', async () => {
    await seedFive();
    clock = T0 + 10 * HOUR;
    const second = mock.tasks[1]?.id ?? '';
    await mock.advance(second);
    mock.inject({ kind: 'sort', sortBy: 'updatedAt', sortOrder: -1 });
    expect(await orderNumbersOf()).toEqual(['ORD-1', 'ORD-4', 'ORD-3', 'ORD-2', 'ORD-0']);
  });

  it('applies to tasks.list only, and refuses a malformed rule', async () => {
    mock.inject({ kind: 'sort' });
    expect((await callService(mock, 'GET', 'tasks/branches')).status).toBe(200);
    expect(mock.requests[0]?.fault).toBeUndefined();
    const bad: unknown[] = [
      { kind: 'sort', operation: 'tasks.create' },
      { kind: 'sort', sortOrder: 0 },
      { kind: 'sort', sortBy: 3 },
    ];
    for (const rule of bad) expect(() => mock.inject(rule as MockFaultRule), JSON.stringify(rule)).toThrow();
  });
});

describe('the times-without-zone drift mutation', () => {
  it('writes every date-time of an answer as its UTC wall time, and only when asked', async () => {
    await seedFive();
    mock.inject({ kind: 'drift', operation: 'tasks.list' });
    const plain = (await callService(mock, 'GET', 'tasks')).body as { tasks: ListedTask[] };
    expect(plain.tasks[0]?.createdAt).toMatch(/Z$/);
    mock.inject({ kind: 'drift', operation: 'tasks.list', mutations: ['times-without-zone'] });
    const drifted = (await callService(mock, 'GET', 'tasks')).body as { tasks: ListedTask[] };
    const [first] = drifted.tasks;
    expect(first?.createdAt).toBe(new Date(T0 + 4 * HOUR).toISOString().slice(0, -1));
    expect(first?.updatedAt).toBe(first?.createdAt);
    expect(first?.statusHistory?.[0]?.timestamp).toBe(first?.createdAt);
    expect(drifted.tasks.map((task) => `${task.createdAt}Z`)).toEqual(
      plain.tasks.map((task) => task.createdAt),
    );
  });
});
