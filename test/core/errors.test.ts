import { inspect } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import type * as Sdk from '../../src/index.js';
import {
  APIError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  DeliveryClient,
  DeliveryError,
  InsufficientBalanceError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  RequestValidationError,
  ResponseTooLargeError,
  UnprocessableEntityError,
} from '../../src/index.js';
import { WebhookEventTimeoutError } from '../../src/webhooks.js';
import { orderParams, useMockService } from '../support/mock-service.js';

const { mock, client } = useMockService();

describe('status → error class', () => {
  it.each([
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [409, ConflictError],
    [422, UnprocessableEntityError],
    [429, RateLimitError],
    [500, InternalServerError],
    [502, InternalServerError],
    [503, InternalServerError],
    [504, InternalServerError],
    [418, APIError],
    [402, APIError],
  ] as const)('maps %i to %s', async (status, errorClass) => {
    mock.inject({
      operation: 'tasks.retrieve',
      kind: 'status',
      status,
      body: { message: `Injected ${status}`, code: `E${status}` },
      headers: { 'x-request-id': `req-${status}` },
    });
    const error = await client({ maxRetries: 0 })
      .tasks.retrieve('task-1')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(errorClass);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toBeInstanceOf(DeliveryError);
    const apiError = error as APIError;
    expect(apiError.name).toBe(errorClass.name);
    expect(apiError.status).toBe(status);
    expect(apiError.code).toBe(`E${status}`);
    expect(apiError.requestId).toBe(`req-${status}`);
    expect(apiError.method).toBe('GET');
    expect(apiError.url).toBe(`${mock.baseUrl}/tasks/task-1`);
    expect(apiError.body).toEqual({ message: `Injected ${status}`, code: `E${status}` });
    expect(apiError.message).toMatch(
      new RegExp(
        `^${status} .+: GET /rest/tasks/task-1 — Injected ${status} \\(request id req-${status}\\)$`,
      ),
    );
  });

  it('maps a 402 on create, and a 4xx on create that mentions the balance, to InsufficientBalanceError', async () => {
    mock.inject({
      operation: 'tasks.create',
      kind: 'status',
      status: 402,
      body: { message: 'Payment required' },
    });
    await expect(client().tasks.create(orderParams('O-402'))).rejects.toBeInstanceOf(
      InsufficientBalanceError,
    );
    mock.inject({
      operation: 'tasks.create',
      kind: 'status',
      status: 400,
      body: { error: { message: 'Wallet balance too low' } },
    });
    await expect(client().tasks.create(orderParams('O-400'))).rejects.toBeInstanceOf(
      InsufficientBalanceError,
    );
    mock.inject({
      operation: 'tasks.create',
      kind: 'status',
      status: 400,
      body: { message: 'customerNumber is invalid' },
    });
    const plain = await client()
      .tasks.create(orderParams('O-400b'))
      .catch((caught: unknown) => caught);
    expect(plain).toBeInstanceOf(BadRequestError);
    expect(plain).not.toBeInstanceOf(InsufficientBalanceError);
    expect(mock.tasks).toHaveLength(0);
  });

  it.each([
    ['message', { message: 'From message' }, 'From message'],
    ['error', { error: 'From error' }, 'From error'],
    ['error.message', { error: { message: 'From error.message' } }, 'From error.message'],
    ['errors[0].message', { errors: [{ message: 'From errors' }] }, 'From errors'],
    ['plain text', 'Upstream exploded', 'Upstream exploded'],
  ])('reads the server message from %s', async (_where, body, expected) => {
    mock.inject({ operation: 'tasks.retrieve', kind: 'status', status: 400, body });
    const error = (await client()
      .tasks.retrieve('x')
      .catch((caught: unknown) => caught)) as APIError;
    expect(error.serverMessage).toBe(expected);
    expect(error.message).toContain(`— ${expected}`);
  });

  it('answers 401 for a wrong API key and never shows the key in the error', async () => {
    const wrongKey = 'sk_wrong_key_0123456789';
    const error = await client({ apiKey: wrongKey })
      .wallet.retrieveBalance()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AuthenticationError);
    for (const shown of [
      String(error),
      (error as Error).stack ?? '',
      inspect(error, { depth: 10 }),
      JSON.stringify(error),
    ]) {
      expect(shown).not.toContain(wrongKey);
    }
  });
});

describe('instanceof across copies of the SDK', () => {
  it('matches an error of another copy of the modules by its kind chain, class by class', async () => {
    vi.resetModules();
    const other = (await import('../../src/index.js')) as typeof Sdk;
    expect(other.InsufficientBalanceError).not.toBe(InsufficientBalanceError);
    const error = new other.RequestValidationError('tasks.create', [
      { path: 'orderNumber', message: 'bad', code: 'custom' },
    ]);
    expect(Object.getPrototypeOf(error)).not.toBe(RequestValidationError.prototype);
    expect(error instanceof DeliveryError).toBe(true);
    expect(error instanceof RequestValidationError).toBe(true);
    expect(error instanceof APIError).toBe(false);
    const lowBalance = other.APIError.generate({
      status: 402,
      headers: new Headers(),
      body: undefined,
      method: 'POST',
      url: 'https://delivery.test/rest/tasks',
      operation: 'tasks.create',
    });
    expect(lowBalance.name).toBe('InsufficientBalanceError');
    expect(lowBalance instanceof InsufficientBalanceError).toBe(true);
    expect(lowBalance instanceof APIError).toBe(true);
    expect(lowBalance instanceof NotFoundError).toBe(false);
    const mine = new ConflictError({
      status: 409,
      headers: new Headers(),
      body: undefined,
      method: 'GET',
      url: 'x',
    });
    expect(mine instanceof other.ConflictError && mine instanceof other.APIError).toBe(true);
    expect(mine instanceof other.RateLimitError).toBe(false);
    expect(new Error('plain') instanceof DeliveryError).toBe(false);
    expect({ name: 'APIError' } instanceof APIError).toBe(false);
  });

  it('matches an error of 0.1.0, which carries the brand alone, by the names of its class chain', () => {
    const brand = Symbol.for('delivery-task-sdk.error');
    // 0.1.0's classes: the brand set in the base constructor, each `name` a field of its class.
    class OldDeliveryError extends Error {
      override name = 'DeliveryError';
      constructor(message: string) {
        super(message);
        Object.defineProperty(this, brand, { value: true, enumerable: false });
      }
    }
    class OldAPIError extends OldDeliveryError {
      override name = 'APIError';
    }
    class OldInsufficientBalanceError extends OldAPIError {
      override name = 'InsufficientBalanceError';
    }
    for (const [errorClass, className] of [
      [OldDeliveryError, 'DeliveryError'],
      [OldAPIError, 'APIError'],
      [OldInsufficientBalanceError, 'InsufficientBalanceError'],
    ] as const) {
      Object.defineProperty(errorClass, 'name', { value: className });
    }
    const old = new OldInsufficientBalanceError('Payment required');
    expect(old instanceof InsufficientBalanceError).toBe(true);
    expect(old instanceof APIError).toBe(true);
    expect(old instanceof DeliveryError).toBe(true);
    expect(old instanceof NotFoundError).toBe(false);
    expect(new OldAPIError('x') instanceof InsufficientBalanceError).toBe(false);
    // Class names renamed by a bundler: the error's own `name` still tells its class.
    const renamed = Object.assign(Object.create(null), { name: 'NotFoundError' });
    Object.defineProperty(renamed, brand, { value: true });
    expect(renamed instanceof NotFoundError && renamed instanceof DeliveryError).toBe(true);
    expect(renamed instanceof RateLimitError).toBe(false);
    // Without the brand, a name or a class chain proves nothing.
    expect(Object.assign(new Error('x'), { name: 'NotFoundError' }) instanceof NotFoundError).toBe(false);
  });

  it('recognise the size-cap and onEvent-timeout errors, whose messages name the bound', () => {
    const tooLarge = new ResponseTooLargeError({
      method: 'GET',
      url: 'https://delivery.test/rest/tasks/abc',
      status: 200,
      maxBytes: 1024,
    });
    expect(tooLarge instanceof ResponseTooLargeError && tooLarge instanceof DeliveryError).toBe(true);
    expect(tooLarge instanceof APIError).toBe(false);
    expect(tooLarge.message).toBe(
      'Response too large: GET /rest/tasks/abc (200) sent more than 1024 bytes; reading stopped',
    );
    const timedOut = new WebhookEventTimeoutError({ taskId: 't1', kind: 'delivered', timeoutMs: 30_000 });
    expect(timedOut instanceof WebhookEventTimeoutError).toBe(true);
    expect(timedOut instanceof ResponseTooLargeError).toBe(false);
    expect(timedOut.message).toContain('within 30000 ms');
  });

  it('narrows a client error', async () => {
    const error = await new DeliveryClient({
      apiKey: 'k',
      sellerId: 's',
      baseUrl: mock.baseUrl,
      logLevel: 'off',
    }).wallet
      .retrieveBalance()
      .catch((caught: unknown) => caught);
    expect(error instanceof APIError && error.status).toBe(401);
  });
});
