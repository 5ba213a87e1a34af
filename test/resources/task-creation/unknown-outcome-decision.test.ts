/**
 * Unknown create outcomes are decided by design (README "Exactly-once creation"): a later create looks
 * the order up at once within its deadline, no second POST is sent while a task may be listed late
 * (`listingDelayMs`), a task outside the time window is named rather than sent again, reconciliation
 * sends at most 10 list requests, and `tasks.findByOrderNumber` is the lookup creation uses.
 */
import { describe, expect, it } from 'vitest';
import { DeliveryClient, TaskCreationOutcomeUnknownError } from '../../../src/index.js';
import { orderParams, useMockService } from '../../support/mock-service.js';

const { mock, client } = useMockService({ account: { type: 'wallet', balance: 50_000 } });
const tasksFor = (orderNumber: string) => mock.tasks.filter((task) => task.orderNumber === orderNumber);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const methodOf = (input: RequestInfo | URL, init?: RequestInit) =>
  init?.method ?? (input instanceof Request ? input.method : 'GET');
const urlOf = (input: RequestInfo | URL) => new URL(input instanceof Request ? input.url : String(input));

/** A fetch whose `GET tasks` answers leave out tasks created less than `lateMs` ago (a service that lists late). */
function listingLate(lateMs: number): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = urlOf(input);
    if (methodOf(input, init) !== 'GET' || !/\/tasks$/.test(url.pathname)) return response;
    const page = (await response.json()) as { tasks: { createdAt?: string }[] };
    const listed = page.tasks.filter((task) => Date.now() - Date.parse(task.createdAt ?? '') >= lateMs);
    return Response.json({ ...page, tasks: listed }, { status: response.status });
  };
}

describe('a create whose outcome is unknown', () => {
  it('is decided by the next create at once, within a totalTimeout of 3000 ms', async () => {
    const sdk = client({ reconciliation: {}, listingDelayMs: 100 });
    mock.inject({ operation: 'tasks.create', kind: 'status', status: 500 });
    mock.inject({ operation: 'tasks.list', kind: 'status', status: 503, times: Number.POSITIVE_INFINITY });
    // The reconciliation after the POST is the subject: no lookup before it (it would fail on the 503s, nothing sent).
    const first = await sdk.tasks
      .create(orderParams('DECIDE-1'), { lookupFirst: false })
      .catch((error: unknown) => error);
    expect(first).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    mock.clearFaults();
    await pause(150);
    const lists = mock.requestsFor('tasks.list').length;
    const task = await sdk.tasks.create(orderParams('DECIDE-1'), { totalTimeout: 3000 });
    expect(tasksFor('DECIDE-1').map((t) => t.id)).toEqual([task.id]);
    expect(mock.requestsFor('tasks.list').length - lists).toBe(1);
  });

  it('says when a retry can decide, and never embeds another error message', async () => {
    const sdk = client({ reconciliation: {}, listingDelayMs: 60_000 });
    mock.inject({ operation: 'tasks.create', kind: 'commit-then-drop' });
    mock.inject({ operation: 'tasks.list', kind: 'status', status: 503, times: Number.POSITIVE_INFINITY });
    const error = (await sdk.tasks
      .create(orderParams('DECIDE-2'), { lookupFirst: false })
      .catch((e: unknown) => e)) as TaskCreationOutcomeUnknownError;
    expect(error).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    expect(error.retryAfterMs).toBeGreaterThan(50_000);
    expect(error.cause).toBeInstanceOf(Error);
    expect(error.message).not.toContain((error.cause as Error).message);
    mock.clearFaults();
    // The next create of the order with a short deadline: not listed yet, nothing sent, told when to come back.
    const again = (await sdk.tasks
      .create(orderParams('DECIDE-2'), { totalTimeout: 3000 })
      .catch((e: unknown) => e)) as TaskCreationOutcomeUnknownError;
    // The mock lists at once: the task is found and returned, with no POST.
    expect((again as { id?: string }).id).toBe(tasksFor('DECIDE-2')[0]?.id);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    expect(tasksFor('DECIDE-2')).toHaveLength(1);
  });

  it('sends no second POST while the service may still list the first one', async () => {
    const sdk = client({ fetch: listingLate(300), listingDelayMs: 600 });
    mock.inject({ operation: 'tasks.create', kind: 'commit-then-drop', times: Number.POSITIVE_INFINITY });
    const task = await sdk.tasks.create(orderParams('DECIDE-3'));
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    expect(tasksFor('DECIDE-3').map((t) => t.id)).toEqual([task.id]);
  });

  it('names a task created outside the window instead of sending again (a service clock 10 min behind)', async () => {
    const behind: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const url = urlOf(input);
      if (methodOf(input, init) === 'POST' && /\/tasks$/.test(url.pathname)) {
        return Response.json({ data: { createTask: {} } }, { status: 200 });
      }
      if (methodOf(input, init) !== 'GET' || !/\/tasks$/.test(url.pathname)) return response;
      const page = (await response.json()) as { tasks: { createdAt?: string }[] };
      const tasks = page.tasks.map((task) => ({
        ...task,
        createdAt: new Date(Date.parse(task.createdAt ?? '') - 600_000).toISOString(),
      }));
      return Response.json({ ...page, tasks }, { status: response.status });
    };
    const sdk = client({ fetch: behind, listingDelayMs: 50 });
    const first = (await sdk.tasks
      .create(orderParams('DECIDE-4'))
      .catch((e: unknown) => e)) as TaskCreationOutcomeUnknownError;
    const [created] = tasksFor('DECIDE-4');
    expect(first).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    expect(first.candidateTaskIds).toEqual([created?.id]);
    await pause(100);
    const second = (await sdk.tasks
      .create(orderParams('DECIDE-4'))
      .catch((e: unknown) => e)) as TaskCreationOutcomeUnknownError;
    expect(second).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    expect(second.candidateTaskIds).toEqual([created?.id]);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    expect(tasksFor('DECIDE-4')).toHaveLength(1);
    // The caller checked and asks for a resend.
    await sdk.tasks.create(orderParams('DECIDE-4'), { resendUnknownOutcome: true }).catch(() => undefined);
    expect(mock.requestsFor('tasks.create')).toHaveLength(2);
  });
});

describe('reconciliation against a service that pages forever', () => {
  it('sends at most 10 list requests per create and never searches literally unless the pattern is refused', async () => {
    const lists: URL[] = [];
    let posts = 0;
    const endless: typeof fetch = async (input, init) => {
      const url = urlOf(input);
      if (methodOf(input, init) === 'POST') {
        posts++;
        return new Response('{"message":"upstream"}', { status: 502 });
      }
      lists.push(url);
      const page = Number(url.searchParams.get('page') ?? 1);
      const tasks = Array.from({ length: 10 }, (_, i) => ({
        _id: `t${page}-${i}`,
        orderNumber: `OTHER-${page}-${i}`,
        createdAt: new Date().toISOString(),
      }));
      return Response.json({ tasks, page, limit: 10, totalPages: 1000, total: 10_000 });
    };
    const sdk = new DeliveryClient({
      apiKey: 'test-api-key',
      sellerId: 'seller-1',
      baseUrl: 'http://127.0.0.1:9/rest/',
      fetch: endless,
      logLevel: 'off',
      listingDelayMs: 0,
      // The reconciliation after the POST is the subject; a lookup before it: test/resources/task-creation/lookup-first.test.ts.
      lookupFirst: false,
    });
    await expect(sdk.tasks.create(orderParams('ENDLESS-1'))).rejects.toBeInstanceOf(
      TaskCreationOutcomeUnknownError,
    );
    expect(lists.length).toBeLessThanOrEqual(10);
    expect(lists.filter((url) => url.searchParams.get('ignoreRegex') === 'true')).toEqual([]);
    expect(posts).toBe(1);
  });
});

describe('tasks.findByOrderNumber', () => {
  it('returns exact matches only, newest first, across pages', async () => {
    const sdk = client();
    const made: string[] = [];
    for (let i = 0; i < 12; i++) {
      made.push((await sdk.tasks.create(orderParams('FIND-1'), { repeatDelivery: true })).id);
      await pause(2);
    }
    await sdk.tasks.create(orderParams('FIND-10'));
    await sdk.tasks.create(orderParams('XFIND-1'));
    const found = await sdk.tasks.findByOrderNumber('FIND-1');
    expect(found.map((task) => task.id)).toEqual([...made].reverse());
    expect(found.every((task) => task.orderNumber === 'FIND-1')).toBe(true);
  });

  it('refuses an empty order number without sending', async () => {
    const before = mock.requestsFor('tasks.list').length;
    await expect(client().tasks.findByOrderNumber('')).rejects.toMatchObject({
      name: 'RequestValidationError',
    });
    expect(mock.requestsFor('tasks.list')).toHaveLength(before);
  });
});
