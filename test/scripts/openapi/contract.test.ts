/**
 * The mock against the shipped OpenAPI document, over real HTTP: every answer the mock gives, on every
 * endpoint and error status it produces, must be the response the document declares for that operation
 * and status. The judge (test/support/openapi-contract.ts) validates with Ajv against the generated
 * document, never with the SDK's zod schemas; requests are plain `fetch` calls, no SDK client.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createMockDeliveryService,
  type MockDeliveryService,
  type MockDeliveryServiceOptions,
  type MockHttpServer,
  type MockOperation,
  startMockHttpServer,
} from '../../../src/testing.js';
import {
  assertResponseMatchesContract,
  assertWebhookMatchesContract,
  ContractViolation,
  contractJudge,
  type ObservedResponse,
} from '../../support/openapi-contract.js';

/** The mocks the cases run against. */
type MockName = 'wallet' | 'poor' | 'invoice' | 'created201';

const MOCK_OPTIONS: Record<MockName, MockDeliveryServiceOptions> = {
  wallet: { account: { type: 'wallet', balance: 500 } },
  poor: { account: { type: 'wallet', balance: 0.5 } },
  invoice: { account: { type: 'invoice' } },
  created201: { createStatus: 201 },
};

interface Running {
  readonly mock: MockDeliveryService;
  readonly server: MockHttpServer;
}

const running = new Map<MockName, Running>();
/** Ids of tasks made in beforeAll: one still pending, one delivered, one cancelled. */
const taskIds = { pending: '', delivered: '', cancelled: '' };

function runningMock(name: MockName): Running {
  const entry = running.get(name);
  if (!entry) throw new Error(`mock ${name} is not running`);
  return entry;
}

const order = (orderNumber: string) => ({
  orderNumber,
  customerName: `Customer ${orderNumber}`,
  customerNumber: '+96550001234',
  collectCash: true,
  totalAmount: '12.500',
  deliveryLocation: { latitude: 29.3339, longitude: 48.0761, fullAddress: ['Block 10, Street 5', 'Salmiya'] },
});

/** A request as the cases describe it: a path relative to the server URL. */
interface Exchange {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  /** A JSON body (serialised, with `content-type: application/json`). */
  json?: unknown;
  /** A raw body and its content type, for malformed requests. */
  raw?: { text: string; contentType: string };
  /** Credentials: both headers (default), none, or a wrong API key. */
  auth?: 'good' | 'none' | 'wrong-key' | 'no-seller';
}

/** Sends one request with plain fetch and reads the answer as the judge wants it. */
async function send(name: MockName, exchange: Exchange): Promise<ObservedResponse> {
  const { mock, server } = runningMock(name);
  const headers = new Headers();
  const auth = exchange.auth ?? 'good';
  if (auth === 'good' || auth === 'no-seller') headers.set('authorization', `apikey ${mock.apiKey}`);
  if (auth === 'wrong-key') headers.set('authorization', 'apikey not-the-key');
  if (auth !== 'none' && auth !== 'no-seller') headers.set('x-seller-id', mock.sellerId);
  let body: string | undefined;
  if (exchange.json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(exchange.json);
  } else if (exchange.raw) {
    headers.set('content-type', exchange.raw.contentType);
    body = exchange.raw.text;
  }
  const url = new URL(`${server.url}${exchange.path}`);
  const response = await fetch(url, {
    method: exchange.method,
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  let parsed: unknown = text === '' ? undefined : text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // Not JSON: the judge sees the text.
  }
  return {
    method: exchange.method,
    path: url.pathname + url.search,
    status: response.status,
    body: parsed,
    contentType: response.headers.get('content-type'),
  };
}

/** One case: a request to one mock, optionally a fault first, and the status the mock must answer. */
interface Case {
  name: string;
  mock: MockName;
  /** Injected before the request (for the statuses the mock only gives under faults). */
  fault?: { operation: MockOperation; status: number; headers?: Record<string, string> };
  request: () => Exchange;
  status: number;
  /** The operation the document must route the request to. */
  operationId: string;
}

const CASES: Case[] = [
  // Statuses the mock gives by itself; the ones only faults give are added below.
  // POST /tasks
  {
    name: 'a create with a delivery point',
    mock: 'wallet',
    request: () => ({ method: 'POST', path: '/tasks', json: order('C-1') }),
    status: 200,
    operationId: 'createTask',
  },
  {
    name: 'a create with a custom pickup from a branch, quickstart form',
    mock: 'wallet',
    request: () => ({
      method: 'POST',
      path: '/rest/tasks',
      json: {
        ...order('C-2'),
        customPickup: true,
        selectedBranch: 'Salmiya',
        pickupName: 'Front desk',
        pickupNotes: 'Ring',
      },
    }),
    status: 200,
    operationId: 'createTask',
  },
  {
    name: 'an empty create (the spec marks no field required)',
    mock: 'wallet',
    request: () => ({ method: 'POST', path: '/tasks', json: {} }),
    status: 200,
    operationId: 'createTask',
  },
  {
    name: 'a create on a mock configured to answer 201',
    mock: 'created201',
    request: () => ({ method: 'POST', path: '/tasks', json: order('C-3') }),
    status: 201,
    operationId: 'createTask',
  },
  {
    name: 'a create whose body is not JSON',
    mock: 'wallet',
    request: () => ({
      method: 'POST',
      path: '/tasks',
      raw: { text: '{"orderNumber":', contentType: 'application/json' },
    }),
    status: 400,
    operationId: 'createTask',
  },
  {
    name: 'a create sent as text/plain',
    mock: 'wallet',
    request: () => ({ method: 'POST', path: '/tasks', raw: { text: '{}', contentType: 'text/plain' } }),
    status: 400,
    operationId: 'createTask',
  },
  {
    name: 'a create with an unknown field',
    mock: 'wallet',
    request: () => ({ method: 'POST', path: '/tasks', json: { ...order('C-4'), colour: 'red' } }),
    status: 400,
    operationId: 'createTask',
  },
  {
    name: 'a create with selectedBranch but no customPickup',
    mock: 'wallet',
    request: () => ({ method: 'POST', path: '/tasks', json: { ...order('C-5'), selectedBranch: 'Salmiya' } }),
    status: 400,
    operationId: 'createTask',
  },
  {
    name: "a create for another seller's id",
    mock: 'wallet',
    request: () => ({ method: 'POST', path: '/tasks', json: { ...order('C-6'), sellerId: 'someone-else' } }),
    status: 400,
    operationId: 'createTask',
  },
  {
    name: 'a create on a wallet below the fee',
    mock: 'poor',
    request: () => ({ method: 'POST', path: '/tasks', json: order('C-7') }),
    status: 402,
    operationId: 'createTask',
  },
  {
    name: 'a create without credentials',
    mock: 'wallet',
    request: () => ({ method: 'POST', path: '/tasks', json: order('C-8'), auth: 'none' }),
    status: 401,
    operationId: 'createTask',
  },
  // GET /tasks
  {
    name: 'the first page of tasks',
    mock: 'wallet',
    request: () => ({ method: 'GET', path: '/tasks' }),
    status: 200,
    operationId: 'listTasks',
  },
  {
    name: 'a sorted, searched second page, quickstart form',
    mock: 'wallet',
    request: () => ({
      method: 'GET',
      path: '/rest/tasks?limit=1&page=2&search=C-&ignoreRegex=true&sortBy=createdAt&sortOrder=-1',
    }),
    status: 200,
    operationId: 'listTasks',
  },
  {
    name: 'a page past the end',
    mock: 'wallet',
    request: () => ({ method: 'GET', path: '/tasks?page=99' }),
    status: 200,
    operationId: 'listTasks',
  },
  {
    name: 'a list with limit 11',
    mock: 'wallet',
    request: () => ({ method: 'GET', path: '/tasks?limit=11' }),
    status: 400,
    operationId: 'listTasks',
  },
  {
    name: 'a list with an invalid regular expression',
    mock: 'wallet',
    request: () => ({ method: 'GET', path: '/tasks?search=(&ignoreRegex=false' }),
    status: 400,
    operationId: 'listTasks',
  },
  {
    name: 'a list with a wrong API key',
    mock: 'wallet',
    request: () => ({ method: 'GET', path: '/tasks', auth: 'wrong-key' }),
    status: 401,
    operationId: 'listTasks',
  },
  // GET /tasks/{id}
  {
    name: 'a pending task',
    mock: 'wallet',
    request: () => ({ method: 'GET', path: `/tasks/${taskIds.pending}` }),
    status: 200,
    operationId: 'retrieveTask',
  },
  {
    name: 'a delivered task (driver, history, completion time)',
    mock: 'wallet',
    request: () => ({ method: 'GET', path: `/rest/tasks/${taskIds.delivered}` }),
    status: 200,
    operationId: 'retrieveTask',
  },
  {
    name: 'a cancelled task',
    mock: 'wallet',
    request: () => ({ method: 'GET', path: `/tasks/${taskIds.cancelled}` }),
    status: 200,
    operationId: 'retrieveTask',
  },
  {
    name: 'an unknown task id',
    mock: 'wallet',
    request: () => ({ method: 'GET', path: '/tasks/000000000000000000000000' }),
    status: 404,
    operationId: 'retrieveTask',
  },
  {
    name: 'a task id with malformed percent-encoding',
    mock: 'wallet',
    request: () => ({ method: 'GET', path: '/tasks/%E0%A4%A' }),
    status: 400,
    operationId: 'retrieveTask',
  },
  {
    name: 'a task without the seller header',
    mock: 'wallet',
    request: () => ({ method: 'GET', path: `/tasks/${taskIds.pending}`, auth: 'no-seller' }),
    status: 401,
    operationId: 'retrieveTask',
  },
  // POST /tasks/estimate
  {
    name: 'an estimate',
    mock: 'wallet',
    request: () => ({
      method: 'POST',
      path: '/tasks/estimate',
      json: {
        from: { latitude: 29.3759, longitude: 47.9774 },
        to: { latitude: 29.3339, longitude: 48.0761 },
      },
    }),
    status: 200,
    operationId: 'estimateTask',
  },
  {
    name: 'an estimate with a latitude out of range',
    mock: 'wallet',
    request: () => ({
      method: 'POST',
      path: '/rest/tasks/estimate',
      json: { from: { latitude: 91, longitude: 47.9774 }, to: { latitude: 29.3339, longitude: 48.0761 } },
    }),
    status: 400,
    operationId: 'estimateTask',
  },
  {
    name: 'an estimate without credentials',
    mock: 'wallet',
    request: () => ({ method: 'POST', path: '/tasks/estimate', json: {}, auth: 'none' }),
    status: 401,
    operationId: 'estimateTask',
  },
  // GET /tasks/branches
  {
    name: 'the branches',
    mock: 'wallet',
    request: () => ({ method: 'GET', path: '/tasks/branches' }),
    status: 200,
    operationId: 'listBranches',
  },
  {
    name: 'the branches without credentials',
    mock: 'wallet',
    request: () => ({ method: 'GET', path: '/rest/tasks/branches', auth: 'none' }),
    status: 401,
    operationId: 'listBranches',
  },
  // GET /tasks/wallet-balance
  {
    name: 'the balance of a wallet account',
    mock: 'wallet',
    request: () => ({ method: 'GET', path: '/tasks/wallet-balance' }),
    status: 200,
    operationId: 'retrieveWalletBalance',
  },
  {
    name: 'the balance of an invoice account',
    mock: 'invoice',
    request: () => ({ method: 'GET', path: '/rest/tasks/wallet-balance' }),
    status: 200,
    operationId: 'retrieveWalletBalance',
  },
  {
    name: 'the balance with a wrong API key',
    mock: 'wallet',
    request: () => ({ method: 'GET', path: '/tasks/wallet-balance', auth: 'wrong-key' }),
    status: 401,
    operationId: 'retrieveWalletBalance',
  },
  // POST /tasks/wallet-topup
  {
    name: 'a top-up',
    mock: 'wallet',
    request: () => ({ method: 'POST', path: '/tasks/wallet-topup', json: { amount: 12.5 } }),
    status: 200,
    operationId: 'topUpWallet',
  },
  {
    name: 'a top-up below 5 KWD',
    mock: 'wallet',
    request: () => ({ method: 'POST', path: '/rest/tasks/wallet-topup', json: { amount: 4.999 } }),
    status: 400,
    operationId: 'topUpWallet',
  },
  {
    name: 'a top-up with 4 decimals',
    mock: 'wallet',
    request: () => ({ method: 'POST', path: '/tasks/wallet-topup', json: { amount: 5.0001 } }),
    status: 400,
    operationId: 'topUpWallet',
  },
  {
    name: 'a top-up on an invoice account',
    mock: 'invoice',
    request: () => ({ method: 'POST', path: '/tasks/wallet-topup', json: { amount: 10 } }),
    status: 400,
    operationId: 'topUpWallet',
  },
  {
    name: 'a top-up without credentials',
    mock: 'wallet',
    request: () => ({ method: 'POST', path: '/tasks/wallet-topup', json: { amount: 10 }, auth: 'none' }),
    status: 401,
    operationId: 'topUpWallet',
  },
];

/** A valid request of each operation, for the statuses only faults produce. */
const VALID_REQUESTS: Record<MockOperation, { operationId: string; request: () => Exchange }> = {
  'tasks.create': {
    operationId: 'createTask',
    request: () => ({ method: 'POST', path: '/tasks', json: order('F-1') }),
  },
  'tasks.list': { operationId: 'listTasks', request: () => ({ method: 'GET', path: '/tasks' }) },
  'tasks.retrieve': {
    operationId: 'retrieveTask',
    request: () => ({ method: 'GET', path: `/tasks/${taskIds.pending}` }),
  },
  'tasks.estimate': {
    operationId: 'estimateTask',
    request: () => ({
      method: 'POST',
      path: '/tasks/estimate',
      json: {
        from: { latitude: 29.3759, longitude: 47.9774 },
        to: { latitude: 29.3339, longitude: 48.0761 },
      },
    }),
  },
  'branches.list': {
    operationId: 'listBranches',
    request: () => ({ method: 'GET', path: '/tasks/branches' }),
  },
  'wallet.retrieveBalance': {
    operationId: 'retrieveWalletBalance',
    request: () => ({ method: 'GET', path: '/tasks/wallet-balance' }),
  },
  'wallet.topUp': {
    operationId: 'topUpWallet',
    request: () => ({ method: 'POST', path: '/tasks/wallet-topup', json: { amount: 10 } }),
  },
};

/**
 * Statuses the mock gives only under fault injection (its default body `{ message, code }`), on every
 * operation: the ones the SDK maps to classes or retries, with the retry headers where they apply.
 */
const INJECTED: readonly { status: number; headers?: Record<string, string> }[] = [
  { status: 403 },
  { status: 404 },
  { status: 409 },
  { status: 422 },
  { status: 429, headers: { 'retry-after': '1' } },
  { status: 429, headers: { 'retry-after-ms': '250' } },
  { status: 500 },
  { status: 502 },
  { status: 503, headers: { 'retry-after': 'Wed, 21 Oct 2037 07:28:00 GMT' } },
  { status: 504 },
];

CASES.push(
  ...(Object.entries(VALID_REQUESTS) as [MockOperation, (typeof VALID_REQUESTS)[MockOperation]][]).flatMap(
    ([operation, { operationId, request }]) =>
      INJECTED.map(({ status, headers }) => ({
        name: `answered ${status}${headers ? ` with ${Object.keys(headers).join(', ')}` : ''} by a fault`,
        mock: 'wallet' as const,
        fault: { operation, status, ...(headers ? { headers } : {}) },
        request,
        status,
        operationId,
      })),
  ),
);

/** A real webhook receiver on 127.0.0.1 that keeps every body it is sent. */
const received: { contentType: string | undefined; body: unknown }[] = [];
const receiver = createServer((request: IncomingMessage, response: ServerResponse) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    received.push({
      contentType: request.headers['content-type'],
      body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown,
    });
    response.writeHead(200).end();
  });
});
let webhookMock: MockDeliveryService;
let webhookServer: MockHttpServer;

beforeAll(async () => {
  for (const [name, options] of Object.entries(MOCK_OPTIONS) as [MockName, MockDeliveryServiceOptions][]) {
    const mock = createMockDeliveryService(options);
    running.set(name, { mock, server: await startMockHttpServer(mock) });
  }
  const { mock } = runningMock('wallet');
  for (const key of ['pending', 'delivered', 'cancelled'] as const) {
    const answer = await send('wallet', { method: 'POST', path: '/tasks', json: order(`SETUP-${key}`) });
    taskIds[key] = (answer.body as { data: { createTask: { id: string } } }).data.createTask.id;
  }
  await mock.advance(taskIds.delivered, 'delivered');
  await mock.advance(taskIds.cancelled, 'cancelled');

  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;
  webhookMock = createMockDeliveryService({ webhookUrl: `http://127.0.0.1:${port}/hooks/delivery` });
  webhookServer = await startMockHttpServer(webhookMock);
});

afterAll(async () => {
  for (const { mock, server } of running.values()) {
    await server.close();
    mock.close();
  }
  await webhookServer?.close();
  webhookMock?.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

describe('every answer of the mock over HTTP is the response the OpenAPI document declares', () => {
  for (const testCase of CASES) {
    it(`${testCase.operationId}: ${testCase.name} → ${testCase.status}`, async () => {
      if (testCase.fault) runningMock(testCase.mock).mock.inject({ kind: 'status', ...testCase.fault });
      const observed = await send(testCase.mock, testCase.request());
      expect(observed.status, JSON.stringify(observed.body)).toBe(testCase.status);
      const match = assertResponseMatchesContract(observed);
      expect(match.operationId).toBe(testCase.operationId);
      // An exact code when the document names it, else the range.
      const declared = contractJudge().operations.find(
        (operation) => operation.operationId === testCase.operationId,
      );
      const exact = declared?.responseKeys.includes(String(testCase.status));
      expect(match.responseKey).toBe(exact ? String(testCase.status) : `${String(testCase.status)[0]}XX`);
    });
  }

  it('the cases reach every operation of the document and every status and range it declares', () => {
    const missing: string[] = [];
    for (const operation of contractJudge().operations) {
      for (const key of operation.responseKeys) {
        const reached = CASES.some(
          (testCase) =>
            testCase.operationId === operation.operationId &&
            (String(testCase.status) === key ||
              (key.endsWith('XX') &&
                String(testCase.status)[0] === key[0] &&
                !operation.responseKeys.includes(String(testCase.status)))),
        );
        if (!reached) missing.push(`${operation.operationId} ${key}`);
      }
    }
    expect(missing).toEqual([]);
    expect(new Set(CASES.map((testCase) => testCase.operationId)).size).toBe(
      contractJudge().operations.length,
    );
  });
});

describe('the webhook bodies the mock POSTs match the document’s webhooks', () => {
  it('judges every POST of a delivery, and of a cancellation, received over HTTP', async () => {
    received.length = 0;
    const created: string[] = [];
    for (const orderNumber of ['W-1', 'W-2']) {
      const { mock, url } = { mock: webhookMock, url: webhookServer.url };
      const response = await fetch(`${url}/tasks`, {
        method: 'POST',
        headers: {
          authorization: `apikey ${mock.apiKey}`,
          'x-seller-id': mock.sellerId,
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          ...order(orderNumber),
          pickupName: 'Front desk',
          alternateCustomerNumber: '+96550009999',
        }),
      });
      created.push(((await response.json()) as { data: { createTask: { id: string } } }).data.createTask.id);
    }
    const [delivered = '', cancelled = ''] = created;
    await webhookMock.advance(delivered, 'delivered');
    await webhookMock.advance(cancelled, 'accepted');
    await webhookMock.advance(cancelled, 'cancelled');

    // requested, accepted, inprogress, pickup_location_reached, pickedup, enroute, delivered; requested, accepted, cancelled.
    expect(received.map(({ body }) => (body as { status: string }).status)).toEqual([
      'requested',
      'accepted',
      'inprogress',
      'pickup_location_reached',
      'pickedup',
      'enroute',
      'delivered',
      'requested',
      'accepted',
      'cancelled',
    ]);
    for (const { contentType, body } of received) {
      expect(contentType).toMatch(/^application\/json/);
      assertWebhookMatchesContract(body);
    }
  });
});

describe('answers outside the contract fail the judge', () => {
  it('a status the operation does not declare (202 injected on the branches)', async () => {
    runningMock('wallet').mock.inject({ kind: 'status', operation: 'branches.list', status: 202 });
    const observed = await send('wallet', { method: 'GET', path: '/tasks/branches' });
    expect(observed.status).toBe(202);
    expect(() => assertResponseMatchesContract(observed)).toThrow(
      /status 202 is not declared for listBranches/,
    );
  });

  it('a redirect (302 injected on the balance)', async () => {
    runningMock('wallet').mock.inject({ kind: 'status', operation: 'wallet.retrieveBalance', status: 302 });
    const observed = await send('wallet', { method: 'GET', path: '/tasks/wallet-balance' });
    expect(observed.status).toBe(302);
    expect(() => assertResponseMatchesContract(observed)).toThrow(ContractViolation);
  });

  it('a 200 whose body is not JSON (fault invalid-json)', async () => {
    runningMock('wallet').mock.inject({ kind: 'invalid-json', operation: 'wallet.retrieveBalance' });
    const observed = await send('wallet', { method: 'GET', path: '/tasks/wallet-balance' });
    expect(observed.status).toBe(200);
    expect(() => assertResponseMatchesContract(observed)).toThrow(/body must be object/);
  });

  it('a 200 whose balance is text (a body injected with the wrong type)', async () => {
    runningMock('wallet').mock.inject({
      kind: 'status',
      operation: 'wallet.retrieveBalance',
      status: 200,
      body: { walletAmount: '12.500' },
    });
    const observed = await send('wallet', { method: 'GET', path: '/tasks/wallet-balance' });
    expect(() => assertResponseMatchesContract(observed)).toThrow(/body\/walletAmount must be number/);
  });

  it('an error body in another format (`{ error }` without message and code)', async () => {
    runningMock('wallet').mock.inject({
      kind: 'status',
      operation: 'tasks.list',
      status: 500,
      body: { error: 'boom' },
    });
    const observed = await send('wallet', { method: 'GET', path: '/tasks' });
    expect(observed.status).toBe(500);
    expect(() => assertResponseMatchesContract(observed)).toThrow(/must have required property 'message'/);
  });

  it('a method the document has no operation for (405 from the mock)', async () => {
    const observed = await send('wallet', { method: 'DELETE', path: `/tasks/${taskIds.pending}` });
    expect(observed.status).toBe(405);
    expect(() => assertResponseMatchesContract(observed)).toThrow(/\/tasks\/\{id\} has no DELETE operation/);
  });

  it('GET on a concrete path is not read as a task id (GET /tasks/estimate)', async () => {
    const observed = await send('wallet', { method: 'GET', path: '/tasks/estimate' });
    expect(observed.status).toBe(405);
    expect(() => assertResponseMatchesContract(observed)).toThrow(/\/tasks\/estimate has no GET operation/);
  });

  it('a path the document does not have (404 from the mock)', async () => {
    const observed = await send('wallet', { method: 'GET', path: '/tasks/a/b' });
    expect(observed.status).toBe(404);
    expect(() => assertResponseMatchesContract(observed)).toThrow(
      /no path of the document matches \/tasks\/a\/b/,
    );
  });
});
