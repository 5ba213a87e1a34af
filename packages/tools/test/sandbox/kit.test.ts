/**
 * The sandbox as Node users embed it (`startSandbox` from the test kit), and what the mock gained for
 * it: seed tasks, a bound on its records, the courier's bounds, payment-link problems, body limits.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { ConfigurationError } from 'delivery-task-sdk';
import { createMockDeliveryService, MOCK_DEFAULTS, type MockSeedTask } from 'delivery-task-sdk/testing';
import { parseSandboxSeed, type Sandbox, startSandbox } from 'delivery-task-tools/sandbox';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_TASKS_PER_STEP, startAutoAdvance } from '../../src/sandbox/auto-advance.js';

const opened: Sandbox[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(opened.splice(0).map((sandbox) => sandbox.close()));
});

async function open(options: Parameters<typeof startSandbox>[0] = {}): Promise<Sandbox> {
  const sandbox = await startSandbox({ port: 0, ...options });
  opened.push(sandbox);
  return sandbox;
}

const credentials = (sandbox: Sandbox) => ({
  authorization: `apikey ${sandbox.apiKey}`,
  'x-seller-id': sandbox.sellerId,
  'content-type': 'application/json',
});

describe('startSandbox', () => {
  it('serves the mock on its own address, which is also the origin of payment and tracking links', async () => {
    const sandbox = await open({ apiKey: 'kit-key', sellerId: 'kit-seller' });
    expect(sandbox.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sandbox.mock.baseUrl).toBe(sandbox.baseUrl);
    expect(sandbox.controlUrl).toBe(`${sandbox.baseUrl}/_sandbox`);
    const topUp = await fetch(`${sandbox.baseUrl}/rest/tasks/wallet-topup`, {
      method: 'POST',
      headers: credentials(sandbox),
      body: JSON.stringify({ amount: 5 }),
    });
    expect(
      ((await topUp.json()) as { paymentUrl: string }).paymentUrl.startsWith(`${sandbox.baseUrl}/pay/`),
    ).toBe(true);
  });

  it('keeps its API key out of its keys and its inspected form', async () => {
    const sandbox = await open({ apiKey: 'kit-secret-key-123' });
    expect(sandbox.apiKey).toBe('kit-secret-key-123');
    expect(Object.keys(sandbox)).not.toContain('apiKey');
    expect(inspect(sandbox, { depth: 1 })).not.toContain('kit-secret-key-123');
  });

  it('rejects bad options as ConfigurationError before it takes a port', async () => {
    const cases: Array<[Parameters<typeof startSandbox>[0], string, string]> = [
      [{ port: 70_000 }, 'port', 'expected an integer from 0 to 65535, got 70000'],
      [{ autoAdvanceMs: 5 }, 'autoAdvanceMs', 'expected an integer from 10 to 86400000, got 5'],
      [{ webhookUrl: 'mailto:x@y.z' }, 'webhookUrl', 'expected an absolute http(s) URL, got "mailto:x@y.z"'],
      [
        { tasks: [{ status: 'lost' } as unknown as MockSeedTask] },
        'tasks.0.status',
        "expected 'pending', 'requested', 'accepted', 'pickedup', 'enroute', 'delivered', 'cancelled', 'rejected' or 'failed', got \"lost\"",
      ],
    ];
    for (const [options, option, expected] of cases) {
      const started = startSandbox(options);
      await expect(started, option).rejects.toThrow(ConfigurationError);
      await expect(started, option).rejects.toThrow(
        expect.objectContaining({ option, message: `Invalid ${option}: ${expected}` }),
      );
    }
  });

  it('answers 413 to a service request whose body is over maxBodyBytes, and stores nothing', async () => {
    const sandbox = await open({ maxBodyBytes: 1000 });
    const response = await fetch(`${sandbox.baseUrl}/tasks`, {
      method: 'POST',
      headers: credentials(sandbox),
      body: JSON.stringify({ orderNumber: 'BIG', specialNotes: 'x'.repeat(2000) }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      message: 'The request body exceeds 1000 bytes',
      code: 'PAYLOAD_TOO_LARGE',
    });
    expect(sandbox.mock.tasks).toHaveLength(0);
  });

  it('answers 404, 409 and 410 for an unknown, a used and an expired payment link', async () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const sandbox = await open({ now: () => now });
    const complete = async (paymentUrl: string) => {
      const response = await fetch(`${sandbox.controlUrl}/top-ups/complete`, {
        method: 'POST',
        body: JSON.stringify({ paymentUrl }),
      });
      return { status: response.status, code: ((await response.json()) as { code?: string }).code };
    };
    const issue = async () => {
      const response = await fetch(`${sandbox.baseUrl}/tasks/wallet-topup`, {
        method: 'POST',
        headers: credentials(sandbox),
        body: JSON.stringify({ amount: 5 }),
      });
      return ((await response.json()) as { paymentUrl: string }).paymentUrl;
    };
    const used = await issue();
    expect((await complete(used)).status).toBe(200);
    expect(await complete(used)).toEqual({ status: 409, code: 'PAYMENT_LINK_USED' });
    const expiring = await issue();
    now = new Date(now.getTime() + 24 * 60 * 60 * 1000);
    expect(await complete(expiring)).toEqual({ status: 410, code: 'PAYMENT_LINK_EXPIRED' });
    expect(await complete(`${sandbox.baseUrl}/pay/never-issued`)).toEqual({
      status: 404,
      code: 'UNKNOWN_PAYMENT_LINK',
    });
    expect(sandbox.mock.wallet.balance).toBe(MOCK_DEFAULTS.account.balance + 5);
  });

  it('keeps the most recent 1000 requests by default', async () => {
    const sandbox = await open();
    for (let index = 0; index < 1005; index++) {
      await fetch(`${sandbox.baseUrl}/tasks/branches?n=${index}`, { headers: credentials(sandbox) });
    }
    expect(sandbox.mock.requests).toHaveLength(1000);
    expect(sandbox.mock.requests[0]?.query.n).toBe('5');
    // Served in pages: the newest 100 by default, oldest first.
    const log = (await (await fetch(`${sandbox.controlUrl}/requests`)).json()) as {
      requests: Array<{ query: { n: string } }>;
      total: number;
    };
    expect(log.total).toBe(1000);
    expect(log.requests).toHaveLength(100);
    expect(log.requests[0]?.query.n).toBe('905');
    expect(log.requests.at(-1)?.query.n).toBe('1004');
  });

  it('closes cleanly with a request held by a delay fault, and closing twice is harmless', async () => {
    const sandbox = await open();
    sandbox.mock.inject({ kind: 'delay', ms: Number.POSITIVE_INFINITY });
    const held = fetch(`${sandbox.baseUrl}/tasks`, { headers: credentials(sandbox) }).then(
      () => 'answered',
      () => 'failed',
    );
    await vi.waitFor(() => expect(sandbox.mock.requests).toHaveLength(1));
    await Promise.all([sandbox.close(), sandbox.close()]);
    expect(await held).toBe('failed');
  });
});

describe('seed tasks of the mock', () => {
  const seeds: MockSeedTask[] = [
    { id: 'seed-a', orderNumber: 'A', deliveryLocation: { latitude: 29.3, longitude: 48 } },
    { orderNumber: 'B', status: 'accepted' },
    { orderNumber: 'C', status: 'rejected' },
    { orderNumber: 'D', status: 'cancelled' },
  ];

  it('are stored as created and moved to their status, without a fee or a webhook', async () => {
    const webhooks: string[] = [];
    const receiver = createServer((request, response) => {
      webhooks.push(request.url ?? '');
      response.end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = receiver.address() as AddressInfo;
      const mock = createMockDeliveryService({ tasks: seeds, webhookUrl: `http://127.0.0.1:${port}/hook` });
      expect(mock.tasks.map((task) => [task.orderNumber, task.status])).toEqual([
        ['A', 'pending'],
        ['B', 'accepted'],
        ['C', 'rejected'],
        ['D', 'cancelled'],
      ]);
      expect(mock.task('seed-a')?.travelDetail?.totalDistance).toBeGreaterThan(0);
      expect(mock.task(mock.tasks[1]?.id ?? '')?.driver?.name).toBeDefined();
      expect(mock.wallet).toMatchObject({ balance: MOCK_DEFAULTS.account.balance, feesCharged: 0 });
      await mock.advance('seed-a');
      expect(webhooks).toEqual(['/hook']);
      mock.close();
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });

  it('come back as they were on reset, with the same ids, older than any task created since', async () => {
    const mock = createMockDeliveryService({ tasks: seeds });
    const before = mock.tasks;
    await mock.advance('seed-a', 'delivered');
    mock.reset();
    expect(mock.tasks).toEqual(before);
  });

  it('are rejected as ConfigurationError naming the task and the field', () => {
    const AMOUNT = 'KWD decimal text with at most 3 decimals, like "12.500"';
    const STATUSES =
      "'pending', 'requested', 'accepted', 'pickedup', 'enroute', 'delivered', 'cancelled', 'rejected' or 'failed'";
    const cases: Array<[unknown, string, string]> = [
      [
        [{ deliveryLocation: { latitude: 95, longitude: 48 } }],
        'tasks.0.deliveryLocation.latitude',
        'expected a number ≤ 90, got 95',
      ],
      [[{}, { totalAmount: '1.2345' }], 'tasks.1.totalAmount', `expected ${AMOUNT}, got "1.2345"`],
      [[{ orderNumber: 5 }], 'tasks.0.orderNumber', 'expected a string, got 5'],
      [[{ orderNumbr: 'X' }], 'tasks.0.orderNumbr', 'expected a field of a POST tasks body, got "X"'],
      [[{ status: 'inprogress' }], 'tasks.0.status', `expected ${STATUSES}, got "inprogress"`],
      [[{ id: '' }], 'tasks.0.id', 'expected a non-empty string, got ""'],
      [[{ id: 'x' }, { id: 'x' }], 'tasks.1.id', 'expected an id no other seed task has, got "x"'],
      [
        [{ sellerId: 'someone-else' }],
        'tasks.0.sellerId',
        "expected the mock's seller id (or none), got a string of 12 characters",
      ],
      [
        [{ selectedBranch: 'Jahra' }],
        'tasks.0.selectedBranch',
        'expected a value a POST tasks body takes (selectedBranch is only used with customPickup: true), got "Jahra"',
      ],
      [
        [{ customPickup: true, selectedBranch: 'Mars' }],
        'tasks.0.selectedBranch',
        'expected the name of a branch ("Kuwait City", "Salmiya", "Jahra"), got "Mars"',
      ],
      [
        ['ORD-1'],
        'tasks.0',
        'expected an object (a POST tasks body with optional id and status), got "ORD-1"',
      ],
      ['not an array', 'tasks', 'expected an array of at most 10000 seed tasks, got "not an array"'],
      [
        Array.from({ length: 10_001 }, () => ({})),
        'tasks',
        'expected an array of at most 10000 seed tasks, got an array',
      ],
    ];
    for (const [tasks, option, expected] of cases) {
      const build = () => createMockDeliveryService({ tasks: tasks as MockSeedTask[] });
      expect(build, option).toThrow(ConfigurationError);
      expect(build, option).toThrow(
        expect.objectContaining({ option, message: `Invalid ${option}: ${expected}` }),
      );
    }
  });

  it('parseSandboxSeed checks a seed document with the same rules', () => {
    expect(
      parseSandboxSeed({ branches: ['North'], tasks: [{ customPickup: true, selectedBranch: 'North' }] }),
    ).toEqual({ branches: ['North'], tasks: [{ customPickup: true, selectedBranch: 'North' }] });
    expect(() => parseSandboxSeed({ tasks: [{ customPickup: true, selectedBranch: 'North' }] })).toThrow(
      expect.objectContaining({
        option: 'tasks.0.selectedBranch',
        message:
          'Invalid tasks.0.selectedBranch: expected the name of a branch ("Kuwait City", "Salmiya", "Jahra"), got "North"',
      }),
    );
    expect(() => parseSandboxSeed({ branches: [{ id: 'b1' }] })).toThrow(
      expect.objectContaining({
        option: 'branches.0.name',
        message: 'Invalid branches.0.name: expected a non-empty string, got nothing',
      }),
    );
    for (const [document, option, message] of [
      [null, 'seed', 'Invalid seed: expected a JSON object of branches and tasks, got null'],
      [['North'], 'seed', 'Invalid seed: expected a JSON object of branches and tasks, got an array'],
      [{ branches: 'North' }, 'branches', 'Invalid branches: expected an array, got "North"'],
      [{ task: [] }, 'task', 'Invalid task: expected a field of a seed (branches, tasks), got an array'],
    ] as const) {
      expect(() => parseSandboxSeed(document)).toThrow(ConfigurationError);
      expect(() => parseSandboxSeed(document)).toThrow(expect.objectContaining({ option, message }));
    }
  });
});

describe('the record limit of the mock', () => {
  it('keeps the most recent requests and webhook deliveries, dropping the oldest', async () => {
    const sandbox = await open({ recordLimit: 3 });
    for (const name of ['a', 'b', 'c', 'd', 'e']) {
      await fetch(`${sandbox.baseUrl}/tasks/${name}`, { headers: credentials(sandbox) });
    }
    expect(sandbox.mock.requests.map((request) => request.path)).toEqual([
      '/tasks/c',
      '/tasks/d',
      '/tasks/e',
    ]);

    const receiver = createServer((_request, response) => response.end());
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = receiver.address() as AddressInfo;
      const mock = createMockDeliveryService({
        recordLimit: 3,
        tasks: [{ id: 'kept' }],
        webhookUrl: `http://127.0.0.1:${port}/`,
      });
      await mock.advance('kept', 'delivered');
      expect(mock.webhookDeliveries.map((delivery) => delivery.status)).toEqual([
        'pickedup',
        'enroute',
        'delivered',
      ]);
      mock.close();
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
    expect(() => createMockDeliveryService({ recordLimit: 0 })).toThrow(
      expect.objectContaining({
        option: 'recordLimit',
        message: 'Invalid recordLimit: expected an integer ≥ 1, got 0',
      }),
    );
  });
});

describe('auto-advance', () => {
  it(`moves at most ${MAX_TASKS_PER_STEP} tasks a step, the least recently moved first`, async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    const total = MAX_TASKS_PER_STEP + 50;
    const mock = createMockDeliveryService({
      tasks: Array.from({ length: total }, (_, index) => ({ orderNumber: `ORD-${index}` })),
    });
    const courier = startAutoAdvance(mock, 50);
    const count = (status: string) => mock.tasks.filter((task) => task.status === status).length;

    await vi.advanceTimersByTimeAsync(50);
    expect([count('pending'), count('requested')]).toEqual([50, MAX_TASKS_PER_STEP]);
    await vi.advanceTimersByTimeAsync(50);
    // The 50 left behind go first, then the 50 that moved longest ago.
    expect([count('pending'), count('requested'), count('accepted')]).toEqual([0, 100, 50]);
    expect(mock.tasks.slice(MAX_TASKS_PER_STEP).every((task) => task.status === 'requested')).toBe(true);
    await courier.stop();
    await vi.advanceTimersByTimeAsync(500);
    expect(count('accepted')).toBe(50);
  });

  it('runs one step at a time: an interval that comes while webhooks are still being sent is skipped', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const receiver = createServer((_request, response) => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => {
        inFlight -= 1;
        response.end();
      }, 150);
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    const mock = createMockDeliveryService({
      tasks: [{ orderNumber: 'SLOW' }],
      webhookUrl: `http://127.0.0.1:${port}/`,
    });
    const courier = startAutoAdvance(mock, 20);
    try {
      await vi.waitFor(() => expect(mock.webhookDeliveries).toHaveLength(7), {
        timeout: 10_000,
        interval: 20,
      });
      expect(mock.tasks[0]?.status).toBe('delivered');
      expect(courier.stats.skipped).toBeGreaterThan(courier.stats.steps);
      expect(maxInFlight).toBe(1);
      expect(mock.webhookDeliveries.map((delivery) => delivery.status)).toEqual([
        'requested',
        'accepted',
        'inprogress',
        'pickup_location_reached',
        'pickedup',
        'enroute',
        'delivered',
      ]);
    } finally {
      await courier.stop();
      mock.close();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
});
