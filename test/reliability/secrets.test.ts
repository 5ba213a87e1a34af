/**
 * The API key and the seller id never reach an error (message, stack, cause, inspect, JSON), an
 * inspected client, or a log line, whatever fails; and auth headers never follow a redirect off the
 * configured origin.
 */
import { Buffer } from 'node:buffer';
import { createServer } from 'node:net';
import { inspect } from 'node:util';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  APIConnectionError,
  APIError,
  type ClientOptions,
  DeliveryClient,
  type Logger,
  ResponseValidationError,
} from '../../src/index.js';
import { createMockDeliveryService } from '../../src/testing.js';
import { orderParams, useMockService } from '../support/mock-service.js';

const API_KEY = 'sk_live_9f8e7d6c5b4a39281706';
const SELLER_ID = 'seller-7f3a9c1e';
const { mock, client } = useMockService({
  apiKey: API_KEY,
  sellerId: SELLER_ID,
  account: { type: 'wallet', balance: 3 },
});

/** Every rendering of an error a log pipeline or a developer might produce. */
function renderings(error: unknown): string[] {
  const rendered = [
    String(error),
    inspect(error, { depth: 20, showHidden: true }),
    JSON.stringify(error) ?? '',
  ];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    rendered.push(current.message, current.stack ?? '', inspect(current, { depth: 20 }));
    current = current.cause;
  }
  return rendered;
}

function expectNoSecret(text: string, context: string): void {
  expect(text, context).not.toContain(API_KEY);
  expect(text, context).not.toContain(SELLER_ID);
}

function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const write = (message: string, fields?: Record<string, unknown>) => {
    lines.push(`${message} ${fields === undefined ? '' : inspect(fields, { depth: 20 })}`);
  };
  return { logger: { debug: write, info: write, warn: write, error: write }, lines };
}

describe('secrets', () => {
  it('stay out of every error, whatever fails', async () => {
    const { logger, lines } = recordingLogger();
    const sdk = client({ logger, logLevel: 'debug', timeout: 150, maxRetries: 1 });
    const created = await sdk.tasks.create({ ...orderParams('SEC-1'), sellerId: SELLER_ID });
    expect(created.sellerId).toBe(SELLER_ID);

    const failures: Array<[string, () => Promise<unknown>]> = [
      [
        '401 wrong key',
        () => client({ apiKey: `${API_KEY}x`, logger, logLevel: 'debug' }).wallet.retrieveBalance(),
      ],
      ['404', () => sdk.tasks.retrieve('000000000000000000000000')],
      [
        '402 low balance',
        async () => {
          for (let index = 0; index < 5; index++) await sdk.tasks.create(orderParams(`SEC-DRAIN-${index}`));
        },
      ],
      [
        'timeout',
        () => {
          mock.inject({ operation: 'tasks.retrieve', kind: 'delay', ms: Number.POSITIVE_INFINITY, times: 2 });
          return sdk.tasks.retrieve(created.id ?? '');
        },
      ],
      [
        'network',
        () => {
          mock.inject({ operation: 'tasks.list', kind: 'network-error', times: 2 });
          return sdk.tasks.list().toArray();
        },
      ],
      [
        'response validation with the seller id in the body',
        () => {
          mock.inject({
            operation: 'tasks.retrieve',
            kind: 'status',
            status: 200,
            // Not an object: the one shape a retrieve cannot read, in any validation mode.
            body: [{ id: 1, sellerId: SELLER_ID }],
          });
          return sdk.tasks.retrieve('x');
        },
      ],
      [
        'server echoing the secrets',
        () => {
          mock.inject({
            operation: 'tasks.retrieve',
            kind: 'status',
            status: 400,
            body: { message: `bad key ${API_KEY} for seller ${SELLER_ID}`, sellerId: SELLER_ID },
          });
          return sdk.tasks.retrieve('x');
        },
      ],
      [
        'outcome unknown',
        () => {
          mock.inject({ operation: 'tasks.create', kind: 'commit-then-drop' });
          const { orderNumber: _none, ...params } = orderParams('x');
          return sdk.tasks.create({ ...params, sellerId: SELLER_ID });
        },
      ],
      [
        'request validation of a body holding the seller id',
        () => sdk.tasks.create({ sellerId: SELLER_ID, totalAmount: SELLER_ID }),
      ],
    ];
    for (const [name, failing] of failures) {
      const error = await failing().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error, name).toBeInstanceOf(Error);
      for (const text of renderings(error)) expectNoSecret(text, name);
    }
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expectNoSecret(line, line);
    expect(lines.some((line) => line.includes("authorization: '[redacted]'"))).toBe(true);
    expect(lines.some((line) => line.includes("'x-seller-id': '[redacted]'"))).toBe(true);
  });

  it('stay out of the client when printed, inspected or serialised', () => {
    const sdk = client();
    for (const text of [
      String(sdk),
      inspect(sdk, { depth: 20, showHidden: true }),
      JSON.stringify(sdk),
      inspect(sdk.tasks, { showHidden: true }),
    ]) {
      expectNoSecret(text, text);
    }
  });

  it('are logged redacted at debug level, from the DELIVERY_LOG setting too', async () => {
    const { logger, lines } = recordingLogger();
    const previous = process.env.DELIVERY_LOG;
    process.env.DELIVERY_LOG = 'debug';
    try {
      await client({
        logger,
        logLevel: undefined as unknown as ClientOptions['logLevel'] & string,
      }).wallet.retrieveBalance();
    } finally {
      if (previous === undefined) delete process.env.DELIVERY_LOG;
      else process.env.DELIVERY_LOG = previous;
    }
    expect(lines.some((line) => line.includes('→ GET') && line.includes('[redacted]'))).toBe(true);
    expect(lines.some((line) => line.includes('← 200 GET'))).toBe(true);
    for (const line of lines) expectNoSecret(line, line);
  });
});

/** A key with the characters that change under URL-encoding and base64 quirks. */
const ODD_KEY = 'sk_live+9f8e/7d6c=5b4a+39281706';

/** Forms of a text a server or proxy might echo, computed with Node's own encoders. */
function echoForms(text: string): Record<string, string> {
  return {
    raw: text,
    'URL-encoded': encodeURIComponent(text),
    'URL-encoded, lower-case hex': encodeURIComponent(text).replace(/%[0-9A-F]{2}/g, (hex) =>
      hex.toLowerCase(),
    ),
    'form-encoded': new URLSearchParams({ k: text }).toString().slice(2),
    'JSON \\u-escaped': [...text]
      .map((character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`)
      .join(''),
    base64: Buffer.from(text).toString('base64'),
    'base64 of the Authorization value': Buffer.from(`apikey ${text}`).toString('base64'),
    'base64url of the Authorization value, unpadded': Buffer.from(`apikey ${text}`).toString('base64url'),
  };
}

/** A client holding {@link ODD_KEY}, without retries, logging off unless overridden. */
function oddKeyClient(baseUrl: string, overrides: ClientOptions = {}): DeliveryClient {
  return new DeliveryClient({
    apiKey: ODD_KEY,
    sellerId: SELLER_ID,
    baseUrl,
    logLevel: 'off',
    maxRetries: 0,
    ...overrides,
  });
}

function expectNoForm(text: string, secret: string, context: string): void {
  for (const [form, encoded] of Object.entries(echoForms(secret)))
    expect(text, `${context}: ${form}`).not.toContain(encoded);
}

describe('secrets echoed in another encoding', () => {
  it('stay out of errors and log lines when the server echoes them URL-encoded, escaped or in base64', async () => {
    const { logger, lines } = recordingLogger();
    const echoing = oddKeyClient('https://echo.test/rest', {
      logger,
      logLevel: 'debug',
      fetch: async (input, init) => {
        const authorization = new Request(input, init).headers.get('authorization') ?? '';
        const key = authorization.replace(/^apikey /, '');
        const forms = [...Object.values(echoForms(key)), ...Object.values(echoForms(authorization))];
        return Response.json({ message: `rejected ${forms.join(' ')}`, forms }, { status: 401 });
      },
    });
    const error = await echoing.wallet.retrieveBalance().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    for (const text of [...renderings(error), ...lines]) {
      expectNoForm(text, ODD_KEY, text.slice(0, 80));
      expectNoForm(text, SELLER_ID, text.slice(0, 80));
    }
    expect((error as APIError).serverMessage).toMatch(/^rejected \[redacted\] /);
  });
});

/**
 * Leaks that need the transport to call `redactor.error` at its exit and `redactor.excerpt` where it
 * cuts bodies (src/internal/http.ts). Marked `fails` until it does: flip each to `it` then.
 */
describe('secrets on transport paths (pending the transport calling Redactor.error / excerpt)', () => {
  it('stay out of message, stack and url after a same-origin redirect whose Location carries them', async () => {
    const sdk = oddKeyClient('https://redirect-echo.test', {
      fetch: async (input, init) => {
        const request = new Request(input, init);
        const url = new URL(request.url);
        if (url.pathname === '/tasks/wallet-balance') {
          const key = (request.headers.get('authorization') ?? '').replace(/^apikey /, '');
          const location = `/login?key=${encodeURIComponent(key)}&seller=${request.headers.get('x-seller-id')}`;
          return new Response(null, { status: 302, headers: { location } });
        }
        return Response.json({ message: 'log in first' }, { status: 403 });
      },
    });
    const error = await sdk.wallet.retrieveBalance().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).url).toContain('/login?key=');
    for (const text of [...renderings(error), (error as APIError).url]) {
      expectNoForm(text, ODD_KEY, text.slice(0, 80));
      expectNoForm(text, SELLER_ID, text.slice(0, 80));
    }
  });

  it('stay out of the cause chain when the HTTP parser rejects a header line that echoes the key', async () => {
    const server = createServer((socket) => {
      socket.once('data', (request) => {
        const authorization = /^authorization: (.*)$/im.exec(request.toString('latin1'))?.[1] ?? '';
        socket.end(
          `HTTP/1.1 200 OK\r\nX-Echo: \u0001${authorization}\r\nContent-Length: 2\r\n\r\n{}`,
          'latin1',
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    mock.close(); // real sockets, no msw
    try {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      const sdk = oddKeyClient(`http://127.0.0.1:${port}`);
      const error = await sdk.wallet.retrieveBalance().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(APIConnectionError);
      expect(inspect(error, { depth: 20 })).toContain('HTTPParserError');
      for (const text of renderings(error)) expectNoForm(text, ODD_KEY, text.slice(0, 80));
    } finally {
      await new Promise((resolve) => server.close(resolve));
      mock.listen();
    }
  });

  it('leave no prefix of the key in the body or the debug log when the key straddles the 2,000-character cut', async () => {
    const { logger, lines } = recordingLogger();
    const sdk = oddKeyClient('https://cut.test', {
      logger,
      logLevel: 'debug',
      fetch: async () => new Response(`${'x'.repeat(1990)}${ODD_KEY}${'y'.repeat(50)}`, { status: 200 }),
    });
    const error = await sdk.wallet.retrieveBalance().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseValidationError);
    const prefix = ODD_KEY.slice(0, 6);
    expect(String((error as ResponseValidationError).body)).not.toContain(prefix);
    for (const line of lines) expect(line).not.toContain(prefix);
  });
});

describe('redirects', () => {
  const stolen: Array<Record<string, string>> = [];
  const redirecting = createMockDeliveryService({
    apiKey: API_KEY,
    sellerId: SELLER_ID,
    baseUrl: 'https://redirect.test',
  });

  it('are not followed to another origin, so the auth headers stay home', async () => {
    const handlers = [
      http.get(
        'https://redirect.test/tasks/wallet-balance',
        () => new HttpResponse(null, { status: 302, headers: { location: 'https://attacker.test/collect' } }),
      ),
      http.get('https://attacker.test/collect', ({ request }) => {
        stolen.push(Object.fromEntries(request.headers));
        return HttpResponse.json({ walletAmount: 1 });
      }),
      http.get(
        'https://redirect.test/tasks/branches',
        () => new HttpResponse(null, { status: 307, headers: { location: '/v2/tasks/branches' } }),
      ),
      http.get('https://redirect.test/v2/tasks/branches', ({ request }) =>
        request.headers.get('authorization') === `apikey ${API_KEY}`
          ? HttpResponse.json({ branches: [{ name: 'Moved' }] })
          : HttpResponse.json({ message: 'no auth' }, { status: 401 }),
      ),
    ];
    const { setupServer } = await import('msw/node');
    mock.close();
    const server = setupServer(...handlers, ...redirecting.handlers);
    server.listen({ onUnhandledFrame: 'error' });
    try {
      const sdk = new DeliveryClient({
        apiKey: API_KEY,
        sellerId: SELLER_ID,
        baseUrl: 'https://redirect.test',
        logLevel: 'off',
      });
      const error = await sdk.wallet.retrieveBalance().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(APIError);
      expect((error as APIError).status).toBe(302);
      expect(stolen).toEqual([]);
      // A redirect within the configured origin is followed, with the headers.
      expect(await sdk.branches.list()).toEqual([{ name: 'Moved' }]);
    } finally {
      server.close();
      mock.listen();
    }
  });
});
