import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NOT_JSON_BODY } from '../../src/testing/faults.js';
import { createMockDeliveryService, type MockFaultRule } from '../../src/testing.js';
import { callService, createTask, credentials, serviceUrl, taskBody } from './calls.js';

const mock = createMockDeliveryService({ account: { type: 'wallet', balance: 50 } });
beforeAll(() => mock.listen());
afterEach(() => mock.reset());
afterAll(() => mock.close());

const createInit = (orderNumber: string, signal?: AbortSignal): RequestInit => ({
  method: 'POST',
  headers: { ...credentials(mock), 'content-type': 'application/json' },
  body: JSON.stringify(taskBody(orderNumber)),
  ...(signal ? { signal } : {}),
});
const tasksUrl = () => serviceUrl(mock.baseUrl, 'tasks');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('status faults', () => {
  it('answer the injected status the given number of times, then the service answers normally', async () => {
    mock.inject({ kind: 'status', status: 503, times: 2, headers: { 'retry-after': '1' } });
    const first = await callService(mock, 'GET', 'tasks/wallet-balance');
    const second = await callService(mock, 'GET', 'tasks/branches');
    const third = await callService(mock, 'GET', 'tasks/wallet-balance');
    expect([first.status, second.status, third.status]).toEqual([503, 503, 200]);
    expect(first.body).toEqual({
      message: expect.stringContaining('Service Unavailable'),
      code: 'SERVICE_UNAVAILABLE',
    });
    expect(first.headers.get('retry-after')).toBe('1');
    expect(mock.requests.map((request) => [request.status, request.fault])).toEqual([
      [503, 'status'],
      [503, 'status'],
      [200, undefined],
    ]);
  });

  it('answer a null-body status (204, 205, 304) with no body instead of failing', async () => {
    for (const status of [204, 205, 304]) {
      mock.inject({
        kind: 'status',
        status,
        times: 1,
        operation: 'wallet.retrieveBalance',
        headers: { 'x-fault': 'yes' },
      });
      const response = await fetch(serviceUrl(mock.baseUrl, 'tasks/wallet-balance'), {
        headers: credentials(mock),
      });
      expect([response.status, await response.text(), response.headers.get('x-fault')]).toEqual([
        status,
        '',
        'yes',
      ]);
    }
  });

  it('replace processing: a failed create stores and charges nothing', async () => {
    const opening = mock.wallet;
    mock.inject({ kind: 'status', status: 500, operation: 'tasks.create', body: { error: 'kaput' } });
    const result = await callService(mock, 'POST', 'tasks', { json: taskBody('ORD-500') });
    expect(result).toMatchObject({ status: 500, body: { error: 'kaput' } });
    expect(mock.tasks).toEqual([]);
    expect(mock.wallet).toEqual(opening);
  });

  it('apply only to the operations named, in the order injected', async () => {
    mock.inject({ kind: 'status', status: 429, operation: ['tasks.list', 'tasks.retrieve'] });
    mock.inject({ kind: 'status', status: 502, operation: 'tasks.list' });
    expect((await callService(mock, 'GET', 'tasks/wallet-balance')).status).toBe(200);
    expect((await callService(mock, 'GET', 'tasks')).status).toBe(429);
    expect((await callService(mock, 'GET', 'tasks')).status).toBe(502);
    expect((await callService(mock, 'GET', 'tasks')).status).toBe(200);
  });

  it('last until cleared with times Infinity', async () => {
    mock.inject({ kind: 'status', status: 504, times: Number.POSITIVE_INFINITY });
    for (let index = 0; index < 3; index += 1)
      expect((await callService(mock, 'GET', 'tasks')).status).toBe(504);
    mock.clearFaults();
    expect((await callService(mock, 'GET', 'tasks')).status).toBe(200);
  });
});

describe('network-error', () => {
  it('drops the connection before processing: nothing is stored or charged', async () => {
    const opening = mock.wallet;
    mock.inject({ kind: 'network-error', operation: 'tasks.create' });
    await expect(fetch(tasksUrl(), createInit('ORD-DROP'))).rejects.toThrow(TypeError);
    expect(mock.tasks).toEqual([]);
    expect(mock.wallet).toEqual(opening);
    expect(mock.requests).toMatchObject([
      { operation: 'tasks.create', status: 'network-error', fault: 'network-error' },
    ]);
  });
});

describe('commit-then-drop', () => {
  it('stores one task and charges one fee, then drops the connection', async () => {
    const opening = mock.wallet;
    mock.inject({ kind: 'commit-then-drop', operation: 'tasks.create' });
    await expect(fetch(tasksUrl(), createInit('ORD-COMMITTED'))).rejects.toThrow(TypeError);
    expect(mock.tasks.map((task) => task.orderNumber)).toEqual(['ORD-COMMITTED']);
    expect(mock.wallet.feesCharged).toBe(1);
    expect(mock.wallet.balanceFils).toBe(opening.balanceFils - mock.wallet.feesChargedFils);
    const list = await callService(mock, 'GET', 'tasks', {
      query: { search: 'ORD-COMMITTED', ignoreRegex: true },
    });
    expect(list.body).toMatchObject({ total: 1 });
    expect(mock.requestsFor('tasks.create')).toMatchObject([
      { status: 'network-error', fault: 'commit-then-drop' },
    ]);
  });
});

describe('delay', () => {
  it('answers after the delay, having processed the request', async () => {
    mock.inject({ kind: 'delay', ms: 50, operation: 'tasks.create' });
    const started = performance.now();
    const response = await fetch(tasksUrl(), createInit('ORD-SLOW'));
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(response.status).toBe(200);
    expect(mock.requestsFor('tasks.create')).toMatchObject([{ status: 200, fault: 'delay' }]);
  });

  it('ends when the client aborts, leaving the task stored', async () => {
    mock.inject({ kind: 'delay', ms: Number.POSITIVE_INFINITY, operation: 'tasks.create' });
    const request = fetch(tasksUrl(), createInit('ORD-ABORTED', AbortSignal.timeout(50)));
    await expect(request).rejects.toThrow(/abort|timeout/i);
    expect(mock.tasks.map((task) => task.orderNumber)).toEqual(['ORD-ABORTED']);
    expect(mock.requestsFor('tasks.create')).toMatchObject([{ status: 'stalled', fault: 'delay' }]);
  });

  it('ends on reset, dropping the connection', async () => {
    mock.inject({ kind: 'delay', ms: Number.POSITIVE_INFINITY });
    const request = fetch(serviceUrl(mock.baseUrl, 'tasks/branches'), { headers: credentials(mock) });
    while (mock.requests.length === 0) await sleep(5);
    mock.reset();
    await expect(request).rejects.toThrow(TypeError);
  });
});

describe('stall-body', () => {
  it('sends the status and headers, then a body that never completes until the client aborts', async () => {
    mock.inject({ kind: 'stall-body', operation: 'tasks.create' });
    const controller = new AbortController();
    const response = await fetch(tasksUrl(), createInit('ORD-STALL', controller.signal));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const declared = Number(response.headers.get('content-length'));
    const reader = response.body?.getReader();
    if (!reader) throw new Error('no body');
    const first = await reader.read();
    const received = first.value?.length ?? 0;
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThan(declared);
    expect(new TextDecoder().decode(first.value)).toMatch(/^\{"data":/);
    const next = reader.read();
    const outcome = await Promise.race([next.then(() => 'more body'), sleep(50).then(() => 'still waiting')]);
    expect(outcome).toBe('still waiting');
    controller.abort();
    await expect(next).rejects.toThrow();
    expect(mock.tasks).toHaveLength(1);
    expect(mock.requestsFor('tasks.create')).toMatchObject([{ status: 'stalled', fault: 'stall-body' }]);
  });

  it('ends the body on reset', async () => {
    mock.inject({ kind: 'stall-body' });
    const response = await fetch(serviceUrl(mock.baseUrl, 'tasks/branches'), { headers: credentials(mock) });
    const text = response.text();
    await sleep(20);
    mock.reset();
    await expect(text).rejects.toThrow();
  });
});

describe('invalid-json', () => {
  it('processes the request, then answers 200 with a body that is not JSON', async () => {
    mock.inject({ kind: 'invalid-json', operation: 'tasks.create' });
    const response = await fetch(tasksUrl(), createInit('ORD-GARBLED'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const text = await response.text();
    expect(text).toBe(NOT_JSON_BODY);
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    expect(mock.tasks).toHaveLength(1);
  });
});

describe('repeat-page', () => {
  it('answers page 1 whatever page is asked, with totalPages far ahead', async () => {
    for (let index = 1; index <= 12; index += 1) await createTask(mock, taskBody(`ORD-${index}`));
    const firstPage = (await callService(mock, 'GET', 'tasks')).body as { tasks: { id: string }[] };
    mock.inject({ kind: 'repeat-page', times: 2 });
    const ids = (body: unknown) => (body as { tasks: { id: string }[] }).tasks.map((task) => task.id);
    for (const page of [2, 3]) {
      const result = await callService(mock, 'GET', 'tasks', { query: { page } });
      expect(result.body).toMatchObject({ page, totalPages: 1000 });
      expect(ids(result.body)).toEqual(firstPage.tasks.map((task) => task.id));
    }
    const normal = await callService(mock, 'GET', 'tasks', { query: { page: 2 } });
    expect(normal.body).toMatchObject({ page: 2, totalPages: 2, total: 12 });
    expect(ids(normal.body)).toHaveLength(2);
  });

  it('never applies to another operation', async () => {
    mock.inject({ kind: 'repeat-page' });
    expect((await callService(mock, 'GET', 'tasks/branches')).status).toBe(200);
    expect(mock.requests[0]?.fault).toBeUndefined();
    await callService(mock, 'GET', 'tasks');
    expect(mock.requests[1]?.fault).toBe('repeat-page');
  });
});

describe('inject', () => {
  it('refuses malformed rules', () => {
    const bad: unknown[] = [
      { kind: 'explode' },
      { kind: 'status', status: 99 },
      { kind: 'status', status: 503, times: 0 },
      { kind: 'status', status: 503, times: 1.5 },
      { kind: 'delay', ms: -1 },
      { kind: 'repeat-page', operation: 'tasks.create' },
      { kind: 'network-error', operation: 'tasks.delete' },
    ];
    for (const rule of bad) expect(() => mock.inject(rule as MockFaultRule)).toThrow();
  });

  it('applies faults before authentication', async () => {
    mock.inject({ kind: 'status', status: 503 });
    expect((await callService(mock, 'GET', 'tasks', { headers: {} })).status).toBe(503);
  });
});
