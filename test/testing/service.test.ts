import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigurationError } from '../../src/index.js';
import {
  checkMockOptions,
  createMockDeliveryService,
  MOCK_DEFAULTS,
  type MockDeliveryServiceOptions,
} from '../../src/testing.js';
import { callService, createTask, credentials, taskBody } from './calls.js';

describe('a mock with the default options', () => {
  const mock = createMockDeliveryService();
  beforeAll(() => mock.listen());
  afterEach(() => mock.reset());
  afterAll(() => mock.close());

  it('exposes the default credentials and base URL', () => {
    expect(mock.apiKey).toBe(MOCK_DEFAULTS.apiKey);
    expect(mock.sellerId).toBe(MOCK_DEFAULTS.sellerId);
    expect(mock.baseUrl).toBe(MOCK_DEFAULTS.baseUrl);
  });

  it('answers 401 with a fixed message when the credentials are missing or wrong', async () => {
    const wrong: Record<string, Record<string, string>> = {
      nothing: {},
      'no key': { 'x-seller-id': mock.sellerId },
      'no seller': { authorization: `apikey ${mock.apiKey}` },
      'wrong key': { authorization: 'apikey not-the-key', 'x-seller-id': mock.sellerId },
      'wrong seller': { authorization: `apikey ${mock.apiKey}`, 'x-seller-id': 'someone-else' },
      'bearer scheme': { authorization: `Bearer ${mock.apiKey}`, 'x-seller-id': mock.sellerId },
      'bare key': { authorization: mock.apiKey, 'x-seller-id': mock.sellerId },
    };
    for (const [label, headers] of Object.entries(wrong)) {
      const result = await callService(mock, 'GET', 'tasks/wallet-balance', { headers });
      expect({ label, status: result.status, body: result.body }).toEqual({
        label,
        status: 401,
        body: { message: 'Invalid API key or seller id', code: 'UNAUTHORIZED' },
      });
    }
  });

  it('gives every answer, success, error or injected fault, its own x-request-id, which the SDK reports', async () => {
    const created = await callService(mock, 'POST', 'tasks', { json: taskBody('RID-1') });
    const unauthorized = await callService(mock, 'GET', 'tasks/wallet-balance', { headers: {} });
    mock.inject({ kind: 'status', status: 503, times: 1 });
    const faulted = await callService(mock, 'GET', 'tasks/branches');
    const ids = [created, unauthorized, faulted].map((result) => result.headers.get('x-request-id'));
    expect(ids.every((id) => /^req_\d{6}$/.test(id ?? ''))).toBe(true);
    expect(new Set(ids).size).toBe(3);
    const { DeliveryClient, NotFoundError } = await import('../../src/index.js');
    const client = new DeliveryClient({
      apiKey: mock.apiKey,
      sellerId: mock.sellerId,
      baseUrl: mock.baseUrl,
    });
    const error = await client.tasks.retrieve('no-such-task').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as InstanceType<typeof NotFoundError>).requestId).toMatch(/^req_\d{6}$/);
    expect((error as Error).message).toContain(
      (error as InstanceType<typeof NotFoundError>).requestId ?? 'missing',
    );
  });

  it('never puts the API key or the seller id in an error message', async () => {
    const result = await callService(mock, 'GET', 'tasks/wallet-balance', {
      headers: { authorization: 'apikey guessed-key', 'x-seller-id': 'guessed-seller' },
    });
    const text = JSON.stringify(result.body);
    for (const secret of [mock.apiKey, mock.sellerId, 'guessed-key', 'guessed-seller']) {
      expect(text).not.toContain(secret);
    }
  });

  it('accepts the apikey scheme in any letter case', async () => {
    const result = await callService(mock, 'GET', 'tasks/wallet-balance', {
      headers: { authorization: `APIKEY ${mock.apiKey}`, 'x-seller-id': mock.sellerId },
    });
    expect(result.status).toBe(200);
  });

  it('serves the reference form and the /rest form of every path', async () => {
    const reference = await callService(mock, 'GET', 'tasks/branches');
    const quickstart = await callService(mock, 'GET', 'rest/tasks/branches');
    expect(reference.status).toBe(200);
    expect(quickstart.body).toEqual(reference.body);
    const created = await createTask(mock, taskBody('ORD-FORMS'));
    const viaRest = await callService(mock, 'GET', `rest/tasks/${created.id}`);
    expect(viaRest.body).toEqual(created);
  });

  it('keeps nothing but a copy: changing a returned task changes nothing stored', async () => {
    const created = await createTask(mock, taskBody('ORD-COPY'));
    const copy = mock.task(created.id);
    if (!copy) throw new Error('task missing');
    copy.status = 'delivered';
    expect(mock.task(created.id)?.status).toBe('pending');
    expect(mock.tasks).toEqual([created]);
  });

  it('records every request with its operation, query, lower-case headers, body and status', async () => {
    await callService(mock, 'GET', 'tasks', { query: { limit: 5, search: 'x' } });
    await callService(mock, 'POST', 'tasks/estimate', {
      json: { from: MOCK_DEFAULTS.origin, to: MOCK_DEFAULTS.origin },
    });
    await callService(mock, 'GET', 'tasks/wallet-balance', { headers: {} });
    expect(mock.requests.map((request) => [request.operation, request.method, request.status])).toEqual([
      ['tasks.list', 'GET', 200],
      ['tasks.estimate', 'POST', 200],
      ['wallet.retrieveBalance', 'GET', 401],
    ]);
    const [list, estimate] = mock.requests;
    expect(list?.path).toBe('/tasks');
    expect(list?.query).toEqual({ limit: '5', search: 'x' });
    expect(list?.headers).toMatchObject({ ...credentials(mock) });
    expect(list?.body).toBeUndefined();
    expect(estimate?.body).toEqual({ from: MOCK_DEFAULTS.origin, to: MOCK_DEFAULTS.origin });
    expect(estimate?.headers['content-type']).toBe('application/json');
    expect(mock.requestsFor('tasks.estimate')).toEqual([estimate]);
    expect(mock.requestsFor('tasks.create')).toEqual([]);
  });

  it('answers 404 or 405 for paths under the service that no operation serves', async () => {
    const deeper = await callService(mock, 'GET', 'tasks/abc/def');
    expect(deeper).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    const wrongMethod = await callService(mock, 'DELETE', 'tasks/abc');
    expect(wrongMethod).toMatchObject({ status: 405, body: { code: 'METHOD_NOT_ALLOWED' } });
    expect(wrongMethod.headers.get('allow')).toBe('GET');
    expect(mock.requests.map((request) => request.operation)).toEqual(['unknown', 'unknown']);
  });

  it('lets a request to another origin through by default, naming it in one warning', async () => {
    const consoleWarn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      // Sent on to the network (none here: it fails there, not in the mock).
      await expect(fetch('https://not-the-service.test/tasks')).rejects.toThrow();
      await expect(fetch('https://not-the-service.test/other')).rejects.toThrow();
      const lines = consoleWarn.mock.calls
        .map((call) => String(call[0]))
        .filter((line) => line.includes('mock.listen()'));
      expect(lines).toEqual([
        expect.stringContaining('GET https://not-the-service.test/tasks is not the mock service'),
      ]);
    } finally {
      consoleWarn.mockRestore();
    }
  });

  it('refuses to listen twice', () => {
    expect(() => mock.listen()).toThrow(/already listening/);
  });

  it('keeps the API key out of its JSON form', () => {
    expect(JSON.stringify(mock)).not.toContain(mock.apiKey);
  });

  it('goes back to the initial state on reset', async () => {
    const opening = mock.wallet;
    await createTask(mock, taskBody('ORD-RESET'));
    const topUp = await callService(mock, 'POST', 'tasks/wallet-topup', { json: { amount: 10 } });
    mock.inject({ kind: 'status', status: 503, times: 5 });
    expect(mock.tasks).toHaveLength(1);
    mock.reset();
    expect(mock.tasks).toEqual([]);
    expect(mock.wallet).toEqual(opening);
    expect(mock.requests).toEqual([]);
    expect(() => mock.completeTopUp((topUp.body as { paymentUrl: string }).paymentUrl)).toThrow(/Unknown/);
    expect((await callService(mock, 'GET', 'tasks/wallet-balance')).status).toBe(200);
  });
});

describe('a mock under a base URL with a path prefix and /rest', () => {
  const mock = createMockDeliveryService({
    baseUrl: 'https://gateway.test/api/rest/',
    apiKey: 'key-2',
    sellerId: 'seller-2',
    createStatus: 201,
  });
  beforeAll(() => mock.listen());
  afterEach(() => mock.reset());
  afterAll(() => mock.close());

  it('normalises the base URL and serves both forms under the prefix', async () => {
    expect(mock.baseUrl).toBe('https://gateway.test/api/rest');
    const root = 'https://gateway.test/api';
    for (const base of [root, `${root}/rest`]) {
      expect((await callService(mock, 'GET', 'tasks/wallet-balance', { base })).status).toBe(200);
    }
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      await expect(
        callService(mock, 'GET', 'tasks/wallet-balance', { base: 'https://gateway.test' }),
      ).rejects.toThrow();
      expect(String(consoleError.mock.calls[0]?.[0])).toContain('https://gateway.test/tasks/wallet-balance');
    } finally {
      consoleError.mockRestore();
    }
  });

  it('checks its own credentials, not the defaults', async () => {
    const result = await callService(mock, 'GET', 'tasks/branches', {
      headers: { authorization: `apikey ${MOCK_DEFAULTS.apiKey}`, 'x-seller-id': MOCK_DEFAULTS.sellerId },
    });
    expect(result.status).toBe(401);
  });

  it('answers a create with the configured status and stores the caller as seller', async () => {
    const result = await callService(mock, 'POST', 'tasks', { json: taskBody('ORD-201') });
    expect(result.status).toBe(201);
    expect(result.body).toMatchObject({ data: { createTask: { sellerId: mock.sellerId } } });
  });
});

describe('the handlers of a mock in a server of your own', () => {
  const mock = createMockDeliveryService();
  const server = setupServer(...mock.handlers);
  beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
  afterAll(() => server.close());

  it('serve the service without mock.listen()', async () => {
    const created = await createTask(mock, taskBody('ORD-OWN-SERVER'));
    expect(mock.task(created.id)).toEqual(created);
  });
});

/** [options, option, message]: each bad option of the mock throws `ConfigurationError` in the one form. */
const BAD_OPTIONS: ReadonlyArray<[unknown, string, string]> = [
  ['all', 'options', 'Invalid options: expected an object, got "all"'],
  [{ apiKey: '' }, 'apiKey', 'Invalid apiKey: expected a non-empty string, got a string of 0 characters'],
  [{ sellerId: 7 }, 'sellerId', 'Invalid sellerId: expected a non-empty string, got a number'],
  [
    { baseUrl: 'delivery.test' },
    'baseUrl',
    'Invalid baseUrl: expected an absolute http(s) URL without query, fragment or credentials, got "delivery.test"',
  ],
  [
    { baseUrl: 'https://delivery.test/?a=1' },
    'baseUrl',
    'Invalid baseUrl: expected an absolute http(s) URL without query, fragment or credentials, got "https://delivery.test/?a=1"',
  ],
  [{ account: 'wallet' }, 'account', 'Invalid account: expected an object, got "wallet"'],
  [
    { account: { type: 'credit' } },
    'account.type',
    "Invalid account.type: expected 'wallet' or 'invoice', got \"credit\"",
  ],
  [
    { account: { type: 'wallet', balance: -1 } },
    'account.balance',
    'Invalid account.balance: expected a KWD amount ≥ 0 with at most 3 decimals, like 2.5 or "2.500", got -1',
  ],
  [
    { account: { type: 'wallet', balance: 1.2345 } },
    'account.balance',
    'Invalid account.balance: expected a KWD amount ≥ 0 with at most 3 decimals, like 2.5 or "2.500", got 1.2345',
  ],
  [
    { account: { type: 'wallet' } },
    'account.balance',
    'Invalid account.balance: expected a KWD amount ≥ 0 with at most 3 decimals, like 2.5 or "2.500", got nothing',
  ],
  [
    { account: { type: 'wallet', balance: 5, limit: 1 } },
    'account.limit',
    'Invalid account.limit: expected a known option, got a number',
  ],
  [
    { pricing: { perKm: 'abc' } },
    'pricing.perKm',
    'Invalid pricing.perKm: expected a KWD amount ≥ 0 with at most 3 decimals, like 2.5 or "2.500", got "abc"',
  ],
  [
    { origin: { latitude: 91, longitude: 0 } },
    'origin.latitude',
    'Invalid origin.latitude: expected a number from -90 to 90, got 91',
  ],
  [
    { origin: { latitude: 29 } },
    'origin.longitude',
    'Invalid origin.longitude: expected a number from -180 to 180, got nothing',
  ],
  [
    { branches: 'Salmiya' },
    'branches',
    'Invalid branches: expected an array of branch names or { name, … } objects, got "Salmiya"',
  ],
  [
    { branches: ['A', 'B', { id: 'c' }] },
    'branches.2.name',
    'Invalid branches.2.name: expected a non-empty string, got nothing',
  ],
  [{ branches: ['A', ' '] }, 'branches.1', 'Invalid branches.1: expected a non-empty string, got " "'],
  [
    { branches: ['A', 7] },
    'branches.1',
    'Invalid branches.1: expected a branch name or a { name, … } object, got 7',
  ],
  [
    { branches: ['A', { name: 'A' }] },
    'branches.1.name',
    'Invalid branches.1.name: expected a name no other branch has, got "A"',
  ],
  [
    { webhookUrl: 'mailto:a@b.test' },
    'webhookUrl',
    'Invalid webhookUrl: expected an absolute http(s) URL, got "mailto:a@b.test"',
  ],
  [{ createStatus: 204 }, 'createStatus', 'Invalid createStatus: expected 200 or 201, got 204'],
  [{ now: 'today' }, 'now', 'Invalid now: expected a function returning a Date, got "today"'],
  [{ tasks: {} }, 'tasks', 'Invalid tasks: expected an array of at most 10000 seed tasks, got an object'],
  [{ recordLimit: 0 }, 'recordLimit', 'Invalid recordLimit: expected an integer ≥ 1, got 0'],
  [{ taskLimit: 1.5 }, 'taskLimit', 'Invalid taskLimit: expected an integer ≥ 1, got 1.5'],
  [
    { taskLimit: 1, tasks: [{ id: 'a' }, { id: 'b' }] },
    'taskLimit',
    'Invalid taskLimit: expected an integer ≥ the number of seed tasks (2), got 1',
  ],
  [
    { taskLimt: 5 },
    'taskLimt',
    'Invalid taskLimt: expected a known option (did you mean taskLimit?), got a number',
  ],
];

describe('createMockDeliveryService options', () => {
  it.each(BAD_OPTIONS)('refuses %j as ConfigurationError naming %s', (options, option, message) => {
    const build = () => createMockDeliveryService(options as MockDeliveryServiceOptions);
    expect(build).toThrow(ConfigurationError);
    expect(build).toThrow(expect.objectContaining({ option, message }));
    // The same check, without building a mock.
    expect(() => checkMockOptions(options as MockDeliveryServiceOptions)).toThrow(
      expect.objectContaining({ option, message }),
    );
  });

  it('shows a rejected API key or seller id only by its kind and length', () => {
    expect(() => createMockDeliveryService({ apiKey: '   ' })).toThrow(
      expect.objectContaining({
        option: 'apiKey',
        message: 'Invalid apiKey: expected a non-empty string, got a string of 3 characters',
      }),
    );
    expect(() => createMockDeliveryService({ sellerId: '\t' })).toThrow(
      expect.objectContaining({
        option: 'sellerId',
        message: 'Invalid sellerId: expected a non-empty string, got a string of 1 characters',
      }),
    );
  });

  it('checkMockOptions accepts what the mock accepts, and builds nothing', () => {
    expect(checkMockOptions()).toBeUndefined();
    expect(
      checkMockOptions({
        account: { type: 'invoice' },
        branches: ['North', { name: 'South', id: 's' }],
        tasks: [{ id: 'seed-1', status: 'accepted' }],
        webhookUrl: 'http://127.0.0.1:9/hooks',
      }),
    ).toBeUndefined();
  });
});
