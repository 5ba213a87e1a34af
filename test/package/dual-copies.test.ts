/**
 * The built package with both its copies loaded in one process, as when an app `import`s the SDK and a
 * dependency `require`s it: errors thrown by the CommonJS copy (`dist/index.cjs`) are `instanceof` the
 * ESM copy's classes (`dist/index.js`) and the other way round, class by class, and by no unrelated
 * class. Builds the package first when `dist` is missing or older than `src`.
 */
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as SdkIndex from '../../src/index.js';
import type * as SdkWebhooks from '../../src/webhooks.js';
import { BUILD_TIMEOUT_MS, builtAfterSource, ensureBuilt } from '../support/build.js';
import { ROOT } from '../support/root.js';

/** A copy of the SDK: its main entry, with the webhook errors of `/webhooks`. */
type Sdk = typeof SdkIndex & Pick<typeof SdkWebhooks, 'WebhookPayloadError' | 'WebhookEventTimeoutError'>;
declare namespace Sdk {
  type DeliveryError = SdkIndex.DeliveryError;
  type APIError = SdkIndex.APIError;
}

let esm: Sdk;
let cjs: Sdk;

beforeAll(async () => {
  await ensureBuilt(
    () =>
      builtAfterSource('dist/index.cjs') &&
      builtAfterSource('dist/index.js') &&
      builtAfterSource('dist/webhooks.cjs') &&
      builtAfterSource('dist/webhooks.js'),
  );
  const load = async (entry: string) =>
    (await import(pathToFileURL(join(ROOT, 'dist', entry)).href)) as object;
  esm = { ...(await load('index.js')), ...(await load('webhooks.js')) } as Sdk;
  const require = createRequire(import.meta.url);
  cjs = {
    ...require(join(ROOT, 'dist', 'index.cjs')),
    ...require(join(ROOT, 'dist', 'webhooks.cjs')),
  } as Sdk;
}, BUILD_TIMEOUT_MS + 10_000);

type ErrorClassName = Sdk.DeliveryError['name'];

/** One instance of each error class, made by the given copy of the SDK. */
function oneOfEach(sdk: Sdk): Record<ErrorClassName, Sdk.DeliveryError> {
  const api = (status: number, operation?: string): Sdk.APIError =>
    sdk.APIError.generate({
      status,
      headers: new Headers(),
      body: { message: 'insufficient balance' },
      method: 'GET',
      url: 'https://delivery.test/rest/tasks/t1',
      ...(operation === undefined ? {} : { operation }),
    });
  const request = { method: 'GET', url: 'https://delivery.test/rest/tasks/t1' };
  const issues = [{ path: 'orderNumber', message: 'bad', code: 'custom' }];
  return {
    DeliveryError: new sdk.DeliveryError('plain'),
    APIError: api(418),
    BadRequestError: api(400),
    AuthenticationError: api(401),
    InsufficientBalanceError: api(402, 'tasks.create'),
    PermissionDeniedError: api(403),
    NotFoundError: api(404),
    ConflictError: api(409),
    UnprocessableEntityError: api(422),
    RateLimitError: api(429),
    InternalServerError: api(503),
    APIConnectionError: new sdk.APIConnectionError({ ...request, attempts: 3 }),
    APIConnectionTimeoutError: new sdk.APIConnectionTimeoutError({ ...request, attempts: 1, timeoutMs: 10 }),
    APIUserAbortError: new sdk.APIUserAbortError(request),
    RequestValidationError: new sdk.RequestValidationError('tasks.create', issues),
    ResponseValidationError: new sdk.ResponseValidationError({ ...request, status: 200, issues, body: {} }),
    ConfigurationError: new sdk.ConfigurationError('apiKey', 'apiKey is missing'),
    TaskCreationOutcomeUnknownError: new sdk.TaskCreationOutcomeUnknownError({
      orderNumber: 'A-1',
      reason: 'x',
    }),
    DuplicateTaskError: new sdk.DuplicateTaskError({ orderNumber: 'A-1', taskIds: ['t1', 't2'] }),
    WebhookPayloadError: new sdk.WebhookPayloadError(issues),
    PaginationLimitError: new sdk.PaginationLimitError(5),
    StatusWaitTimeoutError: new sdk.StatusWaitTimeoutError({
      taskId: 't1',
      statuses: ['delivered'],
      lastStatus: 'created',
      timeoutMs: 10,
    }),
    ResponseTooLargeError: new sdk.ResponseTooLargeError({ ...request, status: 200, maxBytes: 1 }),
    WebhookEventTimeoutError: new sdk.WebhookEventTimeoutError({
      taskId: 't1',
      kind: 'delivered',
      timeoutMs: 10,
    }),
    StoreUnavailableError: new sdk.StoreUnavailableError({ operation: 'get', reason: 'down' }),
  };
}

/** The error classes of a copy of the SDK, by name. */
function classesOf(sdk: Sdk): Record<ErrorClassName, abstract new (...args: never) => Error> {
  const names = Object.keys(oneOfEach(sdk)) as ErrorClassName[];
  return Object.fromEntries(names.map((name) => [name, sdk[name]])) as unknown as Record<
    ErrorClassName,
    abstract new (
      ...args: never
    ) => Error
  >;
}

/** Names of `errorClass` and its ancestors up to `Error`, read from the ESM copy's own prototype chain. */
function lineage(errorClass: abstract new (...args: never) => Error): string[] {
  const names: string[] = [];
  for (let current: unknown = errorClass; current !== Error && typeof current === 'function'; ) {
    names.push((current as { name: string }).name);
    current = Object.getPrototypeOf(current);
  }
  return names;
}

describe('ESM and CommonJS copies loaded together', () => {
  it('are two copies: the classes differ, so instanceof cannot rely on the prototype chain', () => {
    expect(cjs.NotFoundError).not.toBe(esm.NotFoundError);
    const error = oneOfEach(cjs).NotFoundError;
    expect(Object.getPrototypeOf(error)).not.toBe(esm.NotFoundError.prototype);
  });

  it('an error made by the CommonJS copy is instanceof exactly its ESM class and that class’s ancestors', () => {
    const esmClasses = classesOf(esm);
    const made = oneOfEach(cjs);
    const names = Object.keys(esmClasses) as ErrorClassName[];
    expect(names).toHaveLength(25);
    let matches = 0;
    for (const madeName of names) {
      const error = made[madeName];
      expect(error.name).toBe(madeName);
      const ancestors = lineage(esmClasses[madeName]);
      expect(ancestors).toContain('DeliveryError');
      for (const className of names) {
        const expected = ancestors.includes(className);
        if (expected) matches += 1;
        expect({
          made: madeName,
          instanceOf: className,
          result: error instanceof esmClasses[className],
        }).toEqual({
          made: madeName,
          instanceOf: className,
          result: expected,
        });
      }
      expect(error instanceof Error).toBe(true);
    }
    // 25 own classes, 24 DeliveryError ancestors, 9 APIError ancestors, 1 APIConnectionError ancestor.
    expect(matches).toBe(25 + 24 + 9 + 1);
  });

  it('the reverse holds too: an ESM error is instanceof the CommonJS classes', () => {
    const error = oneOfEach(esm).RateLimitError;
    expect(error instanceof cjs.RateLimitError).toBe(true);
    expect(error instanceof cjs.APIError).toBe(true);
    expect(error instanceof cjs.DeliveryError).toBe(true);
    expect(error instanceof cjs.NotFoundError).toBe(false);
    expect(error instanceof cjs.APIConnectionError).toBe(false);
  });

  it('both ways, and within each copy, instanceof answers the same for every error and every class', () => {
    const esmClasses = classesOf(esm);
    const cjsClasses = classesOf(cjs);
    const names = Object.keys(esmClasses) as ErrorClassName[];
    let matches = 0;
    for (const [made, madeBy] of [
      [oneOfEach(esm), 'esm'],
      [oneOfEach(cjs), 'cjs'],
    ] as const) {
      for (const madeName of names) {
        const ancestors = lineage(esmClasses[madeName]);
        for (const className of names) {
          const expected = ancestors.includes(className);
          if (expected) matches += 1;
          for (const [classes, classesFrom] of [
            [esmClasses, 'esm'],
            [cjsClasses, 'cjs'],
          ] as const) {
            const result = made[madeName] instanceof classes[className];
            expect({ madeBy, made: madeName, classesFrom, instanceOf: className, result }).toEqual({
              madeBy,
              made: madeName,
              classesFrom,
              instanceOf: className,
              result: expected,
            });
          }
        }
      }
    }
    expect(matches).toBe(2 * (25 + 24 + 9 + 1));
    // instanceof replaced the is…Error guards: neither copy exports one.
    for (const sdk of [esm, cjs])
      expect(Object.keys(sdk).filter((name) => /^is[A-Z]\w*Error$/.test(name))).toEqual([]);
  });

  it('matches no unrelated value: a plain Error, a look-alike object, a forged name', () => {
    const lookAlike = { name: 'NotFoundError', status: 404, message: 'Not found' };
    const plain = Object.assign(new Error('Not found'), { name: 'NotFoundError' });
    for (const value of [plain, lookAlike, null, undefined, 'NotFoundError', 404]) {
      expect(value instanceof esm.DeliveryError).toBe(false);
      expect(value instanceof esm.NotFoundError).toBe(false);
      expect(value instanceof cjs.APIError).toBe(false);
    }
    // Renaming an error does not change what it is.
    const renamed = oneOfEach(cjs).ConfigurationError;
    renamed.name = 'NotFoundError' as 'ConfigurationError';
    expect(renamed instanceof esm.NotFoundError).toBe(false);
    expect(renamed instanceof esm.ConfigurationError).toBe(true);
  });

  it('a subclass the app defines is matched by its own prototype chain only', () => {
    class OrderMissingError extends esm.NotFoundError {}
    const fromCjs = oneOfEach(cjs).NotFoundError;
    expect(fromCjs instanceof OrderMissingError).toBe(false);
    const own = new OrderMissingError({
      status: 404,
      headers: new Headers(),
      body: undefined,
      method: 'GET',
      url: 'https://delivery.test/rest/tasks/t1',
    });
    expect(own instanceof OrderMissingError).toBe(true);
    expect(own instanceof cjs.NotFoundError).toBe(true);
    expect(own instanceof cjs.APIError).toBe(true);
    expect(own instanceof cjs.RateLimitError).toBe(false);
  });

  describe('a request that fails in the CommonJS client', () => {
    let server: Server;
    let baseUrl: string;
    beforeAll(async () => {
      server = createServer((_request, response) => {
        response.writeHead(404, { 'content-type': 'application/json', 'x-request-id': 'req-404' });
        response.end(JSON.stringify({ message: 'Task not found' }));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rest/`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('throws a 404 that the ESM classes recognise', async () => {
      const client = new cjs.DeliveryClient({ apiKey: 'k', sellerId: 's', baseUrl, logLevel: 'off' });
      const error = await client.tasks.retrieve('missing').catch((caught: unknown) => caught);
      expect(error instanceof esm.NotFoundError).toBe(true);
      expect(error instanceof esm.APIError).toBe(true);
      expect(error instanceof esm.DeliveryError).toBe(true);
      expect(error instanceof esm.InternalServerError).toBe(false);
      expect(error instanceof esm.APIConnectionError).toBe(false);
      expect(error instanceof esm.NotFoundError && error.status === 404 && error.requestId).toBe('req-404');
    });
  });
});

describe('a mock made by one copy, read by the other', () => {
  it("observersOf of either copy's testing entry reads a mock made by either copy", async () => {
    const require = createRequire(import.meta.url);
    const load = async (entry: string) =>
      (await import(pathToFileURL(join(ROOT, 'dist', entry)).href)) as Record<string, unknown>;
    type Testing = typeof import('../../src/testing.js');
    const testing = {
      esm: (await load('testing.js')) as unknown as Testing,
      cjs: require(join(ROOT, 'dist', 'testing.cjs')) as Testing,
    };
    for (const made of ['esm', 'cjs'] as const) {
      const mock = testing[made].createMockDeliveryService();
      for (const reader of ['esm', 'cjs'] as const) {
        expect(testing[reader].observersOf(mock)?.topUps(), `${made} mock, ${reader} reader`).toEqual([]);
      }
      mock.close();
    }
  });
});
