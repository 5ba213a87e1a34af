/**
 * The contract judge (test/support/openapi-contract.ts) can fail: real bodies of the mock pass it, and
 * the same bodies with one field of the wrong type, a required field missing, or at a status or path the
 * document does not declare, do not. The fields mutated are the spec's (written here from its tables),
 * not read from the document, so a field the document forgot to type would show up as a mutation that
 * passes.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createMockDeliveryService,
  type MockDeliveryService,
  type MockHttpServer,
  startMockHttpServer,
} from '../../../src/testing.js';
import {
  assertResponseMatchesContract,
  assertWebhookMatchesContract,
  ContractViolation,
  type ObservedResponse,
} from '../../support/openapi-contract.js';

/** Receives the mock's webhooks over HTTP (answers 200). */
const receiver = createServer((_request, response) => response.writeHead(200).end());
let mock: MockDeliveryService;
let server: MockHttpServer;
/** Real answers of the mock, by name. */
const answers: Record<string, ObservedResponse> = {};
let webhookBody: Record<string, unknown> = {};

async function call(method: 'GET' | 'POST', path: string, json?: unknown): Promise<ObservedResponse> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `apikey ${mock.apiKey}`,
      'x-seller-id': mock.sellerId,
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  return {
    method,
    path: new URL(response.url).pathname,
    status: response.status,
    body: await response.json(),
    contentType: response.headers.get('content-type'),
  };
}

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;
  mock = createMockDeliveryService({ webhookUrl: `http://127.0.0.1:${port}/hooks` });
  server = await startMockHttpServer(mock);
  const created = await call('POST', '/tasks', {
    orderNumber: 'J-1',
    customerName: 'Customer J-1',
    customPickup: true,
    selectedBranch: 'Salmiya',
    deliveryLocation: { latitude: 29.3339, longitude: 48.0761, fullAddress: ['Block 10', 'Salmiya'] },
  });
  answers.created = created;
  const id = (created.body as { data: { createTask: { id: string } } }).data.createTask.id;
  await mock.advance(id, 'delivered');
  answers.task = await call('GET', `/tasks/${id}`);
  answers.page = await call('GET', '/tasks');
  answers.estimate = await call('POST', '/tasks/estimate', {
    from: { latitude: 29.3759, longitude: 47.9774 },
    to: { latitude: 29.3339, longitude: 48.0761 },
  });
  answers.branches = await call('GET', '/tasks/branches');
  answers.balance = await call('GET', '/tasks/wallet-balance');
  answers.topUp = await call('POST', '/tasks/wallet-topup', { amount: 10 });
  answers.notFound = await call('GET', '/tasks/unknown-task');
  // The webhook form of the same delivered task, as the mock POSTed it.
  const delivered = mock.webhookDeliveries.at(-1);
  expect(delivered?.status).toBe('delivered');
  expect(delivered?.responseStatus).toBe(200);
  webhookBody = structuredClone(delivered?.body ?? {});
});

afterAll(async () => {
  await server.close();
  mock.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

/** A value of another JSON type than `value`'s. */
function wrongType(value: unknown): unknown {
  if (typeof value === 'string') return 42;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return 'true';
  if (Array.isArray(value)) return 'not an array';
  if (typeof value === 'object' && value !== null) return 'not an object';
  return { unexpected: true };
}

/** A copy of `body` with the value at `path` replaced (`'driver.name'`, `'statusHistory.0.status'`). */
function withValue(body: unknown, path: string, replace: (value: unknown) => unknown): unknown {
  const copy = structuredClone(body) as Record<string, unknown>;
  const keys = path.split('.');
  const last = keys.pop() ?? '';
  let node: Record<string, unknown> = copy;
  for (const key of keys) node = node[key] as Record<string, unknown>;
  if (!(last in node)) throw new Error(`the mock's body has no ${path}: pick a field it sends`);
  node[last] = replace(node[last]);
  return copy;
}

function withoutField(body: unknown, path: string): unknown {
  const copy = structuredClone(body) as Record<string, unknown>;
  const keys = path.split('.');
  const last = keys.pop() ?? '';
  let node: Record<string, unknown> = copy;
  for (const key of keys) node = node[key] as Record<string, unknown>;
  delete node[last];
  return copy;
}

function answer(name: string): ObservedResponse {
  const found = answers[name];
  if (!found) throw new Error(`no answer ${name}`);
  return found;
}

/** Fields of a task the spec types (§ Task and its parts) and the mock sends for a delivered task. */
const TASK_FIELDS = [
  'id',
  'sellerId',
  'sellerName',
  'orderNumber',
  'customerName',
  'collectCash',
  'status',
  'retailpartner',
  'customPickup',
  'statusHistory',
  'statusHistory.0.id',
  'statusHistory.0.status',
  'statusHistory.0.timestamp',
  'createdAt',
  'updatedAt',
  'deliveryId',
  'driver',
  'driver.name',
  'driver.phone',
  'driver.trackingLink',
  'completedTime',
  'sellerDetail',
  'sellerDetail.shopName',
  'sellerDetail.location',
  'deliveryDispatched',
  'pickupLocation',
  'pickupLocation.latitude',
  'pickupLocation.longitude',
  'addressDetails',
  'addressDetails.toAddr',
  'addressDetails.toAddr.address',
  'addressDetails.toAddr.moreInfo',
  'addressDetails.toAddr.moreInfo.country',
  'addressDetails.fromAddr.moreInfo.streetName',
  'travelDetail',
  'travelDetail.totalDistance',
  'travelDetail.duration',
  'travelDetail.durationInTraffic',
  'travelDetail.hasTraffic',
  'travelDetail.estimatedDelayByTraffic',
];

describe('real answers of the mock pass the judge', () => {
  it('every answer fetched for the mutations', () => {
    for (const name of Object.keys(answers))
      expect(() => assertResponseMatchesContract(answer(name)), name).not.toThrow();
    expect(Object.keys(answers)).toHaveLength(8);
    assertWebhookMatchesContract(webhookBody);
  });
});

describe('a task field of the wrong type fails the judge', () => {
  for (const field of TASK_FIELDS) {
    it(`GET /tasks/{id} with ${field} of another type`, () => {
      const observed = answer('task');
      const body = withValue(observed.body, field, wrongType);
      const pointer = `body/${field.replaceAll('.', '/')}`;
      expect(() => assertResponseMatchesContract({ ...observed, body })).toThrow(pointer);
    });
  }

  it('the same field inside a page, a create envelope and a webhook body', () => {
    const page = answer('page');
    expect(() =>
      assertResponseMatchesContract({
        ...page,
        body: withValue(page.body, 'tasks.0.collectCash', wrongType),
      }),
    ).toThrow('body/tasks/0/collectCash must be boolean');
    const created = answer('created');
    expect(() =>
      assertResponseMatchesContract({
        ...created,
        body: withValue(created.body, 'data.createTask.statusHistory', wrongType),
      }),
    ).toThrow('body/data/createTask/statusHistory must be array');
    for (const field of [
      'status',
      '_id',
      'walletDeducted',
      'estimatedPrice',
      'driver.completed_at',
      'deliveryLocation.lat',
    ]) {
      expect(() => assertWebhookMatchesContract(withValue(webhookBody, field, wrongType)), field).toThrow(
        ContractViolation,
      );
    }
  });
});

describe('other broken answers fail the judge', () => {
  const cases: { name: string; from: string; change: (body: unknown) => unknown; message: RegExp }[] = [
    {
      name: 'a page without total',
      from: 'page',
      change: (b) => withoutField(b, 'total'),
      message: /required property 'total'/,
    },
    {
      name: 'a page number 1.5',
      from: 'page',
      change: (b) => withValue(b, 'page', () => 1.5),
      message: /body\/page must be integer/,
    },
    {
      name: 'a create without its envelope',
      from: 'created',
      change: (b) => withoutField(b, 'data'),
      message: /required property 'data'/,
    },
    {
      name: 'an estimate price as text',
      from: 'estimate',
      change: (b) => withValue(b, 'price', wrongType),
      message: /body\/price must be number/,
    },
    {
      name: 'a branch name as a number',
      from: 'branches',
      change: (b) => withValue(b, 'branches.0.name', () => 7),
      message: /body\/branches\/0/,
    },
    {
      name: 'a balance without walletAmount',
      from: 'balance',
      change: (b) => withoutField(b, 'walletAmount'),
      message: /required property 'walletAmount'/,
    },
    {
      name: 'a top-up without paymentUrl',
      from: 'topUp',
      change: (b) => withoutField(b, 'paymentUrl'),
      message: /required property 'paymentUrl'/,
    },
    {
      name: 'a 404 without code',
      from: 'notFound',
      change: (b) => withoutField(b, 'code'),
      message: /required property 'code'/,
    },
    {
      name: 'a 404 whose message is a number',
      from: 'notFound',
      change: (b) => withValue(b, 'message', wrongType),
      message: /body\/message must be string/,
    },
    { name: 'an empty 200', from: 'balance', change: () => undefined, message: /body must be object/ },
  ];
  for (const { name, from, change, message } of cases) {
    it(name, () => {
      const observed = answer(from);
      expect(() => assertResponseMatchesContract({ ...observed, body: change(observed.body) })).toThrow(
        message,
      );
    });
  }

  it('a webhook body without a status, or with an empty _id', () => {
    expect(() => assertWebhookMatchesContract(withoutField(webhookBody, 'status'))).toThrow(
      /required property 'status'/,
    );
    expect(() => assertWebhookMatchesContract(withValue(webhookBody, '_id', () => ''))).toThrow(
      /_id must NOT have fewer than 1/,
    );
  });

  it('a good body at a status the operation does not declare, or labelled as another media type', () => {
    const task = answer('task');
    expect(() => assertResponseMatchesContract({ ...task, status: 203 })).toThrow(
      /status 203 is not declared for retrieveTask/,
    );
    expect(() => assertResponseMatchesContract({ ...task, status: 304 })).toThrow(
      /status 304 is not declared/,
    );
    expect(() => assertResponseMatchesContract({ ...task, contentType: 'text/html' })).toThrow(
      /content-type text\/html/,
    );
    // A task body where the error shape is declared.
    expect(() => assertResponseMatchesContract({ ...task, status: 404 })).toThrow(
      /required property 'message'/,
    );
  });

  it('a path under another base path unless the judge is told it', () => {
    const task = answer('task');
    const path = `/api${task.path}`;
    expect(() => assertResponseMatchesContract({ ...task, path })).toThrow(
      /no path of the document matches \/api\/tasks/,
    );
    expect(assertResponseMatchesContract({ ...task, path }, { basePath: '/api' })).toEqual({
      operationId: 'retrieveTask',
      template: '/tasks/{id}',
      responseKey: '200',
    });
    expect(
      assertResponseMatchesContract({ ...task, path: `/api/rest${task.path}?x=1` }, { basePath: '/api' })
        .operationId,
    ).toBe('retrieveTask');
  });

  it('names every problem at once', () => {
    const observed = answer('balance');
    const error = (() => {
      try {
        assertResponseMatchesContract({
          ...observed,
          body: { walletAmount: 'x', extra: 1 },
          contentType: 'text/plain',
        });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ContractViolation);
    expect((error as ContractViolation).problems).toEqual([
      'content-type text/plain is not application/json',
      expect.stringMatching(/^body\/walletAmount must be number/),
    ]);
    expect((error as ContractViolation).message).toMatch(
      /^GET \/tasks\/wallet-balance → 200 breaks the OpenAPI contract:/,
    );
  });
});
