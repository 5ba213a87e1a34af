/**
 * Hostile input, as properties: validators reject every bad value and pass every good one through
 * unchanged; searches and ids cannot change the request's path; no response body, however odd,
 * escapes as anything but a DeliveryError or pollutes a prototype.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DeliveryClient, DeliveryError, RequestValidationError } from '../../src/index.js';

interface CapturedRequest {
  method: string;
  url: URL;
  body: string;
}

/** A client whose transport records each request and answers with `answer` (default: a valid task page). */
function capturingClient(answer: (request: CapturedRequest) => Response = () => Response.json({})) {
  const requests: CapturedRequest[] = [];
  const client = new DeliveryClient({
    apiKey: 'hostile-key',
    sellerId: 'hostile-seller',
    baseUrl: 'https://hostile.test/rest',
    logLevel: 'off',
    maxRetries: 0,
    reconciliation: { checks: 1, intervalMs: 1 },
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const captured = { method: request.method, url: new URL(request.url), body: await request.text() };
      requests.push(captured);
      return answer(captured);
    },
  });
  return { client, requests };
}

const outOfRangeLatitude = fc.oneof(
  fc.double({ min: 90, max: Number.MAX_VALUE, minExcluded: true, noNaN: true }),
  fc.double({ max: -90, min: -Number.MAX_VALUE, maxExcluded: true, noNaN: true }),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
);
const outOfRangeLongitude = fc.oneof(
  fc.double({ min: 180, max: Number.MAX_VALUE, minExcluded: true, noNaN: true }),
  fc.double({ max: -180, min: -Number.MAX_VALUE, maxExcluded: true, noNaN: true }),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
);
const latitude = fc.double({ min: -90, max: 90, noNaN: true });
const longitude = fc.double({ min: -180, max: 180, noNaN: true });

describe('request validators', () => {
  it('reject every out-of-range or non-finite coordinate without sending', async () => {
    const { client, requests } = capturingClient();
    await fc.assert(
      fc.asyncProperty(
        outOfRangeLatitude,
        outOfRangeLongitude,
        latitude,
        async (badLatitude, badLongitude, goodLatitude) => {
          const error = await client.tasks
            .estimate({
              from: { latitude: badLatitude, longitude: 0 },
              to: { latitude: goodLatitude, longitude: badLongitude },
            })
            .catch((caught: unknown) => caught);
          expect(error).toBeInstanceOf(RequestValidationError);
          expect((error as RequestValidationError).issues.map((issue) => issue.path)).toEqual([
            'from.latitude',
            'to.longitude',
          ]);
          const createError = await client.tasks
            .create({ orderNumber: 'X', deliveryLocation: { latitude: badLatitude, longitude: 0 } })
            .catch((caught: unknown) => caught);
          expect(createError).toBeInstanceOf(RequestValidationError);
        },
      ),
    );
    expect(requests).toHaveLength(0);
  });

  it('accept every valid coordinate and send it byte for byte', async () => {
    const { client, requests } = capturingClient(() => Response.json({ price: 1.5 }));
    await fc.assert(
      fc.asyncProperty(
        latitude,
        longitude,
        latitude,
        longitude,
        async (fromLatitude, fromLongitude, toLatitude, toLongitude) => {
          const params = {
            from: { latitude: fromLatitude, longitude: fromLongitude },
            to: { latitude: toLatitude, longitude: toLongitude },
          };
          await client.tasks.estimate(params);
          expect(requests.at(-1)?.body).toBe(JSON.stringify(params));
        },
      ),
    );
  });

  it('reject top-up amounts that are under 5, not finite, or have more than 3 decimals', async () => {
    const { client, requests } = capturingClient();
    const tooManyDecimals = fc
      .tuple(fc.integer({ min: 5, max: 1_000_000 }), fc.integer({ min: 1, max: 9 }))
      .map(([whole, tenThousandth]) => whole + tenThousandth / 10_000);
    const underMinimum = fc.double({ min: -1e9, max: 5, maxExcluded: true, noNaN: true });
    const notFinite = fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY);
    await fc.assert(
      fc.asyncProperty(fc.oneof(tooManyDecimals, underMinimum, notFinite), async (amount) => {
        const error = await client.wallet.topUp({ amount }).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(RequestValidationError);
        expect((error as RequestValidationError).issues[0]?.path).toBe('amount');
      }),
    );
    expect(requests).toHaveLength(0);
  });

  it('accept every top-up of at least 5 KWD with up to 3 decimals and send it byte for byte', async () => {
    const { client, requests } = capturingClient(() => Response.json({ paymentUrl: 'https://pay.test/1' }));
    const amount = fc.integer({ min: 5000, max: 1_000_000_000 }).map((fils) => fils / 1000);
    await fc.assert(
      fc.asyncProperty(amount, async (value) => {
        await client.wallet.topUp({ amount: value });
        expect(requests.at(-1)?.body).toBe(JSON.stringify({ amount: value }));
      }),
    );
  });

  it('reject totalAmount text with more than 3 decimals or a sign', async () => {
    const { client, requests } = capturingClient();
    const bad = fc.oneof(
      fc
        .tuple(fc.nat(), fc.integer({ min: 1000, max: 99_999 }))
        .map(([whole, fraction]) => `${whole}.${fraction}`),
      fc.nat().map((whole) => `-${whole}`),
      fc.constantFrom('NaN', 'Infinity', '1e3', '', '.5', '5.'),
    );
    await fc.assert(
      fc.asyncProperty(bad, async (totalAmount) => {
        await expect(client.tasks.create({ orderNumber: 'X', totalAmount })).rejects.toBeInstanceOf(
          RequestValidationError,
        );
      }),
    );
    expect(requests).toHaveLength(0);
  });

  it('reject every non-integer or out-of-range limit and page', async () => {
    const { client, requests } = capturingClient();
    const badLimit = fc.oneof(
      fc.integer({ max: 0 }),
      fc.integer({ min: 11 }),
      fc.double({ min: 1, max: 10, noInteger: true }),
      fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY),
    );
    const badPage = fc.oneof(
      fc.integer({ max: 0 }),
      fc.double({ min: 1, max: 1e6, noInteger: true }),
      fc.constant(Number.NaN),
    );
    await fc.assert(
      fc.asyncProperty(badLimit, badPage, async (limit, page) => {
        const error = await client.tasks
          .list({ limit, page })
          .then(() => undefined)
          .catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(RequestValidationError);
        expect((error as RequestValidationError).issues.map((issue) => issue.path).sort()).toEqual([
          'limit',
          'page',
        ]);
      }),
    );
    expect(requests).toHaveLength(0);
  });
});

describe('searches and ids', () => {
  const page = () => Response.json({ tasks: [], page: 1, limit: 10, totalPages: 0, total: 0 });

  it('send any search string literally, surviving the URL round trip', async () => {
    const { client, requests } = capturingClient(page);
    const search = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.constantFrom('(a+)+$', '[', 'C++', '&page=99', '%2F..', '#frag', '?x=1'),
    );
    await fc.assert(
      fc.asyncProperty(search, async (term) => {
        await client.tasks.list({ search: term });
        const url = requests.at(-1)?.url;
        expect(url?.searchParams.get('search')).toBe(term);
        expect(url?.searchParams.get('ignoreRegex')).toBe('true');
        expect(url?.searchParams.get('page')).toBe('1');
        expect(url?.pathname).toBe('/rest/tasks');
      }),
    );
  });

  it('reject a search with unpaired surrogates instead of altering it', async () => {
    const { client, requests } = capturingClient(page);
    await expect(client.tasks.list({ search: 'abc\uD800' })).rejects.toBeInstanceOf(RequestValidationError);
    expect(requests).toHaveLength(0);
  });

  it('encode every task id into one path segment', async () => {
    // The answer carries the id the request named (a task of another id is refused: tasks.retrieve).
    const { client, requests } = capturingClient((request) =>
      Response.json({ id: decodeURIComponent(request.url.pathname.split('/')[3] ?? '') }),
    );
    const id = fc.oneof(
      fc.string({ unit: 'binary', minLength: 1 }),
      fc.constantFrom('../wallet-balance', '../../etc', 'a/b', '%2e%2e', '?page=2', '#x', 'estimate'),
    );
    await fc.assert(
      fc.asyncProperty(
        id.filter((value) => value.trim() !== '' && value !== '.' && value !== '..' && value.isWellFormed()),
        async (taskId) => {
          await client.tasks.retrieve(taskId);
          const url = requests.at(-1)?.url;
          expect(url?.origin).toBe('https://hostile.test');
          expect(url?.search).toBe('');
          expect(url?.hash).toBe('');
          const segments = url?.pathname.split('/') ?? [];
          expect(segments.slice(0, 3)).toEqual(['', 'rest', 'tasks']);
          expect(segments).toHaveLength(4);
          expect(decodeURIComponent(segments[3] ?? '')).toBe(taskId);
        },
      ),
    );
  });
});

/** Answers each route with a minimal valid body, so a call that passes validation succeeds. */
function validAnswer(request: CapturedRequest): Response {
  const path = request.url.pathname.replace(/^\/rest\//, '');
  if (request.method === 'POST' && path === 'tasks')
    return Response.json({ data: { createTask: { id: 't1' } } });
  if (path === 'tasks') return Response.json({ tasks: [], page: 1, limit: 10, totalPages: 0, total: 0 });
  if (path === 'tasks/estimate') return Response.json({ price: 1 });
  if (path === 'tasks/branches') return Response.json({ branches: [] });
  if (path === 'tasks/wallet-balance') return Response.json({ walletAmount: 1 });
  if (path === 'tasks/wallet-topup') return Response.json({ paymentUrl: 'https://pay.test/1' });
  return Response.json({ id: 't1', status: 'delivered' });
}

const loneSurrogate = fc.constantFrom('\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uDE00\uD83D');
/** Any string at all: UTF-16 code units in any order (lone surrogates included), and full Unicode. */
const anyString = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'binary-ascii' }),
  fc.tuple(fc.string(), loneSurrogate, fc.string()).map((parts) => parts.join('')),
  fc.constantFrom('', ' ', '.', '..', '\r\n', '\0', '%', '%E0%A4%A', 'é', 'دينار'),
);

describe('unpaired surrogates in request text', () => {
  it('reject a create whose text fields hold unpaired surrogates, naming every field, and send nothing', async () => {
    const { client, requests } = capturingClient(validAnswer);
    const error = await client.tasks
      .create({
        orderNumber: 'ORD-\uD800',
        customerName: '\uDC00Fatima',
        specialNotes: 'fine',
        customPickup: true,
        selectedBranch: 'Main\uDBFF',
        deliveryLocation: { latitude: 29, longitude: 48, fullAddress: ['Block 1', 'Street \uDFFF'] },
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues.map((issue) => issue.path).sort()).toEqual([
      'customerName',
      'deliveryLocation.fullAddress.1',
      'orderNumber',
      'selectedBranch',
    ]);
    expect(requests).toHaveLength(0);
  });

  it('reject a sortBy with unpaired surrogates instead of sending it altered', async () => {
    const { client, requests } = capturingClient(validAnswer);
    const error = await client.tasks
      .list({ sortBy: 'created\uD800At' })
      .then(() => undefined)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues.map((issue) => issue.path)).toEqual(['sortBy']);
    expect(requests).toHaveLength(0);
  });

  it('reject a task id with unpaired surrogates as a RequestValidationError, not a URIError', async () => {
    const { client, requests } = capturingClient(validAnswer);
    await fc.assert(
      fc.asyncProperty(fc.tuple(fc.string(), loneSurrogate, fc.string()), async ([before, lone, after]) => {
        const id = `${before}${lone}${after}`;
        for (const call of [
          () => client.tasks.retrieve(id),
          () => client.tasks.waitForStatus(id, 'delivered', { intervalMs: 1, timeout: 1000 }),
        ]) {
          const error = await call().catch((caught: unknown) => caught);
          expect(error).toBeInstanceOf(RequestValidationError);
          expect((error as RequestValidationError).issues[0]?.path).toBe('id');
        }
      }),
    );
    expect(requests).toHaveLength(0);
  });
});

describe('any string in any string parameter', () => {
  interface StringCall {
    /** Calls a method with the text in one of its string parameters or in a header. */
    run: (client: DeliveryClient, text: string) => PromiseLike<unknown>;
    /** Where the text travelled, read back from the request sent, when it must arrive unchanged. */
    sent?: (request: CapturedRequest) => unknown;
  }
  const lastSegment = (request: CapturedRequest) =>
    decodeURIComponent(request.url.pathname.split('/').at(-1) ?? '');
  const calls: Record<string, StringCall> = {
    'tasks.retrieve id': { run: (client, text) => client.tasks.retrieve(text), sent: lastSegment },
    'tasks.waitForStatus id': {
      run: (client, text) => client.tasks.waitForStatus(text, 'delivered', { intervalMs: 1, timeout: 1000 }),
      sent: lastSegment,
    },
    'tasks.waitForStatus statuses': {
      run: (client, text) =>
        client.tasks.waitForStatus('t1', [text, 'delivered'], { intervalMs: 1, timeout: 1000 }),
    },
    'tasks.create orderNumber': {
      // repeatDelivery: the same text may come twice, and each run must be sent, not the remembered order.
      run: (client, text) => client.tasks.create({ orderNumber: text }, { repeatDelivery: true }),
      sent: (request) => (JSON.parse(request.body) as { orderNumber?: unknown }).orderNumber,
    },
    'tasks.create customerName and address': {
      run: (client, text) =>
        client.tasks.create(
          {
            orderNumber: 'ORD-1',
            customerName: text,
            deliveryLocation: { latitude: 1, longitude: 1, fullAddress: [text] },
          },
          { repeatDelivery: true },
        ),
      sent: (request) => (JSON.parse(request.body) as { customerName?: unknown }).customerName,
    },
    'tasks.list search': {
      run: (client, text) => client.tasks.list({ search: text }),
      sent: (request) => request.url.searchParams.get('search'),
    },
    'tasks.list sortBy': {
      run: (client, text) => client.tasks.list({ sortBy: text }),
      sent: (request) => request.url.searchParams.get('sortBy'),
    },
    'tasks.estimate header value': {
      run: (client, text) =>
        client.tasks.estimate(
          { from: { latitude: 1, longitude: 1 }, to: { latitude: 2, longitude: 2 } },
          { headers: { 'x-note': text } },
        ),
    },
    'branches.list header name': {
      run: (client, text) => client.branches.list({ headers: { [text]: 'x' } }),
    },
    'wallet.retrieveBalance header value': {
      run: (client, text) => client.wallet.retrieveBalance({ headers: { 'x-note': text } }),
    },
    'wallet.topUp header value': {
      run: (client, text) => client.wallet.topUp({ amount: 5 }, { headers: { 'x-note': text } }),
    },
  };

  it.each(Object.keys(calls))(
    '%s: fails only with DeliveryErrors, sends nothing when it rejects, and sends accepted text unchanged',
    async (name) => {
      const call = calls[name];
      if (!call) throw new Error(name);
      const { client, requests } = capturingClient(validAnswer);
      await fc.assert(
        fc.asyncProperty(anyString, async (text) => {
          const before = requests.length;
          try {
            await call.run(client, text);
          } catch (error) {
            expect(error instanceof DeliveryError, `${String(error)} for ${JSON.stringify(text)}`).toBe(true);
            if (error instanceof RequestValidationError) expect(requests.length).toBe(before);
            return;
          }
          const request = requests.at(-1);
          if (call.sent && request) expect(call.sent(request)).toBe(text);
        }),
        { numRuns: 200 },
      );
    },
  );
});

describe('response parsing of arbitrary JSON', () => {
  const hostileJson = fc.oneof(
    fc.json(),
    fc
      .dictionary(
        fc.constantFrom('__proto__', 'constructor', 'prototype', 'tasks', 'data', 'status', 'id'),
        fc.jsonValue(),
      )
      .map((value) => JSON.stringify(value).replace('"prototype"', '"__proto__"')),
    fc
      .jsonValue()
      .map(
        (value) =>
          `{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"v":${JSON.stringify(value)}}`,
      ),
  );

  it('throws only DeliveryErrors and never pollutes Object.prototype', async () => {
    await fc.assert(
      fc.asyncProperty(hostileJson, fc.constantFrom(200, 201, 400, 404, 500), async (text, status) => {
        const { client } = capturingClient(
          () => new Response(text, { status, headers: { 'content-type': 'application/json' } }),
        );
        const calls: Array<() => Promise<unknown>> = [
          () => client.tasks.retrieve('t1'),
          () => client.tasks.list().toArray({ max: 30 }),
          () =>
            client.tasks.estimate({ from: { latitude: 1, longitude: 1 }, to: { latitude: 2, longitude: 2 } }),
          () => client.wallet.retrieveBalance(),
          () => client.wallet.topUp({ amount: 5 }),
          () => client.branches.list(),
          () => client.tasks.create({ orderNumber: 'P-1' }),
        ];
        for (const call of calls) {
          try {
            await call();
          } catch (error) {
            expect(error instanceof DeliveryError, String(error)).toBe(true);
          }
        }
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(Object.prototype).not.toHaveProperty('polluted');
      }),
      { numRuns: 150 },
    );
  });
});
