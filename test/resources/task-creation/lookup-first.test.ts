/**
 * Exactly-once across restarts (README "Exactly-once creation"; docs/exactly-once.md "Across restarts"):
 * without a store, whose memory ends with the process, `tasks.create` looks its order up before the first
 * POST, one list request inside the call's deadline, so an order created by an earlier process is
 * returned, not created again. With a store its record answers; `lookupFirst` turns the lookup on or off.
 * A repeat delivery's lookup names the order's earlier deliveries, which its reconciliation leaves out.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  DuplicateTaskError,
  memoryStore,
  PaginationLimitError,
  RequestValidationError,
  TaskCreationOutcomeUnknownError,
} from '../../../src/index.js';
import { createMockDeliveryService, type MockHttpServer, startMockHttpServer } from '../../../src/testing.js';
import { aged } from '../../support/aged-store.js';
import { orderParams, useMockService } from '../../support/mock-service.js';
import { outputOf } from '../../support/process-output.js';
import type { RestartConfig, RestartOutcome } from '../../support/restart-worker.js';
import { ROOT } from '../../support/root.js';
import { scriptArgs } from '../../support/source-script.js';

/** How far the mock's clock is ahead of the machine's, ms: a first delivery "a minute ago". */
let clockOffsetMs = 0;
const { mock, client } = useMockService({
  account: { type: 'wallet', balance: 50_000 },
  now: () => new Date(Date.now() + clockOffsetMs),
});
const tasksFor = (orderNumber: string) => mock.tasks.filter((task) => task.orderNumber === orderNumber);
/** Requests before this index are left out of {@link operations} (the mock's log since the last `mark()`). */
let marked = 0;
const mark = () => {
  marked = mock.requests.length;
};
const operations = () => mock.requests.slice(marked).map((request) => request.operation);
beforeEach(() => {
  marked = 0;
});
const scope = { baseUrl: mock.baseUrl, sellerId: mock.sellerId };

/** A store in use for a while (its epoch an hour old), as a shared store would be: creates do not look first. */
function warmStore() {
  return aged(memoryStore(), scope, 3_600_000);
}

describe('without a store, a create looks its order up before the first POST', () => {
  it('sends one list request (the exact pattern, one page) and then the POST', async () => {
    const task = await client().tasks.create(orderParams('LF-1'));
    expect(operations()).toEqual(['tasks.list', 'tasks.create']);
    expect(mock.requestsFor('tasks.list')[0]?.query).toMatchObject({
      search: '^LF-1$',
      ignoreRegex: 'false',
    });
    expect(tasksFor('LF-1').map((each) => each.id)).toEqual([task.id]);
  });

  it('returns the task of an order created by an earlier process (a new client, a new memory store): no POST, logged', async () => {
    const earlier = await client().tasks.create(orderParams('LF-2'));
    const infos: string[] = [];
    const logger = { debug() {}, info: (line: string) => infos.push(line), warn() {}, error() {} };
    const restarted = client({ logger, logLevel: 'info' });
    mark();
    expect((await restarted.tasks.create(orderParams('LF-2'))).id).toBe(earlier.id);
    expect(operations()).toEqual(['tasks.list']);
    expect(tasksFor('LF-2')).toHaveLength(1);
    expect(mock.wallet.feesCharged).toBe(1);
    expect(infos.join('\n')).toContain(
      `Order LF-2 was looked up before sending; its task exists: ${earlier.id}`,
    );
    // Remembered now: a third create reads it back by id, without a lookup.
    mark();
    expect((await restarted.tasks.create(orderParams('LF-2'))).id).toBe(earlier.id);
    expect(operations()).toEqual(['tasks.retrieve']);
  });

  it('throws DuplicateTaskError, sending nothing, when it finds several tasks of the order', async () => {
    const first = await client().tasks.create(orderParams('LF-3'));
    const second = await client().tasks.create(orderParams('LF-3'), { repeatDelivery: true });
    mark();
    const error = await client()
      .tasks.create(orderParams('LF-3'))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DuplicateTaskError);
    expect([...(error as DuplicateTaskError).taskIds].sort()).toEqual([first.id, second.id].sort());
    expect(operations()).toEqual(['tasks.list']);
  });

  it('cannot look without an orderNumber: sent at once', async () => {
    const { orderNumber: _orderNumber, ...params } = orderParams('LF-NONE');
    await client().tasks.create(params);
    expect(operations()).toEqual(['tasks.create']);
  });

  it('stops a repeat delivery whose POST was lost on the way back when the listing has no ids: its task cannot be told from the first', async () => {
    const first = await client().tasks.create(orderParams('LF-REPEAT-NOID'));
    // The service lists tasks without their ids.
    const listsWithoutIds: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const response = await fetch(request);
      if (request.method !== 'GET' || !new URL(request.url).pathname.endsWith('/tasks')) return response;
      const body = (await response.json()) as { tasks?: Record<string, unknown>[] };
      return Response.json({
        ...body,
        tasks: (body.tasks ?? []).map(({ id: _id, _id: _mongoId, ...task }) => task),
      });
    };
    mock.inject({ operation: 'tasks.create', kind: 'commit-then-drop' });
    const repeat = await client({ fetch: listsWithoutIds })
      .tasks.create(orderParams('LF-REPEAT-NOID'), { repeatDelivery: true })
      .catch((caught: unknown) => caught);
    expect(repeat).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    // The first delivery and the repeat's one committed POST: never a third task.
    expect(tasksFor('LF-REPEAT-NOID')).toHaveLength(2);
    expect(tasksFor('LF-REPEAT-NOID')[0]?.id).toBe(first.id);
  });

  it('makes "creating it again looks it up first" true in a new process: one task after an unknown outcome', async () => {
    mock.inject({ operation: 'tasks.create', kind: 'commit-then-drop' });
    mock.inject({ operation: 'tasks.list', kind: 'status', status: 503, times: Number.POSITIVE_INFINITY });
    const first = await client({ maxRetries: 0 })
      .tasks.create(orderParams('LF-4'), { lookupFirst: false })
      .catch((caught: unknown) => caught);
    expect(first).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    expect((first as Error).message).toMatch(/creating it again (in \d+ ms )?looks it up first/);
    mock.clearFaults();
    // A new process: a new client with a new memory store, which knows nothing of the first create.
    const task = await client().tasks.create(orderParams('LF-4'));
    expect(tasksFor('LF-4').map((each) => each.id)).toEqual([task.id]);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
  });

  it("fails with the lookup's error, sending nothing, when the lookup cannot finish (a service ignoring the search)", async () => {
    // Every task matches the search as the service answers it: 12 pages of other orders, past the 10-page cap.
    for (let index = 0; index < 120; index++) {
      await client().tasks.create(orderParams(`LF-OTHER-${index}`), { lookupFirst: false });
    }
    mock.inject({ operation: 'tasks.list', kind: 'status', status: 400, times: 1 });
    mark();
    const error = await client()
      .tasks.create({ ...orderParams('LF-'), orderNumber: 'LF-' }, { lookupFirst: true })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PaginationLimitError);
    expect(operations().filter((operation) => operation === 'tasks.list')).toHaveLength(10);
    expect(operations()).not.toContain('tasks.create');
  });
});

describe('lookupFirst', () => {
  it('false on the call, or on the client, sends the POST alone; true on the call wins over the client', async () => {
    await client().tasks.create(orderParams('LF-OFF-1'), { lookupFirst: false });
    await client({ lookupFirst: false }).tasks.create(orderParams('LF-OFF-2'));
    expect(operations()).toEqual(['tasks.create', 'tasks.create']);
    mark();
    await client({ lookupFirst: false }).tasks.create(orderParams('LF-ON-1'), { lookupFirst: true });
    expect(operations()).toEqual(['tasks.list', 'tasks.create']);
  });

  it('is off by default with a store, whose record answers; true forces it', async () => {
    const store = await warmStore();
    await client({ store }).tasks.create(orderParams('LF-STORE-1'));
    expect(operations()).toEqual(['tasks.create']);
    mark();
    await client({ store: await warmStore() }).tasks.create(orderParams('LF-STORE-2'), { lookupFirst: true });
    expect(operations()).toEqual(['tasks.list', 'tasks.create']);
    mark();
    await client({ store: await warmStore(), lookupFirst: true }).tasks.create(orderParams('LF-STORE-3'));
    expect(operations()).toEqual(['tasks.list', 'tasks.create']);
  });

  it('is refused unless a boolean: RequestValidationError on the call, ConfigurationError on the client', async () => {
    const error = await client()
      .tasks.create(orderParams('LF-BAD'), { lookupFirst: 'yes' as unknown as boolean })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues[0]?.path).toBe('options.lookupFirst');
    expect(() => client({ lookupFirst: 1 as unknown as boolean })).toThrow(ConfigurationError);
    expect(mock.requests).toHaveLength(0);
  });
});

describe("a repeat delivery's reconciliation leaves the order's earlier deliveries out", () => {
  /** The order's first delivery, created a minute before now by the mock's clock. */
  async function firstDelivery(orderNumber: string) {
    clockOffsetMs = -60_000;
    try {
      return await client().tasks.create(orderParams(orderNumber));
    } finally {
      clockOffsetMs = 0;
    }
  }

  it('a POST that never arrived (a 502 the service did not process): resent once, never the first delivery', async () => {
    const first = await firstDelivery('RD-1');
    mock.inject({ operation: 'tasks.create', kind: 'status', status: 502 });
    const second = await client().tasks.create(orderParams('RD-1'), { repeatDelivery: true });
    expect(second.id).not.toBe(first.id);
    expect(
      tasksFor('RD-1')
        .map((task) => task.id)
        .sort(),
    ).toEqual([first.id, second.id].sort());
    expect(mock.wallet.feesCharged).toBe(2);
  });

  it('a POST stored and its answer dropped: its own task, not DuplicateTaskError', async () => {
    const first = await firstDelivery('RD-2');
    mock.inject({ operation: 'tasks.create', kind: 'commit-then-drop' });
    const second = await client().tasks.create(orderParams('RD-2'), { repeatDelivery: true });
    expect(second.id).not.toBe(first.id);
    expect(
      tasksFor('RD-2')
        .map((task) => task.id)
        .sort(),
    ).toEqual([first.id, second.id].sort());
    // The first delivery's POST and this one's: found by the lookup, not sent again.
    expect(mock.requestsFor('tasks.create')).toHaveLength(2);
  });

  it('without its lookup (lookupFirst: false) it cannot tell them apart: outcome unknown, naming the candidates', async () => {
    const first = await firstDelivery('RD-3');
    mock.inject({ operation: 'tasks.create', kind: 'commit-then-drop' });
    const error = await client()
      .tasks.create(orderParams('RD-3'), { repeatDelivery: true, lookupFirst: false })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    const ids = tasksFor('RD-3').map((task) => task.id);
    expect(ids).toHaveLength(2);
    expect([...(error as TaskCreationOutcomeUnknownError).candidateTaskIds].sort()).toEqual([...ids].sort());
    expect(ids).toContain(first.id);
  });
});

/** Runs test/support/restart-worker.ts in a process of its own and resolves with its outcomes. */
async function runProcess(config: RestartConfig): Promise<RestartOutcome[]> {
  const { code, signal, stdout, stderr } = await outputOf(
    spawn(process.execPath, [...scriptArgs('test/support/restart-worker.ts'), JSON.stringify(config)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const line = stdout.trim().split('\n').pop() ?? '';
  if (code === 0 && line.startsWith('[')) return JSON.parse(line) as RestartOutcome[];
  throw new Error(`process ended with ${signal ?? code}: ${stderr.slice(-2000)}`);
}

describe('a restart: two processes, one after the other, create the same orders without a store', () => {
  const service = createMockDeliveryService({ account: { type: 'wallet', balance: 1000 } });
  let server: MockHttpServer;
  beforeAll(async () => {
    server = await startMockHttpServer(service);
  });
  afterAll(() => server?.close());

  it('makes one task per order; with lookupFirst: false, the second process creates each again', async () => {
    const config = { baseUrl: server.url, apiKey: service.apiKey, sellerId: service.sellerId };
    const orders = ['RESTART-1', 'RESTART-2', 'RESTART-3'];
    const before = await runProcess({ ...config, orders });
    const after = await runProcess({ ...config, orders });
    expect(after).toEqual(before);
    expect(before.every((outcome) => typeof outcome.taskId === 'string')).toBe(true);
    for (const orderNumber of orders) {
      expect(service.tasks.filter((task) => task.orderNumber === orderNumber)).toHaveLength(1);
    }
    expect(service.requestsFor('tasks.create')).toHaveLength(3);
    // The guarantee rests on the lookup: without it, a new process sends each order again.
    const unchecked = await runProcess({ ...config, orders: ['RESTART-1'], lookupFirst: false });
    expect(unchecked[0]?.taskId).not.toBe(before[0]?.taskId);
    expect(service.tasks.filter((task) => task.orderNumber === 'RESTART-1')).toHaveLength(2);
  }, 120_000);
});
