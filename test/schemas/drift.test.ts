/**
 * A service whose answers drift the way the contract allows (every field optional, units not shown, new
 * fields at any time): numbers as text, text as numbers, `"true"` for a boolean, an id as a number, an
 * object where an array was expected. Served over real sockets on 127.0.0.1, with the real mock behind.
 * README "Schema drift".
 */
import { afterAll, beforeAll, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import {
  DeliveryClient,
  type Logger,
  ResponseValidationError,
  type SchemaDrift,
  type Task,
} from '../../src/index.js';
import { createWebhookHandler, type WebhookEvent } from '../../src/webhooks/index.js';
import { type HostileServer, startHostileServer } from '../support/hostile-server.js';
import { orderParams } from '../support/order-params.js';

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.mock.reset();
  server.use(async (_request, response, { forward }) => {
    const answer = await forward();
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    response.end(answer.body);
  });
});

type JsonObject = Record<string, unknown>;

/** Answers every request as the mock does, with its JSON body passed through `mutate` first. */
function drifting(mutate: (body: JsonObject, path: string, method: string) => void): void {
  server.use(async (request, response, { forward }) => {
    const answer = await forward();
    let text = answer.body;
    if (answer.status < 300 && text !== '') {
      const body = JSON.parse(text) as JsonObject;
      mutate(body, new URL(request.url ?? '/', 'http://x').pathname, request.method ?? 'GET');
      text = JSON.stringify(body);
    }
    const headers = Object.fromEntries(answer.headers);
    delete headers['content-length'];
    response.writeHead(answer.status, headers);
    response.end(text);
  });
}

function clientWith(
  drifts: SchemaDrift[] = [],
  overrides: Partial<ConstructorParameters<typeof DeliveryClient>[0]> = {},
) {
  return new DeliveryClient({
    apiKey: server.mock.apiKey,
    sellerId: server.mock.sellerId,
    baseUrl: server.url,
    logLevel: 'off',
    reconciliation: { checks: 2, intervalMs: 5 },
    onDrift: (drift) => drifts.push(drift),
    ...overrides,
  });
}

async function createdTask(orderNumber: string): Promise<Task & { id: string }> {
  return clientWith().tasks.create(orderParams(orderNumber));
}

describe('tolerant reading (the default): unambiguous drift is coerced to the documented type', () => {
  it.each([
    ['totalAmount', 12.5, '12.5', 'string', 'number'],
    ['totalAmount', 12.345, '12.345', 'string', 'number'],
    ['collectCash', 'true', true, 'boolean', 'string'],
    ['collectCash', 0, false, 'boolean', 'number'],
    ['deliveryDispatched', 1, true, 'boolean', 'number'],
    ['customerNumber', 96550000000, '96550000000', 'string', 'number'],
  ])(
    'tasks.retrieve reads %s sent as %j as %j and reports it',
    async (field, sent, read, expected, received) => {
      const { id } = await createdTask('ORD-DRIFT-1');
      drifting((body) => {
        body[field] = sent;
      });
      const drifts: SchemaDrift[] = [];
      const task = await clientWith(drifts).tasks.retrieve(id);
      expect(task[field]).toStrictEqual(read);
      expect(drifts).toContainEqual({
        operation: 'tasks.retrieve',
        path: field,
        expected,
        received,
        action: 'coerced',
      });
    },
  );

  it('reads a nested number sent as text (pickupLocation.latitude "29.3") as a number', async () => {
    const { id } = await createdTask('ORD-DRIFT-2');
    drifting((body) => {
      body.pickupLocation = { latitude: '29.3', longitude: 47.9 };
    });
    const drifts: SchemaDrift[] = [];
    const task = await clientWith(drifts).tasks.retrieve(id);
    expect(task.pickupLocation).toStrictEqual({ latitude: 29.3, longitude: 47.9 });
    expect(drifts.map((drift) => drift.path)).toStrictEqual(['pickupLocation.latitude']);
  });

  it('reads an id sent as a number as a string', async () => {
    server.use((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"id":123,"status":"pending"}');
    });
    const task = await clientWith().tasks.retrieve('123');
    expect(task.id).toBe('123');
  });

  it('gives a retrieved task without an id the id asked for (every response field is optional), reported as drift', async () => {
    const { id } = await createdTask('ORD-DRIFT-4');
    drifting((body) => {
      delete body.id;
    });
    const drifts: SchemaDrift[] = [];
    const task = await clientWith(drifts).tasks.retrieve(id);
    expect(task).toMatchObject({ id, orderNumber: 'ORD-DRIFT-4' });
    expect(drifts).toStrictEqual([
      {
        operation: 'tasks.retrieve',
        path: 'id',
        expected: 'string',
        received: 'undefined',
        action: 'coerced',
      },
    ]);
  });

  it("refuses a retrieved task whose id is another task's, even when it came as a number", async () => {
    const { id } = await createdTask('ORD-DRIFT-5');
    drifting((body) => {
      body.id = 123;
    });
    await expect(clientWith().tasks.retrieve(id)).rejects.toBeInstanceOf(ResponseValidationError);
  });

  it('wallet.retrieveBalance reads walletAmount "98.185" as 98.185', async () => {
    drifting((body) => {
      body.walletAmount = '98.185';
    });
    const drifts: SchemaDrift[] = [];
    const balance = await clientWith(drifts).wallet.retrieveBalance();
    expect(balance.walletAmount).toBe(98.185);
    expect(drifts).toStrictEqual([
      {
        operation: 'wallet.retrieveBalance',
        path: 'walletAmount',
        expected: 'number',
        received: 'string',
        action: 'coerced',
      },
    ]);
  });

  it('tasks.estimate reads price "1.750" as 1.75', async () => {
    drifting((body) => {
      body.price = '1.750';
    });
    const estimate = await clientWith().tasks.estimate({
      from: { latitude: 29.37, longitude: 47.97 },
      to: { latitude: 29.33, longitude: 48.0 },
    });
    expect(estimate.price).toBe(1.75);
  });

  it('for await over tasks.list walks every page when page and totalPages come as text', async () => {
    const client = clientWith();
    for (let index = 0; index < 23; index++) await client.tasks.create(orderParams(`ORD-PAGES-${index}`));
    drifting((body, path) => {
      if (path.endsWith('/tasks')) {
        body.page = String(body.page);
        body.totalPages = String(body.totalPages);
        body.total = String(body.total);
        body.limit = String(body.limit);
      }
    });
    const orders: string[] = [];
    for await (const task of clientWith().tasks.list()) orders.push(task.orderNumber ?? '');
    expect(orders).toHaveLength(23);
  });

  it('leaves out a value that cannot be coerced, never passing it on with the wrong type, and reports it', async () => {
    const { id } = await createdTask('ORD-DRIFT-5');
    drifting((body) => {
      body.collectCash = 'maybe';
      body.statusHistory = { status: 'pending' };
      body.travelDetail = { totalDistance: 'far', duration: 12 };
      body.futureField = { kept: true };
    });
    const drifts: SchemaDrift[] = [];
    const task = await clientWith(drifts).tasks.retrieve(id);
    expect('collectCash' in task).toBe(false);
    expect('statusHistory' in task).toBe(false);
    expect(task.travelDetail).toStrictEqual({ duration: 12 });
    expect(task.futureField).toStrictEqual({ kept: true });
    expect(drifts).toStrictEqual([
      {
        operation: 'tasks.retrieve',
        path: 'collectCash',
        expected: 'boolean',
        received: 'string',
        action: 'omitted',
      },
      {
        operation: 'tasks.retrieve',
        path: 'statusHistory',
        expected: 'array',
        received: 'object',
        action: 'omitted',
      },
      {
        operation: 'tasks.retrieve',
        path: 'travelDetail.totalDistance',
        expected: 'number',
        received: 'string',
        action: 'omitted',
      },
    ]);
  });

  it('coerces inside arrays and leaves out only the elements that cannot be coerced', async () => {
    const { id } = await createdTask('ORD-DRIFT-6');
    drifting((body) => {
      body.statusHistory = [
        { status: 'pending', timestamp: '2026-01-01T00:00:00Z', id: 7 },
        'garbage',
        { status: 'requested', timestamp: '2026-01-01T00:01:00Z' },
      ];
    });
    const drifts: SchemaDrift[] = [];
    const task = await clientWith(drifts).tasks.retrieve(id);
    expect(task.statusHistory).toStrictEqual([
      { status: 'pending', timestamp: '2026-01-01T00:00:00Z', id: '7' },
      { status: 'requested', timestamp: '2026-01-01T00:01:00Z' },
    ]);
    expect(drifts.map((drift) => `${drift.path} ${drift.action}`)).toStrictEqual([
      'statusHistory.0.id coerced',
      'statusHistory.1 omitted',
    ]);
  });

  it('does not coerce ambiguous text: "Infinity", "1e400", "0x10" and "" stay out of number fields', async () => {
    const { id } = await createdTask('ORD-DRIFT-7');
    drifting((body) => {
      body.travelDetail = {
        totalDistance: 'Infinity',
        duration: '1e400',
        durationInTraffic: '0x10',
        estimatedDelayByTraffic: '',
      };
    });
    const task = await clientWith().tasks.retrieve(id);
    expect(task.travelDetail).toStrictEqual({});
  });

  it('writes a large or tiny number as plain decimal text, exactly', async () => {
    const { id } = await createdTask('ORD-DRIFT-8');
    drifting((body) => {
      body.totalAmount = 1e21;
      body.specialNotes = 1.5e-7;
    });
    const task = await clientWith().tasks.retrieve(id);
    expect(task.totalAmount).toBe('1000000000000000000000');
    expect(task.specialNotes).toBe('0.00000015');
  });

  it('reports drift without values, keys or the seller id, and logs a warning once per operation and path', async () => {
    const { id } = await createdTask('ORD-DRIFT-9');
    drifting((body) => {
      body.customerNumber = 96550000000;
      body.sellerId = 424242;
    });
    const lines: string[] = [];
    const record = (message: string, fields?: Record<string, unknown>) => {
      lines.push(`${message} ${JSON.stringify(fields ?? {})}`);
    };
    const logger: Logger = { debug: record, info: record, warn: record, error: record };
    const drifts: SchemaDrift[] = [];
    const client = clientWith(drifts, { logger, logLevel: 'warn' });
    await client.tasks.retrieve(id);
    await client.tasks.retrieve(id);
    const text = JSON.stringify(drifts) + lines.join('\n');
    expect(text).not.toContain('96550000000');
    expect(text).not.toContain('424242');
    expect(text).not.toContain(server.mock.sellerId);
    expect(text).not.toContain(server.mock.apiKey);
    expect(drifts).toHaveLength(4);
    expect(lines.filter((line) => line.includes('customerNumber'))).toHaveLength(1);
    expect(lines.filter((line) => line.includes('sellerId'))).toHaveLength(1);
  });
});

describe('load-bearing fields stay strict in every mode', () => {
  it('a page without a tasks array throws ResponseValidationError', async () => {
    drifting((body, path) => {
      if (path.endsWith('/tasks')) body.tasks = { first: {} };
    });
    await expect(clientWith().tasks.list()).rejects.toBeInstanceOf(ResponseValidationError);
  });

  it('a page whose page number does not coerce throws ResponseValidationError', async () => {
    drifting((body, path) => {
      if (path.endsWith('/tasks')) body.page = 'first';
    });
    await expect(clientWith().tasks.list()).rejects.toBeInstanceOf(ResponseValidationError);
  });

  it('a retrieve answered with something other than an object throws ResponseValidationError', async () => {
    const { id } = await createdTask('ORD-LB-1');
    server.use((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('["not a task"]');
    });
    await expect(clientWith().tasks.retrieve(id)).rejects.toBeInstanceOf(ResponseValidationError);
  });
});

describe('validation: strict', () => {
  it('throws ResponseValidationError on drift that tolerant reading coerces', async () => {
    const { id } = await createdTask('ORD-STRICT-1');
    drifting((body) => {
      body.totalAmount = 12.5;
    });
    await expect(clientWith([], { validation: 'strict' }).tasks.retrieve(id)).rejects.toBeInstanceOf(
      ResponseValidationError,
    );
  });
});

describe('a create answered 2xx with a task id is created, whatever else drifts', () => {
  it('a 200 with totalAmount 12.5 resolves, and creating the order again sends no second POST', async () => {
    drifting((body, path, method) => {
      const created = (body.data as { createTask?: JsonObject } | undefined)?.createTask;
      if (method === 'POST' && path.endsWith('/tasks') && created) created.totalAmount = 12.5;
      if (method === 'GET' && typeof body.totalAmount === 'string') body.totalAmount = 12.5;
    });
    const client = clientWith();
    const first = await client.tasks.create({ ...orderParams('ORD-PAY-ONCE'), totalAmount: '12.500' });
    expect(first.totalAmount).toBe('12.5');
    const again = await client.tasks.create({ ...orderParams('ORD-PAY-ONCE'), totalAmount: '12.500' });
    expect(again.id).toBe(first.id);
    expect(server.mock.requestsFor('tasks.create')).toHaveLength(1);
    expect(server.mock.tasks.filter((task) => task.orderNumber === 'ORD-PAY-ONCE')).toHaveLength(1);
  });

  it('a 200 without data.createTask.id is an unknown outcome resolved by the order lookup: one task, no second POST', async () => {
    drifting((body, path, method) => {
      const created = (body.data as { createTask?: JsonObject } | undefined)?.createTask;
      if (method === 'POST' && path.endsWith('/tasks') && created) delete created.id;
    });
    const client = clientWith();
    const task = await client.tasks.create(orderParams('ORD-NO-ID'));
    const [stored] = server.mock.tasks.filter((each) => each.orderNumber === 'ORD-NO-ID');
    expect(task.id).toBe(stored?.id);
    await client.tasks.create(orderParams('ORD-NO-ID'));
    expect(server.mock.requestsFor('tasks.create')).toHaveLength(1);
    expect(server.mock.tasks.filter((each) => each.orderNumber === 'ORD-NO-ID')).toHaveLength(1);
  });

  it('a reconciliation lookup finds the task although its listed fields drift', async () => {
    let posts = 0;
    server.use(async (request, response, { forward }) => {
      const answer = await forward();
      if (request.method === 'POST' && ++posts === 1) {
        // The service commits the create, then the connection drops before the answer.
        response.destroy();
        return;
      }
      const body = JSON.parse(answer.body) as JsonObject;
      for (const task of (body.tasks as JsonObject[] | undefined) ?? []) task.collectCash = 'true';
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    });
    const task = await clientWith().tasks.create(orderParams('ORD-RECONCILE-DRIFT'));
    expect(task.orderNumber).toBe('ORD-RECONCILE-DRIFT');
    expect(posts).toBe(1);
    expect(server.mock.tasks.filter((each) => each.orderNumber === 'ORD-RECONCILE-DRIFT')).toHaveLength(1);
  });

  it('types the id of a created or retrieved task as a string', () => {
    const client = clientWith();
    expectTypeOf(client.tasks.create).returns.resolves.toHaveProperty('id').toEqualTypeOf<string>();
    expectTypeOf(client.tasks.retrieve).returns.resolves.toHaveProperty('id').toEqualTypeOf<string>();
  });
});

describe('webhooks read tolerantly too', () => {
  const body = (overrides: JsonObject): JsonObject => ({
    _id: 'task-1',
    status: 'accepted',
    orderNumber: 'ORD-1',
    ...overrides,
  });
  const post = (handler: ReturnType<typeof createWebhookHandler>, payload: JsonObject) =>
    handler.fetch(
      new Request('https://shop.test/webhooks', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload),
      }),
    );

  it.each([
    ['estimatedPrice', 1.5, '1.5'],
    ['walletDeducted', 'true', true],
    ['deliveryLocation', { lat: '29.1', lng: 47.9 }, { lat: 29.1, lng: 47.9 }],
    ['_id', 4242, '4242'],
  ])('answers 200 to %s sent as %j and passes it on as %j', async (field, sent, read) => {
    const events: WebhookEvent[] = [];
    const drifts: SchemaDrift[] = [];
    const handler = createWebhookHandler({
      onEvent: (event) => {
        events.push(event);
      },
      onDrift: (drift) => drifts.push(drift),
      logLevel: 'off',
    });
    const response = await post(handler, body({ [field]: sent }));
    expect(response.status).toBe(200);
    await handler.idle();
    expect(events).toHaveLength(1);
    expect((events[0]?.payload as JsonObject | undefined)?.[field]).toStrictEqual(read);
    expect(drifts[0]?.operation).toBe('webhook');
    expect(drifts[0]?.action).toBe('coerced');
  });

  it('still answers 400 to a body without a task id or a status', async () => {
    const handler = createWebhookHandler({ onEvent: () => {}, logLevel: 'off' });
    expect((await post(handler, { status: 'accepted' })).status).toBe(400);
    expect((await post(handler, { _id: 'task-1', status: { kind: 'accepted' } })).status).toBe(400);
  });

  it('with validation: strict answers 400 to a drifted field', async () => {
    const handler = createWebhookHandler({ onEvent: () => {}, logLevel: 'off', validation: 'strict' });
    expect((await post(handler, body({ walletDeducted: 'true' }))).status).toBe(400);
  });
});
