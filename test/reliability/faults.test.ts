/**
 * The fault suite: each case a named failure injected by the mock, with the requests counted and the
 * outcome checked. Every case ends within its bound (vitest's timeout).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
  BadRequestError,
  DeliveryClient,
  DuplicateTaskError,
  InternalServerError,
  PaginationLimitError,
  RateLimitError,
  ResponseValidationError,
  TaskCreationOutcomeUnknownError,
} from '../../src/index.js';
import { orderParams, useMockService } from '../support/mock-service.js';

const { mock, client } = useMockService({ account: { type: 'wallet', balance: 1000 } });

afterEach(() => {
  vi.useRealTimers();
});

/**
 * A client whose warnings are kept, and a wait (under fake timers) until it has logged that it will retry:
 * the retry's wait starts in the same turn, so fake time advanced from then on counts toward it. Zero-delay
 * timers and real macrotasks (the mock's answer travels through msw's interception) run meanwhile.
 */
function retryingClient() {
  const warnings: string[] = [];
  const logger = { debug() {}, info() {}, warn: (message: string) => warnings.push(message), error() {} };
  return {
    retrying: client({ logger, logLevel: 'warn' }),
    async untilRetryWaits(): Promise<void> {
      for (
        let turn = 0;
        turn < 1000 && !warnings.some((warning) => warning.includes('] Retrying '));
        turn++
      ) {
        await vi.advanceTimersByTimeAsync(0);
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(
        warnings.filter((warning) => warning.includes('] Retrying ')),
        JSON.stringify(warnings),
      ).toHaveLength(1);
    },
  };
}

describe('reads retry what is worth retrying', () => {
  it('succeeds after 503, 503, 200 with three requests', async () => {
    const created = await client().tasks.create(orderParams('R-1'));
    mock.inject({ operation: 'tasks.retrieve', kind: 'status', status: 503, times: 2 });
    const task = await client().tasks.retrieve(created.id ?? '');
    expect(task.id).toBe(created.id);
    expect(mock.requestsFor('tasks.retrieve').map((request) => request.status)).toEqual([503, 503, 200]);
  });

  it('throws InternalServerError after 500 three times with two retries', async () => {
    mock.inject({ operation: 'tasks.list', kind: 'status', status: 500, times: 3 });
    await expect(client({ maxRetries: 2 }).tasks.list()).rejects.toBeInstanceOf(InternalServerError);
    expect(mock.requestsFor('tasks.list')).toHaveLength(3);
  });

  it.each([400, 401, 403, 404, 422])('sends a request answered %i once', async (status) => {
    mock.inject({ operation: 'wallet.retrieveBalance', kind: 'status', status, times: 5 });
    await expect(client().wallet.retrieveBalance()).rejects.toMatchObject({ status });
    expect(mock.requestsFor('wallet.retrieveBalance')).toHaveLength(1);
  });

  it('waits as long as Retry-After says after a 429', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    mock.inject({
      operation: 'branches.list',
      kind: 'status',
      status: 429,
      headers: { 'retry-after': '30' },
    });
    const { retrying, untilRetryWaits } = retryingClient();
    const result = retrying.branches.list();
    await untilRetryWaits();
    expect(mock.requestsFor('branches.list')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(29_900);
    expect(mock.requestsFor('branches.list')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(200);
    const branches = await result;
    expect(branches.length).toBeGreaterThan(0);
    expect(mock.requestsFor('branches.list').map((request) => request.status)).toEqual([429, 200]);
  });

  it('lets retry-after-ms win over Retry-After', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    mock.inject({
      operation: 'branches.list',
      kind: 'status',
      status: 429,
      headers: { 'retry-after-ms': '1500', 'retry-after': '40' },
    });
    const { retrying, untilRetryWaits } = retryingClient();
    const result = retrying.branches.list();
    await untilRetryWaits();
    await vi.advanceTimersByTimeAsync(1400);
    expect(mock.requestsFor('branches.list')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(200);
    await result;
    expect(mock.requestsFor('branches.list')).toHaveLength(2);
  });

  it('falls back to the normal backoff when Retry-After is huge', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    mock.inject({
      operation: 'branches.list',
      kind: 'status',
      status: 503,
      headers: { 'retry-after': '86400' },
    });
    const { retrying, untilRetryWaits } = retryingClient();
    const result = retrying.branches.list();
    await untilRetryWaits();
    // First backoff step: at most 500 ms, far below a day.
    await vi.advanceTimersByTimeAsync(600);
    await result;
    expect(mock.requestsFor('branches.list')).toHaveLength(2);
  });

  it('retries a network error, then succeeds', async () => {
    mock.inject({ operation: 'wallet.retrieveBalance', kind: 'network-error' });
    const balance = await client().wallet.retrieveBalance();
    expect(balance.walletAmount).toBe(1000);
    expect(mock.requestsFor('wallet.retrieveBalance').map((request) => request.status)).toEqual([
      'network-error',
      200,
    ]);
  });

  it('times out an endless delay on every attempt and counts the retries', async () => {
    mock.inject({ operation: 'branches.list', kind: 'delay', ms: Number.POSITIVE_INFINITY, times: 3 });
    const started = performance.now();
    const error = await client({ timeout: 100, maxRetries: 2 })
      .branches.list()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect((error as APIConnectionTimeoutError).attempts).toBe(3);
    expect((error as APIConnectionTimeoutError).timeoutMs).toBe(100);
    expect(mock.requestsFor('branches.list')).toHaveLength(3);
    // 3 × 100 ms plus two backoffs (≤ 500 ms and ≤ 1000 ms).
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it('times out a response whose headers arrive and whose body stalls', async () => {
    mock.inject({ operation: 'wallet.retrieveBalance', kind: 'stall-body' });
    const error = await client({ timeout: 150, maxRetries: 0 })
      .wallet.retrieveBalance()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(mock.requestsFor('wallet.retrieveBalance')).toHaveLength(1);
  });

  it('retries a stalled body on a read and then succeeds', async () => {
    mock.inject({ operation: 'wallet.retrieveBalance', kind: 'stall-body' });
    expect((await client({ timeout: 150 }).wallet.retrieveBalance()).walletAmount).toBe(1000);
    expect(mock.requestsFor('wallet.retrieveBalance')).toHaveLength(2);
  });

  it('throws ResponseValidationError for a 2xx body that is not JSON', async () => {
    mock.inject({ operation: 'wallet.retrieveBalance', kind: 'invalid-json' });
    const error = await client()
      .wallet.retrieveBalance()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues[0]?.code).toBe('invalid_json');
    expect((error as ResponseValidationError).status).toBe(200);
  });

  it('stops a list that serves the same page forever at the page cap', async () => {
    // Setup, not the subject: sent without a lookup (which would be a list request).
    for (let index = 0; index < 3; index++) {
      await client().tasks.create(orderParams(`LOOP-${index}`), { lookupFirst: false });
    }
    mock.inject({ operation: 'tasks.list', kind: 'repeat-page', times: 1000 });
    const error = await client()
      .tasks.list({}, { maxPages: 25 })
      .toArray()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PaginationLimitError);
    expect((error as PaginationLimitError).maxPages).toBe(25);
    expect(mock.requestsFor('tasks.list')).toHaveLength(25);
  });

  it('stops waiting between retries as soon as the caller aborts', async () => {
    mock.inject({
      operation: 'branches.list',
      kind: 'status',
      status: 503,
      headers: { 'retry-after': '30' },
    });
    const controller = new AbortController();
    const result = client().branches.list({ signal: controller.signal });
    setTimeout(() => controller.abort(new Error('shutting down')), 50);
    const started = performance.now();
    const error = await result.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(mock.requestsFor('branches.list')).toHaveLength(1);
  });

  it('ends the whole call at totalTimeout, retries included', async () => {
    mock.inject({
      operation: 'branches.list',
      kind: 'status',
      status: 503,
      times: 10,
      headers: { 'retry-after': '1' },
    });
    const error = await client({ maxRetries: 10 })
      .branches.list({ totalTimeout: 1500 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect((error as APIConnectionTimeoutError).timeoutMs).toBe(1500);
    expect(mock.requestsFor('branches.list')).toHaveLength(2);
  });
});

describe('tasks.create is exactly-once', () => {
  function tasksFor(orderNumber: string) {
    return mock.tasks.filter((task) => task.orderNumber === orderNumber);
  }

  it.each([
    ['503', { kind: 'status', status: 503 }],
    ['500', { kind: 'status', status: 500 }],
    ['commit-then-drop', { kind: 'commit-then-drop' }],
    ['drop-before-commit', { kind: 'network-error' }],
    ['delay past the timeout', { kind: 'delay', ms: 400 }],
    ['headers then a stalled body', { kind: 'stall-body' }],
    ['invalid JSON on 2xx', { kind: 'invalid-json' }],
  ] as const)('ends with exactly one task and one fee after %s', async (_name, fault) => {
    const orderNumber = `EX-${_name}`;
    mock.inject({ operation: 'tasks.create', ...fault });
    const task = await client({ timeout: 200 }).tasks.create(orderParams(orderNumber));
    expect(task.orderNumber).toBe(orderNumber);
    expect(tasksFor(orderNumber)).toHaveLength(1);
    expect(tasksFor(orderNumber)[0]?.id).toBe(task.id);
    expect(mock.wallet.feesCharged).toBe(1);
  });

  it('reconciles with an anchored, escaped pattern and exact match, so ORD-1 is not taken for ORD-10', async () => {
    // The reconciliation's searches are the subject: no lookup before any POST (its own search would count).
    const sdk = client({ lookupFirst: false });
    await sdk.tasks.create(orderParams('ORD-10'));
    await sdk.tasks.create(orderParams('ORD-1x'));
    await sdk.tasks.create(orderParams('ORD.1'));
    mock.inject({ operation: 'tasks.create', kind: 'network-error' });
    const task = await client({ lookupFirst: false }).tasks.create(orderParams('ORD.1'));
    expect(task.orderNumber).toBe('ORD.1');
    expect(tasksFor('ORD.1')).toHaveLength(1);
    const searches = mock.requestsFor('tasks.list').map((request) => request.query);
    expect(searches.length).toBeGreaterThan(0);
    for (const query of searches) {
      expect(query).toMatchObject({
        search: '^ORD\\.1$',
        ignoreRegex: 'false',
        sortBy: 'createdAt',
        sortOrder: '-1',
      });
    }
  });

  it('falls back to a literal search, still exact, when the service refuses the pattern', async () => {
    await client().tasks.create(orderParams('ORD-10'), { lookupFirst: false });
    mock.inject({ operation: 'tasks.create', kind: 'network-error' });
    mock.inject({
      operation: 'tasks.list',
      kind: 'status',
      status: 400,
      body: { message: 'regex not supported' },
    });
    // The first search is the lookup before sending (no store), refused; the second, literal, finds nothing.
    const task = await client().tasks.create(orderParams('ORD-1'));
    expect(task.orderNumber).toBe('ORD-1');
    expect(tasksFor('ORD-1')).toHaveLength(1);
    const searches = mock.requestsFor('tasks.list').map((request) => request.query);
    expect(searches[0]).toMatchObject({ search: '^ORD-1$', ignoreRegex: 'false' });
    expect(searches[1]).toMatchObject({ search: 'ORD-1', ignoreRegex: 'true' });
  });

  it('does not resend after a rejection, and never lists to reconcile it', async () => {
    mock.inject({
      operation: 'tasks.create',
      kind: 'status',
      status: 400,
      body: { message: 'bad customerNumber' },
    });
    // Reconciliation is the subject: no lookup before the POST.
    await expect(client({ lookupFirst: false }).tasks.create(orderParams('REJ-1'))).rejects.toBeInstanceOf(
      BadRequestError,
    );
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    expect(mock.requestsFor('tasks.list')).toHaveLength(0);
  });

  it('waits and resends after a 429, which the service did not process', async () => {
    mock.inject({
      operation: 'tasks.create',
      kind: 'status',
      status: 429,
      headers: { 'retry-after-ms': '20' },
    });
    const task = await client().tasks.create(orderParams('RL-1'));
    expect(tasksFor('RL-1')).toEqual([expect.objectContaining({ id: task.id })]);
    expect(mock.requestsFor('tasks.create').map((request) => request.status)).toEqual([429, 200]);
  });

  it('gives up with RateLimitError when every resend is rate limited', async () => {
    mock.inject({
      operation: 'tasks.create',
      kind: 'status',
      status: 429,
      times: 3,
      headers: { 'retry-after-ms': '5' },
    });
    await expect(client({ maxRetries: 2 }).tasks.create(orderParams('RL-2'))).rejects.toBeInstanceOf(
      RateLimitError,
    );
    expect(mock.tasks).toHaveLength(0);
  });

  it('throws TaskCreationOutcomeUnknownError, without resending, when there is no orderNumber', async () => {
    mock.inject({ operation: 'tasks.create', kind: 'commit-then-drop' });
    const { orderNumber: _omitted, ...params } = orderParams('unused');
    const error = await client()
      .tasks.create(params)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    expect((error as TaskCreationOutcomeUnknownError).orderNumber).toBeUndefined();
    expect((error as Error).cause).toBeInstanceOf(APIConnectionError);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    expect(mock.tasks).toHaveLength(1);
  });

  it('throws DuplicateTaskError with the ids when reconciliation finds several tasks', async () => {
    // Two processes that each sent the order without a lookup; the reconciliation after a 502 is the subject.
    const first = await client({ lookupFirst: false }).tasks.create(orderParams('DUP-1'));
    const second = await client({ lookupFirst: false }).tasks.create(orderParams('DUP-1'));
    mock.inject({ operation: 'tasks.create', kind: 'status', status: 502 });
    const error = await client({ lookupFirst: false })
      .tasks.create(orderParams('DUP-1'))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DuplicateTaskError);
    expect([...(error as DuplicateTaskError).taskIds].sort()).toEqual([first.id, second.id].sort());
    expect(tasksFor('DUP-1')).toHaveLength(2);
  });

  it('throws TaskCreationOutcomeUnknownError when every send fails and no task appears', async () => {
    mock.inject({ operation: 'tasks.create', kind: 'network-error', times: 3 });
    const error = await client({ maxRetries: 2 })
      .tasks.create(orderParams('GONE-1'))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    expect((error as TaskCreationOutcomeUnknownError).orderNumber).toBe('GONE-1');
    expect(mock.requestsFor('tasks.create')).toHaveLength(3);
    expect(mock.tasks).toHaveLength(0);
  });

  it('resends at once a request that provably never left (connection refused)', async () => {
    let refused = 0;
    const sdk = new DeliveryClient({
      apiKey: mock.apiKey,
      sellerId: mock.sellerId,
      baseUrl: mock.baseUrl,
      logLevel: 'off',
      // The POST's resend is the subject: no lookup before it (its GET would be the refused request).
      lookupFirst: false,
      fetch: (input, init) => {
        if (refused === 0) {
          refused++;
          const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {
            code: 'ECONNREFUSED',
          });
          return Promise.reject(new TypeError('fetch failed', { cause }));
        }
        return fetch(input, init);
      },
    });
    const task = await sdk.tasks.create(orderParams('REFUSED-1'));
    expect(task.orderNumber).toBe('REFUSED-1');
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    expect(mock.requestsFor('tasks.list')).toHaveLength(0);
    expect(tasksFor('REFUSED-1')).toHaveLength(1);
  });

  it('treats a low-balance rejection as final', async () => {
    const poor = new DeliveryClient({
      apiKey: mock.apiKey,
      sellerId: mock.sellerId,
      baseUrl: mock.baseUrl,
      logLevel: 'off',
      // No reconciliation of a rejection is the subject: no lookup before the POST either.
      lookupFirst: false,
    });
    mock.inject({
      operation: 'tasks.create',
      kind: 'status',
      status: 402,
      body: { message: 'Insufficient balance', code: 'INSUFFICIENT_BALANCE' },
    });
    await expect(poor.tasks.create(orderParams('POOR-1'))).rejects.toMatchObject({
      name: 'InsufficientBalanceError',
    });
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    expect(mock.requestsFor('tasks.list')).toHaveLength(0);
  });
});
