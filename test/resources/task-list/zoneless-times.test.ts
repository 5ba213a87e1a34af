/**
 * Times without a zone (`2026-11-20T13:00:00`), read on a machine in Kuwait (UTC+3): as UTC, never in the
 * machine's zone, and reported as drift once: by a creation window and by the reconciliation of a create
 * whose outcome was unknown. `readServiceTime` itself, form by form.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { SchemaDrift, Task } from '../../../src/index.js';
import { readServiceTime } from '../../../src/schemas/service-time.js';
import { orderParams, useMockService } from '../../support/mock-service.js';

// Before any time is read: Node reads TZ again when it is set, in this worker process only.
const zone = process.env.TZ;
process.env.TZ = 'Asia/Kuwait';
afterAll(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

const T0 = Date.parse('2026-11-01T00:00:00.000Z');
const HOUR = 3_600_000;
/** The mock's clock: while seeding (`undefined`), task i is created at T0 + i hours; `null`: the real time. */
let clock: number | undefined | null;
const { mock, client } = useMockService({
  account: { type: 'invoice' },
  now: () => new Date(clock === null ? Date.now() : (clock ?? T0 + mock.tasks.length * HOUR)),
});

const iso = (hours: number) => new Date(T0 + hours * HOUR).toISOString();
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);
/** The hour after T0 each task was created at (written without a zone: UTC), ascending. */
const indexes = (tasks: readonly Task[]) =>
  tasks
    .map((task) => (Date.parse(`${task.createdAt?.replace(/Z$/, '')}Z`) - T0) / HOUR)
    .toSorted((a, b) => a - b);

/** `count` tasks at once through the mock's own POST, task i created at T0 + i hours. */
async function seed(count: number): Promise<void> {
  clock = undefined;
  const post = async (index: number) => {
    const response = await fetch(`${mock.baseUrl}/tasks`, {
      method: 'POST',
      headers: {
        authorization: `apikey ${mock.apiKey}`,
        'x-seller-id': mock.sellerId,
        'content-type': 'application/json',
      },
      body: JSON.stringify(orderParams(`N-${index}`)),
    });
    expect(response.status).toBe(200);
  };
  await Promise.all(range(0, count - 1).map(post));
  clock = T0 + 1000 * HOUR;
}

const ZONELESS = {
  expected: 'date-time in UTC',
  received: 'date-time without a zone',
  action: 'coerced',
} as const;

describe('on a machine in Asia/Kuwait', () => {
  it('runs in that zone: Date reads a time without a zone as Kuwait time', () => {
    expect(new Date('2026-11-20T13:00:00').toISOString()).toBe('2026-11-20T10:00:00.000Z');
    expect(new Date(2026, 10, 20).getTimezoneOffset()).toBe(-180);
  });

  it('a creation window over zoneless createdAt keeps all 20 tasks, and reports the drift once', async () => {
    await seed(40);
    mock.inject({
      kind: 'drift',
      operation: 'tasks.list',
      mutations: ['times-without-zone'],
      times: Infinity,
    });
    expect((await client().tasks.list()).tasks[0]?.createdAt).toBe(iso(39).slice(0, -1));
    const drifts: SchemaDrift[] = [];
    const sdk = client({ onDrift: (drift) => void drifts.push(drift) });
    const after = await sdk.tasks.list({ createdAfter: iso(20) }).toArray();
    expect(indexes(after)).toEqual(range(20, 39));
    expect(drifts).toEqual([{ operation: 'tasks.list', path: 'tasks.0.createdAt', ...ZONELESS }]);
    const before = await sdk.tasks.list({ createdAfter: iso(5), createdBefore: iso(25) }).toArray();
    expect(indexes(before)).toEqual(range(5, 24));
    expect(drifts).toHaveLength(2);
  });

  it('a create whose POST was answered by a dropped connection finds its task listed with a zoneless createdAt', async () => {
    clock = null;
    mock.inject({ kind: 'commit-then-drop', operation: 'tasks.create' });
    mock.inject({
      kind: 'drift',
      operation: 'tasks.list',
      mutations: ['times-without-zone'],
      times: Infinity,
    });
    const drifts: SchemaDrift[] = [];
    const task = await client({ onDrift: (drift) => void drifts.push(drift) }).tasks.create(
      orderParams('ORD-KW-1'),
    );
    expect(mock.tasks.map((created) => created.id)).toEqual([task.id]);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    expect(drifts).toContainEqual({ operation: 'tasks.create', path: 'tasks.0.createdAt', ...ZONELESS });
  });
});

describe('readServiceTime', () => {
  const utc = (text: string) => Date.parse(text);

  it('reads a zoned time as written, a zoneless one and a date as UTC, and says which', () => {
    const cases: Array<[string, number, string]> = [
      ['2026-11-20T13:00:00Z', utc('2026-11-20T13:00:00Z'), 'zoned'],
      ['2026-11-20T13:00:00.123456789z', utc('2026-11-20T13:00:00.123Z'), 'zoned'],
      ['2026-11-20T13:00:00+03:00', utc('2026-11-20T10:00:00Z'), 'zoned'],
      ['2026-11-20T13:00:00+0300', utc('2026-11-20T10:00:00Z'), 'zoned'],
      ['2026-11-20 13:00-05', utc('2026-11-20T18:00:00Z'), 'zoned'],
      ['2026-11-20T13:00:00', utc('2026-11-20T13:00:00Z'), 'zoneless'],
      ['2026-11-20T13:00:00.5', utc('2026-11-20T13:00:00.500Z'), 'zoneless'],
      ['2026-11-20 13:00', utc('2026-11-20T13:00:00Z'), 'zoneless'],
      ['2026-11-20', utc('2026-11-20T00:00:00Z'), 'date'],
    ];
    for (const [text, ms, form] of cases) expect(readServiceTime(text), text).toEqual({ ms, form });
    // A year before 100 stays itself (Date.UTC would read 50 as 1950).
    expect(new Date(readServiceTime('0050-01-01T00:00:00Z')?.ms ?? 0).getUTCFullYear()).toBe(50);
  });

  it('reads nothing but ISO 8601 text of a real date and time', () => {
    for (const value of [
      '2026-02-30T00:00:00Z',
      '2026-11-20T24:00:00Z',
      '2026-11-20T13:60:00Z',
      '2026-11-20T13:00:00+24:00',
      'Fri, 20 Nov 2026 13:00:00 GMT',
      '11/20/2026 13:00',
      '1763643600000',
      '',
      1_763_643_600_000,
      null,
      undefined,
    ]) {
      expect(readServiceTime(value), String(value)).toBeUndefined();
    }
  });
});
