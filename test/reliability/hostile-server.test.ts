/**
 * A hostile service over real sockets on 127.0.0.1 (test/support/hostile-server.ts), with the real mock
 * behind it: answers that lie after the service committed, bodies that never end or explode, redirects
 * and headers made to break the client. Every failure must be a DeliveryError, every create exactly once.
 */

import { inspect } from 'node:util';
import {
  brotliCompressSync,
  createBrotliCompress,
  createDeflate,
  createGzip,
  deflateSync,
  gzipSync,
} from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  APIConnectionTimeoutError,
  APIUserAbortError,
  type ClientOptions,
  DeliveryClient,
  DeliveryError,
  ResponseTooLargeError,
  ResponseValidationError,
} from '../../src/index.js';
import { type HostileServer, startHostileServer } from '../support/hostile-server.js';
import { orderParams } from '../support/mock-service.js';

let hostile: HostileServer;
const hostileClient = (overrides: ClientOptions = {}) =>
  new DeliveryClient({
    apiKey: hostile.mock.apiKey,
    sellerId: hostile.mock.sellerId,
    baseUrl: hostile.url,
    logLevel: 'off',
    reconciliation: { checks: 2, intervalMs: 5 },
    ...overrides,
  });
beforeAll(async () => {
  hostile = await startHostileServer();
});
beforeEach(() => hostile.mock.reset());
afterAll(() => hostile.close());

describe('answers to a create that are not rejections', () => {
  it.each([301, 302, 303, 307, 308])(
    'treats a %i after the service committed as created: returns the task, never sends again',
    async (status) => {
      const orderNumber = `REDIR-${status}`;
      hostile.use(async (request, response, { forward }) => {
        const answer = await forward();
        if (request.method === 'POST') {
          response.writeHead(status, { location: 'https://elsewhere.example/tasks/1' }).end();
        } else {
          response.writeHead(answer.status, Object.fromEntries(answer.headers)).end(answer.body);
        }
      });
      const task = await hostileClient().tasks.create(orderParams(orderNumber));
      expect(task.orderNumber).toBe(orderNumber);
      expect(hostile.mock.tasks.filter((stored) => stored.orderNumber === orderNumber)).toHaveLength(1);
      expect(hostile.mock.requestsFor('tasks.create')).toHaveLength(1);
    },
  );

  it('reconciles a 4xx whose error body nests 2,000 levels deep instead of taking it as a rejection', async () => {
    hostile.use(async (request, response, { forward }) => {
      const answer = await forward();
      if (request.method === 'POST') {
        response
          .writeHead(400, { 'content-type': 'application/json' })
          .end(`${'['.repeat(2000)}${']'.repeat(2000)}`);
      } else {
        response.writeHead(answer.status, Object.fromEntries(answer.headers)).end(answer.body);
      }
    });
    const task = await hostileClient().tasks.create(orderParams('DEEP-1'));
    expect(task.orderNumber).toBe('DEEP-1');
    expect(hostile.mock.requestsFor('tasks.create')).toHaveLength(1);
    expect(hostile.mock.requestsFor('tasks.list').length).toBeGreaterThan(0);
  });
});

describe('error answers to a create whose body cannot be read', () => {
  it.each([
    [
      'over maxResponseBytes',
      (response: import('node:http').ServerResponse) => {
        response
          .writeHead(400, { 'content-type': 'application/json' })
          .end(`{"message":"${'x'.repeat(64 * 1024)}"}`);
      },
    ],
    [
      'cut off mid-body',
      (response: import('node:http').ServerResponse) => {
        response.writeHead(422, { 'content-type': 'application/json', 'content-length': '1000' });
        response.write('{"message":"inval');
        setTimeout(() => response.destroy(), 20);
      },
    ],
  ])('reconciles a 4xx %s after the service committed, and returns the task', async (_name, answer) => {
    hostile.use(async (request, response, { forward }) => {
      const forwarded = await forward();
      if (request.method === 'POST') answer(response);
      else response.writeHead(forwarded.status, Object.fromEntries(forwarded.headers)).end(forwarded.body);
    });
    const task = await hostileClient({ maxResponseBytes: 16 * 1024 }).tasks.create(orderParams('UNREAD-1'));
    expect(task.orderNumber).toBe('UNREAD-1');
    expect(hostile.mock.requestsFor('tasks.create')).toHaveLength(1);
  });
});

/** Writes `chunk` until the socket closes (or `limit` bytes), recording when each write was flushed. */
async function flood(
  response: import('node:http').ServerResponse,
  chunk: Buffer,
  flushed: { at: number; bytes: number }[],
  pauseMs = 0,
  limit = Number.POSITIVE_INFINITY,
): Promise<void> {
  let sent = 0;
  while (!response.destroyed && sent < limit) {
    const ok = response.write(chunk, (error) => {
      if (!error) flushed.push({ at: performance.now(), bytes: chunk.length });
    });
    sent += chunk.length;
    if (!ok) {
      await new Promise<void>((resolve) => {
        const done = () => {
          response.off('drain', done).off('close', done);
          resolve();
        };
        response.on('drain', done).on('close', done);
      });
    }
    if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  if (!response.destroyed) response.end();
}

const MiB = 1024 * 1024;

describe('bounded responses', () => {
  const flushedAfter = (flushed: { at: number; bytes: number }[], failedAt: number) =>
    flushed.filter((write) => write.at > failedAt).reduce((sum, write) => sum + write.bytes, 0);

  it('stops an endless 200 body at maxResponseBytes with ResponseTooLargeError, and the transfer ends', async () => {
    const flushed: { at: number; bytes: number }[] = [];
    hostile.use(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      await flood(response, Buffer.alloc(64 * 1024, 0x20), flushed);
    });
    const error = await hostileClient({ maxResponseBytes: MiB })
      .tasks.retrieve('t1')
      .catch((caught: unknown) => caught);
    const failedAt = performance.now();
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({ status: 200, maxBytes: MiB, method: 'GET' });
    await hostile.responsesClosed(2000);
    expect(flushedAfter(flushed, failedAt)).toBeLessThanOrEqual(MiB);
  });

  it('caps a 200 MB body announced by Content-Length before reading it whole', async () => {
    let written = 0;
    hostile.use(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(200 * MiB) });
      const flushed: { at: number; bytes: number }[] = [];
      await flood(response, Buffer.alloc(MiB, 0x20), flushed, 0, 200 * MiB);
      written = flushed.reduce((sum, write) => sum + write.bytes, 0);
    });
    await expect(hostileClient({ maxResponseBytes: 2 * MiB }).branches.list()).rejects.toBeInstanceOf(
      ResponseTooLargeError,
    );
    await hostile.responsesClosed(2000);
    expect(written).toBeLessThan(64 * MiB);
  });

  it.each(['gzip', 'deflate', 'br'] as const)(
    'counts decoded bytes: a %s bomb stops at the cap, not at its compressed size',
    async (encoding) => {
      const zeros = Buffer.alloc(MiB, 0x20);
      hostile.use(async (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding });
        const compressor =
          encoding === 'gzip'
            ? createGzip()
            : encoding === 'deflate'
              ? createDeflate()
              : createBrotliCompress();
        compressor.pipe(response);
        response.once('close', () => compressor.destroy());
        for (let index = 0; index < 320 && !response.destroyed; index++) {
          if (!compressor.write(zeros)) await new Promise((resolve) => compressor.once('drain', resolve));
        }
        compressor.end();
      });
      const error = await hostileClient({ maxResponseBytes: 4 * MiB })
        .tasks.retrieve('bomb')
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ResponseTooLargeError);
      await hostile.responsesClosed(5000);
    },
  );

  it.each([
    ['a timeout', { timeout: 300 }, undefined],
    ['the caller aborting', {}, 300],
  ] as const)(
    'stops the transfer after %s: at most 1 MiB flushed after the failure',
    async (_name, options, abortAfter) => {
      const flushed: { at: number; bytes: number }[] = [];
      hostile.use(async (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        await flood(response, Buffer.alloc(16 * 1024, 0x20), flushed, 5);
      });
      const controller = new AbortController();
      if (abortAfter !== undefined) setTimeout(() => controller.abort(), abortAfter);
      const error = await hostileClient({ maxResponseBytes: 1024 * MiB, maxRetries: 0, ...options })
        .tasks.retrieve('slow', { signal: controller.signal })
        .catch((caught: unknown) => caught);
      const failedAt = performance.now();
      expect(error).toBeInstanceOf(abortAfter === undefined ? APIConnectionTimeoutError : APIUserAbortError);
      await hostile.responsesClosed(2000);
      expect(flushed.length).toBeGreaterThan(0);
      expect(flushedAfter(flushed, failedAt)).toBeLessThanOrEqual(MiB);
    },
  );

  it('caps error bodies too', async () => {
    hostile.use(async (_request, response) => {
      response.writeHead(404, { 'content-type': 'application/json' });
      await flood(response, Buffer.alloc(64 * 1024, 0x20), []);
    });
    const error = await hostileClient({ maxResponseBytes: MiB, maxRetries: 0 })
      .tasks.retrieve('missing')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as ResponseTooLargeError).status).toBe(404);
  });

  it.each([200, 404, 500])(
    'answers JSON nested 2,000 levels deep (status %i) with a typed error on every endpoint',
    async (status) => {
      hostile.use((_request, response) => {
        response
          .writeHead(status, { 'content-type': 'application/json' })
          .end(`${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}`);
      });
      const sdk = hostileClient({ maxRetries: 0 });
      const point = { latitude: 29.3, longitude: 48 };
      const calls: (() => PromiseLike<unknown>)[] = [
        () => sdk.tasks.retrieve('deep'),
        () => sdk.tasks.list(),
        () => sdk.tasks.list().toArray(),
        () => sdk.tasks.estimate({ from: point, to: point }),
        () => sdk.branches.list(),
        () => sdk.wallet.retrieveBalance(),
        () => sdk.wallet.topUp({ amount: 5 }),
      ];
      for (const call of calls) {
        const error = await Promise.resolve()
          .then(() => call())
          .catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(ResponseValidationError);
        expect((error as ResponseValidationError).issues[0]?.code).toBe('too_deep');
      }
    },
  );
});

describe('every failure a DeliveryError', () => {
  it.each(['http://[', 'http://exa mple.com/', 'https://%zz/'])(
    'refuses to follow a redirect whose Location is unreadable (%s) with a typed error',
    async (location) => {
      hostile.use((_request, response) => {
        response.writeHead(302, { location }).end();
      });
      const error = await hostileClient()
        .tasks.retrieve('t1')
        .catch((caught: unknown) => caught);
      expect(error instanceof DeliveryError).toBe(true);
      expect(error).toMatchObject({ status: 302 });
    },
  );
});

describe('any answer at all', () => {
  const encodings = [undefined, 'gzip', 'deflate', 'br', 'identity', 'x-unknown', 'gzip, br'] as const;
  const bodies = fc.oneof(
    fc.uint8Array({ maxLength: 2048 }),
    fc.json().map((text) => new TextEncoder().encode(text)),
    fc
      .constantFrom(gzipSync('{"tasks":[]}'), deflateSync('{"id":"x"}'), brotliCompressSync('[1,2]'))
      .map((bytes) => new Uint8Array(bytes)),
  );

  it('gives a result or a DeliveryError for any status, headers, body bytes and encoding', async () => {
    // No retries: a Retry-After may ask for up to 60 s, which this property does not need to wait through.
    const sdk = hostileClient({ maxRetries: 0, timeout: 2000, reconciliation: { checks: 1, intervalMs: 1 } });
    const point = { latitude: 29.3, longitude: 48 };
    const calls: (() => PromiseLike<unknown>)[] = [
      () => sdk.tasks.retrieve('any'),
      () => sdk.tasks.list().toArray({ max: 30 }),
      () => sdk.tasks.estimate({ from: point, to: point }),
      () => sdk.tasks.create(orderParams('ANY-1')),
      () => sdk.wallet.topUp({ amount: 5 }),
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 200, max: 599 }),
        fc.constantFrom(...encodings),
        bodies,
        fc.option(fc.oneof(fc.string(), fc.constantFrom('/rest/tasks/x', 'http://[', '//evil.example/'))),
        fc.option(fc.oneof(fc.string(), fc.constantFrom('-1', '1.5', '0', 'Wed, 21 Oct 2015 07:28:00 GMT'))),
        fc.nat({ max: calls.length - 1 }),
        async (status, encoding, body, location, retryAfter, which) => {
          hostile.use((_request, response) => {
            const headers: Record<string, string> = { 'content-type': 'application/json' };
            if (encoding !== undefined) headers['content-encoding'] = encoding;
            if (location !== null) headers.location = location;
            if (retryAfter !== null) headers['retry-after'] = retryAfter;
            response.writeHead(status, headers).end(body);
          });
          const outcome = await Promise.resolve()
            .then(() => calls[which]?.())
            .then(
              () => 'ok',
              (error: unknown) => error,
            );
          if (outcome !== 'ok') expect(outcome instanceof DeliveryError, String(outcome)).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('secrets on every path', () => {
  // A key with the characters encodings change: `+`, `/`, `=`, a quote and a backslash.
  const API_KEY = 'sk_live+9f8e/7d6c=5b4a"39\\2817';
  const SELLER_ID = 'seller-7f3a9c1e+/=';
  const forms = (secret: string): string[] => [
    secret,
    encodeURIComponent(secret),
    encodeURIComponent(secret).toLowerCase(),
    JSON.stringify(secret).slice(1, -1),
    Buffer.from(secret).toString('base64'),
    Buffer.from(secret).toString('base64url'),
  ];
  const SECRET_FORMS = [
    ...forms(API_KEY),
    ...forms(SELLER_ID),
    Buffer.from(`apikey ${API_KEY}`).toString('base64'),
    // A prefix long enough to identify the key, as a cut after 2,000 characters would leave.
    API_KEY.slice(0, 12),
  ];

  function expectNothingSecret(shown: string, context: string): void {
    for (const form of SECRET_FORMS) expect(shown, `${context}: ${form}`).not.toContain(form);
  }

  /** Every rendering of an error, its cause chain included, and every log line. */
  function renderings(error: unknown, lines: readonly string[]): string[] {
    const rendered = [
      String(error),
      inspect(error, { depth: 20, showHidden: true }),
      JSON.stringify(error) ?? '',
      ...lines,
    ];
    let current: unknown = error;
    for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
      rendered.push(current.message, current.stack ?? '', inspect(current, { depth: 20, showHidden: true }));
      for (const value of Object.values(current)) if (typeof value === 'string') rendered.push(value);
      current = current.cause;
    }
    return rendered;
  }

  const secretClient = (lines: string[]) => {
    const write = (message: string, fields?: Record<string, unknown>) => {
      lines.push(`${message} ${inspect(fields, { depth: 20 })}`);
    };
    return hostileClient({
      apiKey: API_KEY,
      sellerId: SELLER_ID,
      maxRetries: 0,
      logLevel: 'debug',
      logger: { debug: write, info: write, warn: write, error: write },
    });
  };

  const echo = (request: import('node:http').IncomingMessage) =>
    `${request.headers.authorization ?? ''} ${request.headers['x-seller-id'] ?? ''}`;

  it.each([
    [
      'a same-origin redirect whose Location carries them',
      (request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse) => {
        if (request.url?.includes('/redirected/')) {
          response
            .writeHead(404, { 'content-type': 'application/json' })
            .end(JSON.stringify({ message: `no ${request.url}` }));
        } else {
          const key = encodeURIComponent(API_KEY);
          response
            .writeHead(302, {
              location: `/rest/redirected/${key}?seller=${encodeURIComponent(SELLER_ID)}&k=${key}`,
            })
            .end();
        }
      },
    ],
    [
      'an error body echoing them URL-encoded',
      (request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse) => {
        response
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ message: `bad ${encodeURIComponent(echo(request))}` }));
      },
    ],
    [
      'an error body echoing them JSON-escaped and in base64',
      (request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse) => {
        const header = request.headers.authorization ?? '';
        response
          .writeHead(401, {
            'content-type': 'application/json',
            'x-echo': Buffer.from(header).toString('base64'),
          })
          .end(
            `{"message":${JSON.stringify(`wrong ${header}`)},"token":"${Buffer.from(header).toString('base64')}","key":"${Buffer.from(API_KEY).toString('base64url')}"}`,
          );
      },
    ],
    [
      'a 2xx text body with the key straddling the 2,000-character cut',
      (request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse) => {
        response
          .writeHead(200, { 'content-type': 'text/plain' })
          .end(`${'x'.repeat(1995)}${echo(request)} not json`);
      },
    ],
    [
      'a malformed header line that echoes the key',
      (request: import('node:http').IncomingMessage) => {
        request.socket.end(
          `HTTP/1.1 200 OK\r\nx-echo: ${echo(request)}\u0001\r\nx-bad header: ${API_KEY}\r\n\r\n{}`,
        );
      },
    ],
  ])('stay out of the error, its cause chain and the debug log after %s', async (_name, handler) => {
    hostile.use(handler);
    const lines: string[] = [];
    const error = await secretClient(lines)
      .tasks.retrieve('t1')
      .catch((caught: unknown) => caught);
    expect(error instanceof DeliveryError).toBe(true);
    for (const shown of renderings(error, lines)) expectNothingSecret(shown, String(error));
  });
});
