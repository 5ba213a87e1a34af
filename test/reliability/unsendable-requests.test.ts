/**
 * Requests fetch cannot send: credentials and per-call headers holding control characters are refused
 * before any request with a typed error naming the field, and a request that fetch itself refuses before
 * sending (undici's `UND_ERR_INVALID_ARG`) is "not sent": never retried, never an unknown outcome. Over a
 * real socket on 127.0.0.1 that counts what reaches it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  DeliveryClient,
  RequestValidationError,
  TaskCreationOutcomeUnknownError,
} from '../../src/index.js';

/** Every C0 control character (U+0000–U+001F) and DEL. */
const CONTROL_CHARACTERS = [
  ...Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code)),
  '\u007f',
];
const label = (character: string) => `U+${character.charCodeAt(0).toString(16).padStart(4, '0')}`;

let server: Server;
let baseUrl = '';
let received = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    received++;
    request.resume();
    response.setHeader('content-type', 'application/json');
    response.end(
      request.url?.includes('wallet') ? '{"walletAmount":1}' : '{"tasks":[],"page":1,"limit":10,"total":0}',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => {
  received = 0;
  delete process.env.DELIVERY_API_KEY;
  delete process.env.DELIVERY_SELLER_ID;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function client(overrides: ConstructorParameters<typeof DeliveryClient>[0] = {}) {
  return new DeliveryClient({
    apiKey: 'key-123',
    sellerId: 'seller-9',
    baseUrl,
    logLevel: 'off',
    maxRetries: 2,
    reconciliation: { checks: 2, intervalMs: 1 },
    ...overrides,
  });
}

describe('credentials holding control characters', () => {
  it.each(['apiKey', 'sellerId'] as const)(
    '%s: refused at construction for every one, naming the option, never the value',
    (option) => {
      for (const character of CONTROL_CHARACTERS) {
        const secret = `secret${character}value`;
        let error: unknown;
        try {
          client({ [option]: secret });
        } catch (caught) {
          error = caught;
        }
        expect(error, label(character)).toBeInstanceOf(ConfigurationError);
        expect((error as ConfigurationError).option).toBe(option);
        expect((error as Error).message).not.toContain('secret');
      }
      expect(received).toBe(0);
    },
  );

  it.each([
    ['apiKey', 'DELIVERY_API_KEY'],
    ['sellerId', 'DELIVERY_SELLER_ID'],
  ] as const)('%s from %s: refused at construction for every one', (option, variable) => {
    // An environment variable cannot hold U+0000 (the process's environment is C strings): the rest.
    for (const character of CONTROL_CHARACTERS.slice(1)) {
      process.env[variable] = `secret${character}value`;
      const options: ConstructorParameters<typeof DeliveryClient>[0] = {
        apiKey: 'key-123',
        sellerId: 'seller-9',
        baseUrl,
      };
      delete options[option];
      let error: unknown;
      try {
        new DeliveryClient(options);
      } catch (caught) {
        error = caught;
      }
      expect(error, label(character)).toBeInstanceOf(ConfigurationError);
      expect((error as ConfigurationError).option).toBe(option);
      expect((error as Error).message).toContain(variable);
      expect((error as Error).message).not.toContain('secret');
    }
  });

  it('refuses a credential longer than 4096 characters', () => {
    expect(() => client({ apiKey: 'k'.repeat(4097) })).toThrow(ConfigurationError);
    expect(() => client({ sellerId: 's'.repeat(1_000_000) })).toThrow(ConfigurationError);
    expect(client({ apiKey: 'k'.repeat(4096), sellerId: 'é-latin-1' }).baseUrl).toBe(`${baseUrl}/`);
  });
});

describe('per-call headers holding control characters', () => {
  it('are refused with RequestValidationError naming the header, and nothing reaches the server', async () => {
    const sdk = client();
    for (const character of CONTROL_CHARACTERS) {
      const error = await sdk.wallet
        .retrieveBalance({ headers: { 'x-note': `a${character}b` } })
        .catch((caught: unknown) => caught);
      expect(error, label(character)).toBeInstanceOf(RequestValidationError);
      expect((error as RequestValidationError).issues[0]?.path).toBe('options.headers.x-note');
      const create = await sdk.tasks
        .create({ orderNumber: `H-${character.charCodeAt(0)}` }, { headers: { 'x-note': `a${character}b` } })
        .catch((caught: unknown) => caught);
      expect(create, label(character)).toBeInstanceOf(RequestValidationError);
    }
    expect(received).toBe(0);
  });

  it('refuses characters past U+00FF, bad names, and more headers or bytes than the bound', async () => {
    const sdk = client();
    const cases: Record<string, string>[] = [
      { 'x-note': 'دينار' },
      { 'bad name': 'x' },
      { [`x-${'n'.repeat(300)}`]: 'x' },
      { 'x-note': 'v'.repeat(8193) },
      Object.fromEntries(Array.from({ length: 65 }, (_, index) => [`x-h${index}`, 'v'])),
    ];
    for (const headers of cases) {
      await expect(sdk.wallet.retrieveBalance({ headers })).rejects.toBeInstanceOf(RequestValidationError);
    }
    expect(received).toBe(0);
    await sdk.wallet.retrieveBalance({ headers: { 'x-note': `tab-free latin-1 é ${'v'.repeat(8000)}` } });
    expect(received).toBe(1);
  });
});

describe('a request fetch refuses before sending', () => {
  /** A caller's fetch that adds a header undici refuses to send (`UND_ERR_INVALID_ARG`), counting its calls. */
  function refusingClient() {
    const calls = { count: 0 };
    const sdk = client({
      fetch: (input, init) => {
        calls.count++;
        const request = new Request(input, init);
        request.headers.set('x-trace', 'a\u0001b');
        return globalThis.fetch(request);
      },
    });
    return { sdk, calls };
  }

  it('fails a read once, with RequestValidationError, without a retry', async () => {
    const { sdk, calls } = refusingClient();
    const error = await sdk.wallet.retrieveBalance().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as Error).message).toMatch(/refused/);
    expect((error as Error).message).not.toContain('key-123');
    expect(calls.count).toBe(1);
    expect(received).toBe(0);
  });

  it('fails at once when a caller fetch builds a request whose header Headers refuses (TypeError)', async () => {
    let calls = 0;
    const sdk = client({
      fetch: (input, init) => {
        calls++;
        const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
        headers.set('x-trace', 'line\nbreak');
        return globalThis.fetch(input, { ...init, headers });
      },
    });
    const read = await sdk.wallet.retrieveBalance().catch((caught: unknown) => caught);
    expect(read).toBeInstanceOf(RequestValidationError);
    const create = await sdk.tasks.create({ orderNumber: 'REFUSED-2' }).catch((caught: unknown) => caught);
    expect(create).toBeInstanceOf(RequestValidationError);
    expect(calls).toBe(2);
    expect(received).toBe(0);
  });

  it('fails a create as not sent: one attempt, no lookup, never an unknown outcome', async () => {
    const { sdk, calls } = refusingClient();
    const error = await sdk.tasks.create({ orderNumber: 'REFUSED-1' }).catch((caught: unknown) => caught);
    expect(error).not.toBeInstanceOf(TaskCreationOutcomeUnknownError);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(calls.count).toBe(1);
    expect(received).toBe(0);
  });
});
