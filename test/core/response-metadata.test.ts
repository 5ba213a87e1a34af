/** `.withResponse()` / `.asResponse()` on every call (issue 10 §3), against the mock. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  APIPromise,
  type Branch,
  DeliveryClient,
  type Estimate,
  NotFoundError,
  RequestValidationError,
  type TaskPage,
  type WithResponse,
} from '../../src/index.js';
import type { TaskWithId, WalletBalance } from '../../src/schemas.js';
import { createMockDeliveryService, type MockHttpServer, startMockHttpServer } from '../../src/testing.js';
import { collectGarbage } from '../support/collect-garbage.js';
import { orderParams, useMockService } from '../support/mock-service.js';

const REQUEST_ID = /^req_\d{6}$/;
const estimateParams = {
  from: { latitude: 29.3759, longitude: 47.9774 },
  to: { latitude: 29.3339, longitude: 48.0761 },
};

describe('withResponse / asResponse', () => {
  const { mock, client } = useMockService({ account: { type: 'wallet', balance: 500 } });

  /** Requests the mock has received so far. */
  const total = () => mock.requests.length;

  it('gives the awaited value, a Response with status and headers, and the request id, in one request', async () => {
    const sdk = client();
    const awaited = await sdk.wallet.retrieveBalance();
    const before = total();
    const promise = sdk.wallet.retrieveBalance();
    expect(promise).toBeInstanceOf(Promise);
    expect(promise).toBeInstanceOf(APIPromise);
    const answer = await promise.withResponse();
    const response = await promise.asResponse();
    const again = await promise;
    expect(total() - before).toBe(1);
    expect(answer.data).toEqual(awaited);
    expect(again).toEqual(awaited);
    expect(response.status).toBe(answer.response.status);
    expect(response.headers.get('x-request-id')).toBe(answer.response.headers.get('x-request-id'));
    expect(answer.response.status).toBe(200);
    expect(answer.response.headers.get('content-type')).toContain('application/json');
    expect(answer.response.body).toBeNull();
    expect(answer.requestId).toMatch(REQUEST_ID);
    expect(answer.requestId).toBe(answer.response.headers.get('x-request-id'));
    expectTypeOf(answer).toEqualTypeOf<WithResponse<WalletBalance>>();
  });

  it('numbers request ids as the mock does: consecutive calls get consecutive ids', async () => {
    const sdk = client();
    const first = await sdk.wallet.retrieveBalance().withResponse();
    const second = await sdk.wallet.retrieveBalance().withResponse();
    const number = (id: string | null) => Number(id?.slice(4));
    expect(number(second.requestId)).toBe(number(first.requestId) + 1);
  });

  it('covers retrieve, estimate, branches.list, topUp and the first page of tasks.list', async () => {
    const sdk = client();
    const task = await sdk.tasks.create(orderParams('RM-1'));
    const retrieved = await sdk.tasks.retrieve(task.id ?? '').withResponse();
    expect(retrieved.data).toEqual(await sdk.tasks.retrieve(task.id ?? ''));
    expect(retrieved.requestId).toMatch(REQUEST_ID);
    expectTypeOf(retrieved.data).toEqualTypeOf<TaskWithId>();

    const estimate = await sdk.tasks.estimate(estimateParams).withResponse();
    expect(estimate.data).toEqual(await sdk.tasks.estimate(estimateParams));
    expectTypeOf(estimate.data).toEqualTypeOf<Estimate>();

    const branches = await sdk.branches.list().withResponse();
    expect(branches.data).toEqual(await sdk.branches.list());
    expect(branches.data.length).toBeGreaterThan(0);
    expectTypeOf(branches.data).toEqualTypeOf<Branch[]>();

    const topUp = await sdk.wallet.topUp({ amount: 10 }).withResponse();
    expect(topUp.data.paymentUrl).toMatch(/^https?:\/\//);
    expect(topUp.requestId).toMatch(REQUEST_ID);

    const before = total();
    const list = sdk.tasks.list({ limit: 5 });
    const page = await list.withResponse();
    expect(await list).toBe(page.data);
    expect(total() - before).toBe(1);
    expect(page.data.tasks.map((listed) => listed.id)).toContain(task.id);
    expect(page.requestId).toMatch(REQUEST_ID);
    expect((await list.asResponse()).status).toBe(200);
    expectTypeOf(page).toEqualTypeOf<WithResponse<TaskPage>>();
  });

  it("keeps the first page's response for withResponse and no other page's body text during a walk", async () => {
    // 41 pages of 2 tasks, each body padded with 256 KB of spaces: 40 pages wait ahead of the loop.
    const pages = 41;
    const padding = ' '.repeat(256 * 1024);
    let served = 0;
    const fetch = async (input: RequestInfo | URL) => {
      served++;
      const url = new URL(input instanceof Request ? input.url : input);
      const page = Number(url.searchParams.get('page'));
      const tasks = [{ id: `t${page}a` }, { id: `t${page}b` }];
      const body = `{"tasks":${JSON.stringify(tasks)},"page":${page},"limit":2,"totalPages":${pages},"total":${2 * pages}}${padding}`;
      return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const sdk = new DeliveryClient({ apiKey: 'k', sellerId: 's', baseUrl: 'http://127.0.0.1:1', fetch });
    const list = sdk.tasks.list({ limit: 2 }, { concurrency: pages - 1 });
    /** Heap used after gc, once FinalizationRegistry callbacks have had their turn (they run in a task). */
    const heap = async () => {
      for (let round = 0; round < 2; round++) {
        collectGarbage();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      collectGarbage();
      return process.memoryUsage().heapUsed;
    };
    const before = await heap();
    let held = Number.NaN;
    let count = 0;
    for await (const task of list) {
      if (count++ === 0) {
        while (served < pages) await new Promise((resolve) => setTimeout(resolve, 5));
        await new Promise((resolve) => setTimeout(resolve, 50));
        held = (await heap()) - before;
      }
      expect(task.id).toMatch(/^t\d+[ab]$/);
    }
    expect(count).toBe(2 * pages);
    // Each page's body is 256 KB: 40 of them kept would be 10 MB.
    expect(held).toBeLessThan(2 * 1024 * 1024);
    const first = await list.withResponse();
    expect(first.data.page).toBe(1);
    expect(first.response.status).toBe(200);
    expect(await (await list.asResponse()).text()).toMatch(/^\{"tasks":\[\{"id":"t1a"\}/);
  });

  it('gives a create the POST /tasks answer', async () => {
    const created = await client().tasks.create(orderParams('RM-2')).withResponse();
    const [post] = mock.requestsFor('tasks.create');
    expect(post).toBeDefined();
    expect(created.response.status).toBe(200);
    expect(created.requestId).toMatch(REQUEST_ID);
    expect(created.data.orderNumber).toBe('RM-2');
  });

  it('gives a reconciled create the answer of the lookup that found the task', async () => {
    const sdk = client();
    const mark = await sdk.wallet.retrieveBalance().withResponse();
    const sent = total();
    mock.inject({ operation: 'tasks.create', kind: 'commit-then-drop', times: 1 });
    const created = await sdk.tasks.create(orderParams('RM-3')).withResponse();
    expect(created.data.orderNumber).toBe('RM-3');
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    const lookups = mock.requestsFor('tasks.list');
    expect(lookups.length).toBeGreaterThan(0);
    // The lookup that found the task was the create's last request: its id is the highest it got.
    const number = (id: string | null) => Number(id?.slice(4));
    expect(number(created.requestId)).toBe(number(mark.requestId) + (total() - sent));
    expect(lookups.at(-1)?.path).toBe('/rest/tasks');
  });

  it('gives creates that joined one in flight the same answer', async () => {
    const sdk = client();
    const [first, second] = await Promise.all([
      sdk.tasks.create(orderParams('RM-4')).withResponse(),
      sdk.tasks.create(orderParams('RM-4')).withResponse(),
    ]);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    expect(second.data).toBe(first.data);
    expect(second.requestId).toBe(first.requestId);
    expect(first.requestId).toMatch(REQUEST_ID);
  });

  it('rejects every form with the same error, and sends one request', async () => {
    const sdk = client();
    const before = total();
    const promise = sdk.tasks.retrieve('no-such-task');
    const errors = await Promise.all([
      promise.then(
        () => undefined,
        (error: unknown) => error,
      ),
      promise.withResponse().catch((error: unknown) => error),
      promise.asResponse().catch((error: unknown) => error),
    ]);
    expect(total() - before).toBe(1);
    for (const error of errors) expect(error).toBeInstanceOf(NotFoundError);
    expect(errors[1]).toBe(errors[0]);
    expect(errors[2]).toBe(errors[0]);
    expect((errors[0] as NotFoundError).requestId).toMatch(REQUEST_ID);
  });

  it('rejects bad params from every form without sending', async () => {
    const sdk = client();
    const before = total();
    await expect(sdk.tasks.retrieve('').withResponse()).rejects.toBeInstanceOf(RequestValidationError);
    await expect(sdk.tasks.estimate({} as never).asResponse()).rejects.toBeInstanceOf(RequestValidationError);
    await expect(sdk.wallet.topUp({ amount: 1 })).rejects.toBeInstanceOf(RequestValidationError);
    await expect(sdk.tasks.list({ limit: 0 }).withResponse()).rejects.toBeInstanceOf(RequestValidationError);
    expect(total()).toBe(before);
  });
});

describe('asResponse over a real socket', () => {
  /** The exact bytes a raw server sends for the wallet balance: odd spacing and an unknown field. */
  const RAW_BALANCE = '{ "walletAmount" : 12.5,\n  "note": "kept as sent" }';
  let raw: Server;
  let rawUrl: string;
  const mock = createMockDeliveryService({ account: { type: 'wallet', balance: 500 } });
  let server: MockHttpServer;
  beforeAll(async () => {
    server = await startMockHttpServer(mock);
    raw = createServer((_request, response) => {
      response
        .writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_raw' })
        .end(RAW_BALANCE);
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    rawUrl = `http://127.0.0.1:${(raw.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await server.close();
    mock.close();
    await new Promise((resolve) => raw.close(resolve));
  });
  const clientOf = (baseUrl: string) =>
    new DeliveryClient({ apiKey: mock.apiKey, sellerId: mock.sellerId, baseUrl, logLevel: 'off' });

  it('gives the body the SDK parsed: .text() reads the bytes sent, .json() their value', async () => {
    const promise = clientOf(rawUrl).wallet.retrieveBalance();
    const response = await promise.asResponse();
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('req_raw');
    expect(await response.text()).toBe(RAW_BALANCE);
    // Each call gives a Response of its own, whose body can be read again; one request in all.
    expect(await (await promise.asResponse()).json()).toEqual({ walletAmount: 12.5, note: 'kept as sent' });
    expect((await promise).walletAmount).toBe(12.5);
  });

  it('gives the body of a retrieve, a create and the first page of a list from the mock over HTTP', async () => {
    const sdk = clientOf(server.url);
    // The three answers are the subject: no lookup before the POST.
    const created = sdk.tasks.create(orderParams('RAW-1'), { lookupFirst: false });
    const task = await created;
    const createBody = (await (await created.asResponse()).json()) as {
      data: { createTask: { id: string } };
    };
    expect(createBody.data.createTask.id).toBe(task.id);
    const retrieved = await sdk.tasks.retrieve(task.id).asResponse();
    expect(((await retrieved.json()) as { _id?: string; id?: string; orderNumber: string }).orderNumber).toBe(
      'RAW-1',
    );
    const page = (await (await sdk.tasks.list({ limit: 5 }).asResponse()).json()) as { tasks: unknown[] };
    expect(page.tasks).toHaveLength(1);
    expect(mock.requests).toHaveLength(3);
  });
});
