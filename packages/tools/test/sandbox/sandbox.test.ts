/**
 * `delivery-task sandbox` as another language sees it: a separate process, plain `fetch`, no SDK. Every
 * service endpoint and every control endpoint, webhooks to a plain node:http receiver.
 */

import { MOCK_DEFAULTS } from 'delivery-task-sdk/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  assertResponseMatchesContract,
  assertWebhookMatchesContract,
} from '../../../../test/support/openapi-contract.js';
import {
  killAllSandboxes,
  recordedResponses,
  type SandboxProcess,
  startSandboxProcess,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../support/sandbox-process.js';

let sandbox: SandboxProcess;
let receiver: WebhookReceiver;
/** Every webhook body the sandbox sent in this file (the receiver's list is cleared per test). */
const webhookBodies: unknown[] = [];

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  sandbox = await startSandboxProcess(['--webhook-url', receiver.url]);
}, 60_000);

afterAll(async () => {
  await sandbox?.stop();
  await receiver?.close();
  killAllSandboxes();
});

beforeEach(async () => {
  const reset = await sandbox.fetch('/_sandbox/reset', { method: 'POST' });
  expect(reset.status).toBe(200);
  webhookBodies.push(...receiver.received.map((webhook) => webhook.body));
  (receiver.received as unknown[]).length = 0;
});

const deliveryLocation = {
  latitude: 29.3339,
  longitude: 48.0761,
  fullAddress: ['Block 10, Street 5', 'Salmiya'],
};

/** The fields of a task these tests read (the assertions check them). */
interface TaskJson {
  id: string;
  status: string;
  statusHistory: Array<{ status: string }>;
  completedTime?: string;
  [field: string]: unknown;
}

/** An error answer, and the fields of the other answers these tests read, all optional. */
interface AnswerJson {
  message: string;
  code: string;
  [field: string]: unknown;
}

/** A status and the parsed JSON body, typed as the caller expects it (the assertions check it). */
interface Answer<Body> {
  status: number;
  body: Body;
}

/** Sends a JSON request to the service with the credentials. */
async function call<Body = AnswerJson>(method: string, path: string, body?: unknown): Promise<Answer<Body>> {
  const init: RequestInit = { method, headers: sandbox.headers({ 'content-type': 'application/json' }) };
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await sandbox.fetch(path, init);
  return { status: response.status, body: (await response.json()) as Body };
}

/** Sends a control request (no credentials); a string body is sent as it is. */
async function control<Body = AnswerJson>(
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer<Body>> {
  const init: RequestInit = { method };
  if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
  const response = await sandbox.fetch(`/_sandbox/${path}`, init);
  return { status: response.status, body: (await response.json()) as Body };
}

const balance = async (): Promise<number> =>
  (await call<{ walletAmount: number }>('GET', '/tasks/wallet-balance')).body.walletAmount;

async function createTask(orderNumber: string): Promise<TaskJson> {
  const created = await call<{ data: { createTask: TaskJson } }>('POST', '/tasks', {
    orderNumber,
    customerName: 'Sara',
    deliveryLocation,
  });
  expect(created.status).toBe(200);
  return created.body.data.createTask;
}

describe('delivery-task sandbox over HTTP', () => {
  it('prints one JSON line with the base URL, the API key, the seller id and the control URL', () => {
    expect(sandbox.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sandbox.controlUrl).toBe(`${sandbox.baseUrl}/_sandbox`);
    expect(sandbox.apiKey).toBe(MOCK_DEFAULTS.apiKey);
    expect(sandbox.sellerId).toBe(MOCK_DEFAULTS.sellerId);
  });

  it('answers 401 to a request without the API key', async () => {
    const response = await sandbox.fetch('/tasks', { headers: { 'x-seller-id': sandbox.sellerId } });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ message: 'Invalid API key or seller id', code: 'UNAUTHORIZED' });
  });

  it('creates a task, then lists and retrieves it in both address forms', async () => {
    const task = await createTask('ORD-1');
    expect(task).toMatchObject({ orderNumber: 'ORD-1', status: 'pending', deliveryLocation });
    expect(task.id).toMatch(/^[0-9a-f]{24}$/);

    const list = await call<{ tasks: TaskJson[] }>('GET', '/tasks?limit=5&page=1');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ page: 1, limit: 5, total: 1, totalPages: 1 });
    expect(list.body.tasks.map((listed) => listed.id)).toEqual([task.id]);

    for (const path of [`/tasks/${task.id}`, `/rest/tasks/${task.id}`]) {
      const retrieved = await call<TaskJson>('GET', path);
      expect(retrieved).toEqual({ status: 200, body: task });
    }
    expect((await call('GET', '/tasks/000000000000000000000000')).status).toBe(404);
  });

  it('estimates a trip, and charges exactly the estimated price when a task makes that trip', async () => {
    const estimate = await call<{ travelDetail: { totalDistance: number }; price: number }>(
      'POST',
      '/tasks/estimate',
      {
        from: MOCK_DEFAULTS.origin,
        to: { latitude: deliveryLocation.latitude, longitude: deliveryLocation.longitude },
      },
    );
    expect(estimate.status).toBe(200);
    expect(estimate.body.travelDetail.totalDistance).toBeGreaterThan(5);
    expect(estimate.body.price).toBeGreaterThan(MOCK_DEFAULTS.pricing.baseFee);

    const before = await balance();
    await createTask('ORD-FEE');
    const after = await balance();
    expect(Math.round((before - after) * 1000)).toBe(Math.round(estimate.body.price * 1000));
  });

  it('lists the branches', async () => {
    const branches = await call<{ branches: Array<{ name: string }> }>('GET', '/tasks/branches');
    expect(branches.status).toBe(200);
    expect(branches.body.branches.map((branch) => branch.name)).toEqual(
      MOCK_DEFAULTS.branches.map((branch) => branch.name),
    );
  });

  it('tops up the wallet: completing the payment link credits the amount once', async () => {
    const before = await balance();
    const topUp = await call<{ paymentUrl: string }>('POST', '/tasks/wallet-topup', { amount: 7.5 });
    expect(topUp.status).toBe(200);
    expect(topUp.body.paymentUrl.startsWith(`${sandbox.baseUrl}/pay/`)).toBe(true);

    const completed = await control('POST', 'top-ups/complete', { paymentUrl: topUp.body.paymentUrl });
    expect(completed).toEqual({
      status: 200,
      body: { paymentUrl: topUp.body.paymentUrl, amount: 7.5, walletAmount: before + 7.5 },
    });
    expect(await balance()).toBe(before + 7.5);

    const again = await control('POST', 'top-ups/complete', { paymentUrl: topUp.body.paymentUrl });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('PAYMENT_LINK_USED');
    const unknown = await control('POST', 'top-ups/complete', { paymentUrl: `${sandbox.baseUrl}/pay/nope` });
    expect(unknown.status).toBe(404);
    expect((await control('POST', 'top-ups/complete', {})).body.message).toMatch(/^paymentUrl: /);
    expect(await balance()).toBe(before + 7.5);
  });

  it('advances a task to delivered and POSTs every change to the webhook receiver', async () => {
    const task = await createTask('ORD-WEBHOOK');
    const oneStep = await control<TaskJson>('POST', `tasks/${task.id}/advance`);
    expect(oneStep.status).toBe(200);
    expect(oneStep.body.status).toBe('requested');

    const delivered = await control<TaskJson>('POST', `tasks/${task.id}/advance`, { status: 'delivered' });
    expect(delivered.status).toBe(200);
    expect(delivered.body.status).toBe('delivered');
    expect(delivered.body.statusHistory.map((entry) => entry.status)).toEqual([
      'pending',
      'requested',
      'accepted',
      'pickedup',
      'enroute',
      'delivered',
    ]);
    expect((await call<TaskJson>('GET', `/tasks/${task.id}`)).body).toEqual(delivered.body);

    // advance() answers once the POSTs are done: all of them have arrived.
    const webhooks = receiver.received;
    expect(webhooks.map((webhook) => webhook.body.status)).toEqual([
      'requested',
      'accepted',
      'inprogress',
      'pickup_location_reached',
      'pickedup',
      'enroute',
      'delivered',
    ]);
    for (const webhook of webhooks) {
      expect(webhook.headers['content-type']).toBe('application/json');
      expect(webhook.body._id).toBe(task.id);
      expect(webhook.body).not.toHaveProperty('id');
      expect(webhook.body.orderNumber).toBe('ORD-WEBHOOK');
    }
    const last = webhooks.at(-1)?.body as {
      statusHistory: Array<{ status: string }>;
      driver: { completed_at?: string };
      [field: string]: unknown;
    };
    expect(last.statusHistory.map((entry) => entry.status)).toEqual([
      'pending',
      'requested',
      'accepted',
      'inprogress',
      'pickup_location_reached',
      'pickedup',
      'enroute',
      'delivered',
    ]);
    expect(last.statusHistory.every((entry: object) => !('id' in entry))).toBe(true);
    expect(last.driver.completed_at).toBe(delivered.body.completedTime);
    expect(last.estimatedPrice).toMatch(/^\d+\.\d{3}$/);
    expect(last.walletDeducted).toBe(true);
    expect(last.deliveryLocation).toEqual({
      lat: deliveryLocation.latitude,
      lng: deliveryLocation.longitude,
      kwAddress: deliveryLocation.fullAddress,
      fullAddress: deliveryLocation.fullAddress,
    });
  });

  it('refuses an advance the lifecycle does not allow, for an unknown task, or with a bad status', async () => {
    const task = await createTask('ORD-REFUSED');
    await control('POST', `tasks/${task.id}/advance`, { status: 'cancelled' });
    const afterFinal = await control('POST', `tasks/${task.id}/advance`);
    expect(afterFinal.status).toBe(409);
    expect(afterFinal.body.code).toBe('INVALID_TRANSITION');
    expect(afterFinal.body.message).toContain('"cancelled" is final');

    const unknown = await control('POST', 'tasks/000000000000000000000000/advance');
    expect(unknown).toEqual({ status: 404, body: { message: 'Task not found', code: 'NOT_FOUND' } });

    const other = await createTask('ORD-BAD-STATUS');
    const bad = await control('POST', `tasks/${other.id}/advance`, { status: 'delivred' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^status: must be one of pending, /);
    const extra = await control('POST', `tasks/${other.id}/advance`, { status: 'accepted', note: 'x' });
    expect(extra.status).toBe(400);
    expect((await call<TaskJson>('GET', `/tasks/${other.id}`)).body.status).toBe('pending');
    expect(receiver.received.map((webhook) => webhook.body.status)).toEqual(['cancelled']);
  });

  it('injects a fault over HTTP: the next matching request plays it, then the service answers again', async () => {
    const injected = await control<{ fault: unknown }>('POST', 'faults', {
      kind: 'status',
      status: 503,
      operation: 'wallet.retrieveBalance',
      headers: { 'retry-after': '1' },
    });
    expect(injected.status).toBe(201);
    expect(injected.body.fault).toMatchObject({ kind: 'status', status: 503 });

    expect((await call('GET', '/tasks/branches')).status).toBe(200);
    const failed = await sandbox.fetch('/tasks/wallet-balance', { headers: sandbox.headers() });
    expect(failed.status).toBe(503);
    expect(failed.headers.get('retry-after')).toBe('1');
    expect((await failed.json()).code).toBe('SERVICE_UNAVAILABLE');
    expect((await call('GET', '/tasks/wallet-balance')).status).toBe(200);

    await control('POST', 'faults', { kind: 'network-error', operation: ['tasks.list'], times: 2 });
    for (let attempt = 0; attempt < 2; attempt++) {
      await expect(sandbox.fetch('/tasks', { headers: sandbox.headers() })).rejects.toThrow(TypeError);
    }
    expect((await call('GET', '/tasks')).status).toBe(200);
  });

  it('rejects a malformed fault rule with a 400 that names the field, and injects nothing', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ kind: 'explode' }, /^kind: must be one of status, network-error/],
      [{ kind: 'status', status: 700 }, /^status: /],
      [{ kind: 'status', status: 503, times: 0 }, /^times: must be a positive integer or "Infinity"/],
      [{ kind: 'delay' }, /^ms: must be a number of ms/],
      [{ kind: 'delay', ms: -5 }, /^ms: must be a number of ms/],
      [{ kind: 'status', status: 500, operation: 'tasks.delete' }, /^operation: must be one of tasks.create/],
      [{ kind: 'status', status: 500, headers: { 'retry-after': 1 } }, /^headers\.retry-after: /],
      [
        { kind: 'status', status: 500, operation: ['tasks.list', 'tasks.explode'] },
        /^operation: must be one of/,
      ],
      [{ kind: 'network-error', after: 2 }, /^body: Unrecognized key: "after"/],
      [
        { kind: 'repeat-page', operation: 'tasks.create' },
        /^body: a repeat-page fault applies to tasks.list only/,
      ],
      ['{"kind": "status",', /^body: Invalid JSON/],
      [[], /^body: /],
    ];
    for (const [rule, message] of cases) {
      const answer = await control('POST', 'faults', rule);
      expect({ rule, status: answer.status, code: answer.body.code }).toEqual({
        rule,
        status: 400,
        code: 'BAD_REQUEST',
      });
      expect(answer.body.message, JSON.stringify(rule)).toMatch(message);
    }
    expect((await call('GET', '/tasks/wallet-balance')).status).toBe(200);
    expect((await call('GET', '/tasks')).status).toBe(200);
  });

  it('resets to the opening state: no tasks, the opening balance, no faults', async () => {
    await createTask('ORD-RESET');
    await control('POST', 'faults', {
      kind: 'status',
      status: 500,
      operation: 'tasks.list',
      times: 'Infinity',
    });
    expect((await call('GET', '/tasks')).status).toBe(500);

    const reset = await control('POST', 'reset');
    expect(reset).toEqual({ status: 200, body: { tasks: 0, walletAmount: MOCK_DEFAULTS.account.balance } });
    const list = await call<{ total: number }>('GET', '/tasks');
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(0);
    expect(await balance()).toBe(MOCK_DEFAULTS.account.balance);
  });

  it('lists the recorded requests without the API key, the seller id or a wrong key that was sent', async () => {
    const leakedKey = 'sk_live_9f8e7d6c5b4a';
    await createTask('ORD-LOG');
    await sandbox.fetch(`/tasks/wallet-balance?key=${leakedKey}`, {
      headers: { authorization: `apikey ${leakedKey}`, 'x-seller-id': sandbox.sellerId },
    });
    const response = await sandbox.fetch('/_sandbox/requests');
    const text = await response.clone().text();
    const { requests } = (await response.json()) as {
      requests: Array<{
        operation: string;
        method: string;
        path: string;
        status: number;
        headers: Record<string, string>;
        query: Record<string, string>;
        body: unknown;
      }>;
    };

    expect(response.status).toBe(200);
    expect(
      requests.map((request) => [request.operation, request.method, request.path, request.status]),
    ).toEqual([
      ['tasks.create', 'POST', '/tasks', 200],
      ['wallet.retrieveBalance', 'GET', '/tasks/wallet-balance', 401],
    ]);
    expect(requests[0]?.body).toMatchObject({ orderNumber: 'ORD-LOG' });
    expect(requests.map((request) => request.headers.authorization)).toEqual([
      'apikey [redacted]',
      'apikey [redacted]',
    ]);
    expect(requests[1]?.query).toEqual({ key: '[redacted]' });
    for (const secret of [sandbox.apiKey, sandbox.sellerId, leakedKey]) expect(text).not.toContain(secret);
  });

  it('answers 404 for an unknown control endpoint and 405 for a wrong method', async () => {
    const unknown = await control('GET', 'no-such-endpoint');
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toContain('POST /_sandbox/reset');
    const wrongMethod = await sandbox.fetch('/_sandbox/requests', { method: 'DELETE' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET');
  });

  it('refuses a control body over 64 KiB with 413', async () => {
    const answer = await control('POST', 'faults', {
      kind: 'status',
      status: 500,
      body: 'x'.repeat(70 * 1024),
    });
    expect(answer).toEqual({
      status: 413,
      body: { message: 'The request body exceeds 65536 bytes', code: 'PAYLOAD_TOO_LARGE' },
    });
    expect((await call('GET', '/tasks')).status).toBe(200);
  });

  it('recorded every response it gave to this suite', () => {
    expect(sandbox.responses.length).toBeGreaterThan(40);
    const paths = new Set(
      sandbox.responses.map(
        (response) => `${response.method} ${response.path.replace(/[0-9a-f]{24}/, '{id}')}`,
      ),
    );
    for (const expected of [
      'POST /tasks',
      'GET /tasks',
      'GET /tasks/{id}',
      'GET /rest/tasks/{id}',
      'POST /tasks/estimate',
      'GET /tasks/branches',
      'GET /tasks/wallet-balance',
      'POST /tasks/wallet-topup',
      'POST /_sandbox/tasks/{id}/advance',
      'POST /_sandbox/faults',
      'POST /_sandbox/reset',
      'GET /_sandbox/requests',
      'POST /_sandbox/top-ups/complete',
    ]) {
      expect(paths).toContain(expected);
    }
    expect(sandbox.responses.every((response) => response.body !== undefined)).toBe(true);
  });
});

// Last in this file: judges what every test above received, with the OpenAPI document only (no SDK schema).
describe('the contract', () => {
  it('every service response and every webhook the sandbox gave in this file matches the OpenAPI document', () => {
    webhookBodies.push(...receiver.received.map((webhook) => webhook.body));
    const serviceResponses = recordedResponses.filter((response) => !response.path.startsWith('/_sandbox/'));
    expect(serviceResponses.length).toBeGreaterThan(20);
    expect(
      new Set(serviceResponses.map((response) => `${response.method} ${response.path.split('/').length}`))
        .size,
    ).toBeGreaterThan(3);
    for (const response of serviceResponses) {
      assertResponseMatchesContract({
        method: response.method,
        path: response.path,
        status: response.status,
        body: response.body,
        contentType: response.contentType,
      });
    }
    expect(webhookBodies.length).toBeGreaterThan(3);
    for (const body of webhookBodies) assertWebhookMatchesContract(body);
  });
});
