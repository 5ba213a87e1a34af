import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import {
  APIConnectionError,
  APIUserAbortError,
  type Estimate,
  InsufficientBalanceError,
  kwd,
  NotFoundError,
  RequestValidationError,
  ResponseValidationError,
  type SchemaDrift,
  StatusWaitTimeoutError,
  type Task,
  TaskCreationOutcomeUnknownError,
  TaskListPromise,
  TaskPage,
} from '../../src/index.js';
import type { TaskWithId } from '../../src/schemas.js';
import { orderParams, useMockService } from '../support/mock-service.js';
import { REFUSED_URL } from '../support/refused-url.js';

const { mock, client } = useMockService({ account: { type: 'wallet', balance: 60 } });

/** Great-circle distance in km, computed here independently of the mock. */
function haversineKm(
  a: { latitude: number; longitude: number },
  b: { latitude: number; longitude: number },
): number {
  const radians = (degrees: number) => (degrees * Math.PI) / 180;
  const h =
    Math.sin(radians(b.latitude - a.latitude) / 2) ** 2 +
    Math.cos(radians(a.latitude)) *
      Math.cos(radians(b.latitude)) *
      Math.sin(radians(b.longitude - a.longitude) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
}

describe('tasks.create', () => {
  it('posts the params to tasks with both auth headers and returns the task unwrapped from data.createTask', async () => {
    const params = {
      ...orderParams('ORD-100'),
      collectCash: true,
      totalAmount: '12.500',
      specialNotes: 'Ring twice',
    };
    const task = await client().tasks.create(params);

    const [request] = mock.requestsFor('tasks.create');
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/rest/tasks');
    expect(request?.headers.authorization).toBe(`apikey ${mock.apiKey}`);
    expect(request?.headers['x-seller-id']).toBe(mock.sellerId);
    expect(request?.headers['content-type']).toMatch(/^application\/json/);
    expect(request?.body).toEqual(params);

    expect(task.id).toMatch(/^[0-9a-f]{24}$/);
    expect(task).toMatchObject({
      orderNumber: 'ORD-100',
      status: 'pending',
      totalAmount: '12.500',
      collectCash: true,
    });
    expect(mock.task(task.id ?? '')).toMatchObject({ orderNumber: 'ORD-100' });
  });

  it('deducts the fee from the wallet, exactly in fils', async () => {
    const before = await client().wallet.retrieveBalance();
    const task = await client().tasks.create(orderParams('ORD-FEE'));
    const after = await client().wallet.retrieveBalance();
    const estimate = await client().tasks.estimate({
      from: { latitude: 29.3759, longitude: 47.9774 },
      to: { latitude: 29.3339, longitude: 48.0761 },
    });
    expect(task.id).toBeDefined();
    expect(kwd.toFils(before.walletAmount) - kwd.toFils(after.walletAmount)).toBe(
      kwd.toFils(estimate.price ?? Number.NaN),
    );
    expect(mock.wallet.feesCharged).toBe(1);
  });

  it('rejects a create on a low balance with InsufficientBalanceError and leaves wallet and tasks unchanged', async () => {
    // Drain the wallet to less than one fee.
    const sdk = client();
    let rejected: unknown;
    for (let index = 0; index < 100 && rejected === undefined; index++) {
      await sdk.tasks.create(orderParams(`ORD-DRAIN-${index}`)).catch((error: unknown) => {
        rejected = error;
      });
    }
    expect(rejected).toBeInstanceOf(InsufficientBalanceError);
    const balance = mock.wallet.balanceFils;
    const taskCount = mock.tasks.length;
    const fees = mock.wallet.feesCharged;

    const error = await sdk.tasks.create(orderParams('ORD-LOW')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InsufficientBalanceError);
    expect((error as InsufficientBalanceError).status).toBe(402);
    expect((error as InsufficientBalanceError).code).toBe('INSUFFICIENT_BALANCE');
    expect((error as Error).message).toMatch(/^402 Payment Required: POST \/rest\/tasks — /);
    expect(mock.wallet.balanceFils).toBe(balance);
    expect(mock.tasks.length).toBe(taskCount);
    expect(mock.wallet.feesCharged).toBe(fees);
    // Final: no reconciliation list, no resend.
    expect(
      mock
        .requestsFor('tasks.create')
        .filter((request) => request.body && (request.body as Task).orderNumber === 'ORD-LOW'),
    ).toHaveLength(1);
  });

  it('validates params before sending: every issue with its path, and zero requests', async () => {
    const error = await client()
      // @ts-expect-error selectedBranch without customPickup: true is refused by the type and at run time
      .tasks.create({
        orderNumber: 'ORD-BAD',
        totalAmount: '1.2345',
        deliveryLocation: {
          latitude: 91,
          longitude: Number.NaN,
          fullAddress: ['ok', 3 as unknown as string],
        },
        selectedBranch: 'Salmiya',
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    const paths = (error as RequestValidationError).issues.map((issue) => issue.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'totalAmount',
        'deliveryLocation.latitude',
        'deliveryLocation.longitude',
        'deliveryLocation.fullAddress.1',
        'selectedBranch',
      ]),
    );
    expect((error as Error).message).toContain('nothing was sent');
    expect(mock.requests).toHaveLength(0);
  });

  it('rejects unknown fields so that a misspelt one fails before sending', async () => {
    const error = await client()
      .tasks.create({ ...orderParams('ORD-TYPO'), customerPhone: '+965' } as never)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as Error).message).toContain('customerPhone');
    expect(mock.requests).toHaveLength(0);
  });

  it('creates with a branch pickup when customPickup is true', async () => {
    const [branch] = await client().branches.list();
    const task = await client().tasks.create({
      ...orderParams('ORD-BRANCH'),
      customPickup: true,
      selectedBranch: branch?.name ?? '',
    });
    expect(task.customPickup).toBe(true);
    expect(mock.requestsFor('tasks.create')[0]?.body).toMatchObject({ selectedBranch: branch?.name });
  });
});

describe('tasks with the deprecated validation: off (read as tolerant)', () => {
  it('still fails typed, without a resend, when a 2xx create lacks data.createTask', async () => {
    mock.inject({ operation: 'tasks.create', kind: 'status', status: 200, body: { ok: true } });
    const error = await client({ validation: 'off' })
      .tasks.create(orderParams('OFF-1'))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    expect((error as Error).cause).toBeInstanceOf(ResponseValidationError);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
  });

  it('throws ResponseValidationError for a page without tasks (load-bearing), never a TypeError', async () => {
    mock.inject({ operation: 'tasks.list', kind: 'status', status: 200, body: { items: 'nope' } });
    await expect(client({ validation: 'off' }).tasks.list().toArray()).rejects.toBeInstanceOf(
      ResponseValidationError,
    );
  });
});

describe('tasks.retrieve', () => {
  it('gets tasks/{id} and returns the task', async () => {
    const created = await client().tasks.create(orderParams('ORD-200'));
    const task = await client().tasks.retrieve(created.id ?? '');
    const [request] = mock.requestsFor('tasks.retrieve');
    expect(request?.method).toBe('GET');
    expect(request?.path).toBe(`/rest/tasks/${created.id}`);
    expect(request?.headers.authorization).toBe(`apikey ${mock.apiKey}`);
    expect(request?.headers['x-seller-id']).toBe(mock.sellerId);
    expect(task).toEqual(created);
  });

  it('throws NotFoundError with method, path, status and the server message for an unknown id', async () => {
    const error = await client()
      .tasks.retrieve('0000000000000000000000ff')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as Error).message).toMatch(
      /^404 Not Found: GET \/rest\/tasks\/0000000000000000000000ff — Task not found \(request id req_\d{6}\)$/,
    );
  });

  it('encodes the id so that it can never become another path', async () => {
    const error = await client()
      .tasks.retrieve('../wallet-balance')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(mock.requestsFor('wallet.retrieveBalance')).toHaveLength(0);
    expect(mock.requests[0]?.url).toContain('/tasks/..%2Fwallet-balance');
  });

  it('refuses empty, "." and ".." ids without sending', async () => {
    for (const id of ['', ' ', '.', '..']) {
      await expect(client().tasks.retrieve(id)).rejects.toBeInstanceOf(RequestValidationError);
    }
    expect(mock.requests).toHaveLength(0);
  });

  it('keeps unknown fields and accepts an unknown status', async () => {
    mock.inject({
      operation: 'tasks.retrieve',
      kind: 'status',
      status: 200,
      body: { id: 'abc', status: 'teleported', droneId: 'D-7', driver: { name: 'Ali', rating: 5 } },
    });
    const task = await client().tasks.retrieve('abc');
    expect(task.status).toBe('teleported');
    expect(task).toMatchObject({ droneId: 'D-7', driver: { name: 'Ali', rating: 5 } });
  });

  it('throws ResponseValidationError for a body of the wrong shape in strict mode, and reads it tolerantly otherwise', async () => {
    const body = { id: 42, status: ['pending'] };
    mock.inject({ operation: 'tasks.retrieve', kind: 'status', status: 200, body, times: 3 });
    const error = await client({ validation: 'strict' })
      .tasks.retrieve('42')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues.map((issue) => issue.path).sort()).toEqual([
      'id',
      'status',
    ]);

    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, warn: (message: string) => warnings.push(message), error() {} };
    expect(await client({ logger, logLevel: 'warn' }).tasks.retrieve('42')).toStrictEqual({ id: '42' });
    expect(warnings.join('\n')).toContain('Schema drift in tasks.retrieve: status');
    expect(await client({ validation: 'warn' }).tasks.retrieve('42')).toStrictEqual({ id: '42' });
  });

  it.each([
    [
      'another task',
      { id: 'task-B', status: 'delivered' },
      'id',
      /Expected task "task-A", received "task-B"/,
    ],
    ['another task by its _id', { _id: 'task-B', status: 'delivered' }, '_id', /received "task-B"/],
  ])(
    'refuses an answer that is %s: ResponseValidationError on the id, never data',
    async (_case, body, path, message) => {
      for (const validation of ['tolerant', 'strict'] as const) {
        mock.inject({ operation: 'tasks.retrieve', kind: 'status', status: 200, body, times: 1 });
        const error = await client({ validation })
          .tasks.retrieve('task-A')
          .catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(ResponseValidationError);
        expect((error as ResponseValidationError).issues).toEqual([expect.objectContaining({ path })]);
        expect((error as Error).message).toMatch(message);
        expect(error).toMatchObject({ method: 'GET', status: 200 });
      }
      // Not retried: one GET per call.
      expect(mock.requestsFor('tasks.retrieve')).toHaveLength(2);
    },
  );

  it.each([
    ['no id at all', { status: 'delivered', orderNumber: 'ORD-NOID' }, 'undefined'],
    ['an empty id', { id: '', status: 'delivered', orderNumber: 'ORD-NOID' }, 'string'],
  ])(
    'fills an answer with %s from the id asked for, and reports it as drift (every field is optional in responses)',
    async (_case, body, received) => {
      for (const validation of ['tolerant', 'strict'] as const) {
        const drifts: SchemaDrift[] = [];
        mock.inject({ operation: 'tasks.retrieve', kind: 'status', status: 200, body });
        const task = await client({ validation, onDrift: (drift) => drifts.push(drift) }).tasks.retrieve(
          'task-A',
        );
        expect(task).toMatchObject({ id: 'task-A', status: 'delivered', orderNumber: 'ORD-NOID' });
        expect(drifts).toEqual([
          { operation: 'tasks.retrieve', path: 'id', expected: 'string', received, action: 'coerced' },
        ]);
      }
      expect(mock.requestsFor('tasks.retrieve')).toHaveLength(2);
    },
  );

  it('waitForStatus reads a task answered without an id as the task asked for', async () => {
    mock.inject({ operation: 'tasks.retrieve', kind: 'status', status: 200, body: { status: 'delivered' } });
    const task = await client().tasks.waitForStatus('task-A', 'delivered', { intervalMs: 10, timeout: 5000 });
    expect(task).toMatchObject({ id: 'task-A', status: 'delivered' });
  });

  it('compares the id as the caller passed it: an id needing encoding matches, its encoded form does not', async () => {
    mock.inject({
      operation: 'tasks.retrieve',
      kind: 'status',
      status: 200,
      body: { id: 'a b/c', status: 'pending' },
    });
    expect(await client().tasks.retrieve('a b/c')).toMatchObject({ id: 'a b/c' });
    mock.inject({
      operation: 'tasks.retrieve',
      kind: 'status',
      status: 200,
      body: { id: 'a%20b%2Fc', status: 'pending' },
    });
    await expect(client().tasks.retrieve('a b/c')).rejects.toBeInstanceOf(ResponseValidationError);
  });

  it('reads a task carrying its id as _id only, and gives it that id', async () => {
    mock.inject({
      operation: 'tasks.retrieve',
      kind: 'status',
      status: 200,
      body: { _id: 'task-A', status: 'pending' },
    });
    expect(await client().tasks.retrieve('task-A')).toMatchObject({
      id: 'task-A',
      _id: 'task-A',
      status: 'pending',
    });
  });
});

describe('tasks.list', () => {
  async function createOrders(count: number, prefix = 'ORD'): Promise<Task[]> {
    const sdk = client();
    const tasks: Task[] = [];
    // Setup, not the subject: new order numbers, sent without a lookup (which would be a list request).
    for (let index = 1; index <= count; index++) {
      tasks.push(
        await sdk.tasks.create(orderParams(`${prefix}-${String(index).padStart(3, '0')}`), {
          lookupFirst: false,
        }),
      );
    }
    return tasks;
  }

  it('awaits to one page with the query sent as given', async () => {
    await createOrders(12);
    const listing = client().tasks.list({ limit: 5, page: 2, sortBy: 'orderNumber', sortOrder: -1 });
    expect(listing).toBeInstanceOf(TaskListPromise);
    const page = await listing;
    expect(page).toBeInstanceOf(TaskPage);
    expect(page).toMatchObject({ page: 2, limit: 5, totalPages: 3, total: 12 });
    expect(page.tasks.map((task) => task.orderNumber)).toEqual([
      'ORD-007',
      'ORD-006',
      'ORD-005',
      'ORD-004',
      'ORD-003',
    ]);
    expect(page.hasNextPage()).toBe(true);
    const [request] = mock.requestsFor('tasks.list');
    expect(request?.method).toBe('GET');
    expect(request?.path).toBe('/rest/tasks');
    expect(request?.query).toEqual({ limit: '5', page: '2', sortBy: 'orderNumber', sortOrder: '-1' });
    expect(request?.headers['x-seller-id']).toBe(mock.sellerId);
  });

  it('walks every task of every page with for await, each once', async () => {
    const created = await createOrders(25);
    const seen: string[] = [];
    for await (const task of client().tasks.list()) seen.push(task.id ?? '');
    expect(seen).toHaveLength(25);
    expect(new Set(seen)).toEqual(new Set(created.map((task) => task.id)));
    // Pages 2 and 3 are requested together (concurrency 16) and may reach the mock in either order.
    expect(
      mock
        .requestsFor('tasks.list')
        .map((request) => request.query.page)
        .sort(),
    ).toEqual(['1', '2', '3']);
  });

  it('yields each id once when tasks are created mid-walk and pages shift', async () => {
    await createOrders(25);
    const sdk = client();
    const seen: string[] = [];
    let extra = 0;
    for await (const task of sdk.tasks.list()) {
      seen.push(task.id ?? '');
      // Newest first: each new task pushes every later page down by one.
      if (seen.length % 7 === 0 && extra < 3) {
        extra++;
        await sdk.tasks.create(orderParams(`ORD-MID-${extra}`));
      }
    }
    expect(mock.requestsFor('tasks.list').length).toBeGreaterThanOrEqual(3);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBeGreaterThanOrEqual(25);
  });

  it('iterates pages with byPage and collects with toArray up to max', async () => {
    await createOrders(23);
    const pages: number[] = [];
    for await (const page of client().tasks.list().byPage()) pages.push(page.tasks.length);
    expect(pages).toEqual([10, 10, 3]);
    const requestsBefore = mock.requestsFor('tasks.list').length;
    const first12 = await client().tasks.list().toArray({ max: 12 });
    expect(first12).toHaveLength(12);
    expect(mock.requestsFor('tasks.list').length - requestsBefore).toBe(2);
    expect(await client().tasks.list().toArray()).toHaveLength(23);
  });

  it('stops on an empty first page without another request', async () => {
    const all = await client().tasks.list().toArray();
    expect(all).toEqual([]);
    expect(mock.requestsFor('tasks.list')).toHaveLength(1);
  });

  it('searches literally by default, sending ignoreRegex=true', async () => {
    await client().tasks.create(orderParams('C++-1'), { lookupFirst: false });
    await client().tasks.create(orderParams('CXX-1'), { lookupFirst: false });
    const found = await client().tasks.list({ search: 'C++' }).toArray();
    expect(found.map((task) => task.orderNumber)).toEqual(['C++-1']);
    expect(mock.requestsFor('tasks.list')[0]?.query).toMatchObject({ search: 'C++', ignoreRegex: 'true' });
  });

  it('searches by regular expression only when asked', async () => {
    await createOrders(12);
    const found = await client().tasks.list({ search: '^ORD-01[01]$', ignoreRegex: false }).toArray();
    expect(found.map((task) => task.orderNumber).sort()).toEqual(['ORD-010', 'ORD-011']);
    expect(mock.requestsFor('tasks.list')[0]?.query).toMatchObject({ ignoreRegex: 'false' });
  });

  it('rejects bad params on await and on iteration without sending', async () => {
    await expect(client().tasks.list({ limit: 11 })).rejects.toBeInstanceOf(RequestValidationError);
    await expect(client().tasks.list({ page: 0 }).toArray()).rejects.toBeInstanceOf(RequestValidationError);
    await expect(client().tasks.list({ limit: 2.5 }).toArray()).rejects.toThrow(/limit/);
    expect(mock.requests).toHaveLength(0);
  });
});

describe('tasks.estimate', () => {
  it('posts from and to and returns the travel detail and the price', async () => {
    const from = { latitude: 29.3759, longitude: 47.9774 };
    const to = { latitude: 29.3339, longitude: 48.0761 };
    const estimate = await client().tasks.estimate({ from, to });
    const [request] = mock.requestsFor('tasks.estimate');
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/rest/tasks/estimate');
    expect(request?.body).toEqual({ from, to });
    expect(request?.headers.authorization).toBe(`apikey ${mock.apiKey}`);
    expect(estimate.travelDetail?.totalDistance).toBeCloseTo(haversineKm(from, to), 1);
    // Mock pricing: 0.750 KWD + 0.100 KWD per km, to the fils.
    expect(estimate.price).toBeCloseTo(0.75 + 0.1 * haversineKm(from, to), 2);
    expect(kwd.isValid(estimate.price)).toBe(true);
  });

  it('rejects missing or out-of-range coordinates before sending', async () => {
    const error = await client()
      .tasks.estimate({
        from: { latitude: -91, longitude: 0 },
        to: { latitude: 0, longitude: Number.POSITIVE_INFINITY },
      })
      .catch((caught: unknown) => caught);
    expect((error as RequestValidationError).issues.map((issue) => issue.path)).toEqual([
      'from.latitude',
      'to.longitude',
    ]);
    await expect(client().tasks.estimate({ from: { latitude: 1, longitude: 1 } } as never)).rejects.toThrow(
      /to/,
    );
    expect(mock.requests).toHaveLength(0);
  });
});

describe('public types of tasks', () => {
  it('types every method precisely', () => {
    const tasks = client().tasks;
    expectTypeOf(tasks.create).returns.resolves.toEqualTypeOf<TaskWithId>();
    expectTypeOf(tasks.retrieve).parameter(0).toEqualTypeOf<string>();
    expectTypeOf(tasks.list).returns.toEqualTypeOf<TaskListPromise>();
    expectTypeOf(tasks.estimate).returns.resolves.toEqualTypeOf<Estimate>();
    expectTypeOf<'pending'>().toExtend<NonNullable<Task['status']>>();
    expectTypeOf<Task['totalAmount']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Awaited<TaskListPromise>>().toEqualTypeOf<TaskPage>();
  });
});

describe('tasks.waitForStatus', () => {
  it('polls until the task reaches one of the statuses and returns it', async () => {
    const created = await client().tasks.create(orderParams('WAIT-1'));
    const id = created.id ?? '';
    const waiting = client().tasks.waitForStatus(id, ['delivered', 'cancelled'], {
      intervalMs: 20,
      timeout: 5000,
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await mock.advance(id, 'delivered');
    const task = await waiting;
    expect(task.status).toBe('delivered');
    expect(mock.requestsFor('tasks.retrieve').length).toBeGreaterThanOrEqual(2);
  });

  it('throws StatusWaitTimeoutError with the last status seen when time runs out', async () => {
    const created = await client().tasks.create(orderParams('WAIT-2'));
    const error = await client()
      .tasks.waitForStatus(created.id ?? '', 'delivered', { intervalMs: 20, timeout: 150 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StatusWaitTimeoutError);
    expect(error).toMatchObject({
      taskId: created.id,
      lastStatus: 'pending',
      statuses: ['delivered'],
      timeoutMs: 150,
    });
  });

  it('keeps polling through a transient failure and stops at once on the caller abort', async () => {
    const created = await client().tasks.create(orderParams('WAIT-3'));
    mock.inject({ operation: 'tasks.retrieve', kind: 'status', status: 503, times: 3 });
    const controller = new AbortController();
    const waiting = client({ maxRetries: 0 }).tasks.waitForStatus(created.id ?? '', 'delivered', {
      intervalMs: 10,
      signal: controller.signal,
    });
    // Aborts once a poll after the three failures has answered, however slow the machine.
    await vi.waitFor(
      () => expect(mock.requestsFor('tasks.retrieve').some((request) => request.status === 200)).toBe(true),
      { timeout: 10_000, interval: 5 },
    );
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(APIUserAbortError);
    const statuses = mock.requestsFor('tasks.retrieve').map((request) => request.status);
    expect(statuses.slice(0, 3)).toEqual([503, 503, 503]);
    expect(statuses).toContain(200);
  });

  it('fails at once for an unknown task and for bad arguments', async () => {
    await expect(
      client().tasks.waitForStatus('000000000000000000000000', 'delivered'),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(client().tasks.waitForStatus('x', [])).rejects.toBeInstanceOf(RequestValidationError);
    await expect(client().tasks.waitForStatus('x', 'delivered', { intervalMs: 0 })).rejects.toBeInstanceOf(
      RequestValidationError,
    );
    expect(mock.requestsFor('tasks.retrieve')).toHaveLength(1);
  });

  it('refuses an interval longer than a timer can wait, naming it (nothing sent)', async () => {
    const error = await client()
      .tasks.waitForStatus('x', 'delivered', { intervalMs: 2 ** 31 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues).toEqual([
      expect.objectContaining({
        path: 'options.intervalMs',
        message: 'Expected an integer from 1 to 2147483647',
      }),
    ]);
    expect(mock.requestsFor('tasks.retrieve')).toHaveLength(0);
  });
});

describe('tasks.findByOrderNumber', () => {
  it('says how many attempts a refused page took, as every call does (APIConnectionError attempts)', async () => {
    const error = await client({ baseUrl: REFUSED_URL, maxRetries: 2 })
      .tasks.findByOrderNumber('ORD-REFUSED')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as APIConnectionError).attempts).toBe(3);
    expect((error as Error).message).toContain('after 3 attempts');
  }, 30_000);

  it('reports every bad argument at once, sending nothing', async () => {
    const error = await client()
      .tasks.findByOrderNumber('', { maxPages: 0, totalTimeout: -1 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues.map((issue) => issue.path)).toEqual([
      'orderNumber',
      'options.maxPages',
      'options.totalTimeout',
    ]);
    expect(mock.requests).toHaveLength(0);
  });
});
