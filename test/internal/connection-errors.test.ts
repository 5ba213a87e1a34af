/**
 * Connection errors over real sockets on 127.0.0.1 (README "Errors"): the message names the service's
 * origin (never the path's ids nor a secret) and the cause (ECONNREFUSED, DNS, certificate), and counts
 * the attempts truly, creates resent after a refused connection included.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APIConnectionError, APIConnectionTimeoutError, DeliveryClient } from '../../src/index.js';
import { createMockDeliveryService, startMockHttpServer } from '../../src/testing.js';
import { orderParams } from '../support/order-params.js';
import { REFUSED_URL } from '../support/refused-url.js';

const API_KEY = 'sk_live_connection_errors_key';
const SELLER_ID = 'seller-connection-errors-42';
const TASK_ID = 'task-id-5f1c0a9e';

const clientOf = (baseUrl: string, overrides: { maxRetries?: number; timeout?: number } = {}) =>
  new DeliveryClient({ apiKey: API_KEY, sellerId: SELLER_ID, baseUrl, logLevel: 'off', ...overrides });

function expectNoSecretOrId(error: Error): void {
  for (const text of [error.message, String(error.stack)]) {
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain(SELLER_ID);
  }
  expect(error.message).not.toContain(TASK_ID);
}

describe('a connection error', () => {
  it('names the origin and ECONNREFUSED in its message, not the task id of the path', async () => {
    const url = REFUSED_URL;
    const error = await clientOf(`${url}/rest`, { maxRetries: 0 })
      .tasks.retrieve(TASK_ID)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIConnectionError);
    const failure = error as APIConnectionError;
    expect(failure.code).toBe('ECONNREFUSED');
    expect(failure.message).toContain(url);
    expect(failure.message).toContain('ECONNREFUSED');
    expect(failure.message).toContain('GET /tasks/{id}');
    expect(failure.message).toMatch(/after 1 attempt\b/);
    expectNoSecretOrId(failure);
  });

  it('says a read was tried 3 times when it was', async () => {
    const url = REFUSED_URL;
    const error = (await clientOf(url, { maxRetries: 2 })
      .wallet.retrieveBalance()
      .catch((caught: unknown) => caught)) as APIConnectionError;
    expect(error.attempts).toBe(3);
    expect(error.message).toContain('after 3 attempts');
  }, 30_000);

  it('says a create was sent 3 times when it was (a refused connection is resent), in attempts and message', async () => {
    const url = REFUSED_URL;
    // The POSTs are the subject: no lookup before them (it would be refused first, nothing sent).
    const error = (await clientOf(url, { maxRetries: 2 })
      .tasks.create(orderParams('CONN-1'), { lookupFirst: false })
      .catch((caught: unknown) => caught)) as APIConnectionError;
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error.code).toBe('ECONNREFUSED');
    expect(error.attempts).toBe(3);
    expect(error.message).toContain('after 3 attempts');
    expect(error.message).toContain('POST /tasks');
    expect(error.message).toContain(url);
    expectNoSecretOrId(error);
  }, 30_000);

  it('names a host that does not resolve and the DNS failure', async () => {
    const error = (await clientOf('https://no-such-host.invalid/rest', { maxRetries: 0 })
      .tasks.retrieve(TASK_ID)
      .catch((caught: unknown) => caught)) as APIConnectionError;
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error.code).toMatch(/^(ENOTFOUND|EAI_AGAIN)$/);
    expect(error.message).toContain('https://no-such-host.invalid');
    expect(error.message).toContain(String(error.code));
    expectNoSecretOrId(error);
  }, 30_000);

  it('names the innermost cause when there is no system error code (fetch refuses port 9), never a secret of it', async () => {
    const badPort = (await clientOf('http://127.0.0.1:9', { maxRetries: 0 })
      .wallet.retrieveBalance()
      .catch((caught: unknown) => caught)) as APIConnectionError;
    expect(badPort).toBeInstanceOf(APIConnectionError);
    expect(badPort.message).toMatch(/\(bad port\)$/);
    const leaky = (await new DeliveryClient({
      apiKey: API_KEY,
      sellerId: SELLER_ID,
      baseUrl: 'http://127.0.0.1:9',
      logLevel: 'off',
      maxRetries: 0,
      fetch: () =>
        Promise.reject(new TypeError('fetch failed', { cause: new Error(`proxy refused ${API_KEY}`) })),
    }).wallet
      .retrieveBalance()
      .catch((caught: unknown) => caught)) as APIConnectionError;
    expect(leaky.message).toContain('proxy refused');
    expectNoSecretOrId(leaky);
  });

  it('names the origin of a timeout', async () => {
    const mock = createMockDeliveryService({ apiKey: API_KEY, sellerId: SELLER_ID });
    const server = await startMockHttpServer(mock);
    try {
      mock.inject({ kind: 'delay', ms: 5_000 });
      const error = (await clientOf(server.url, { maxRetries: 0, timeout: 100 })
        .tasks.retrieve(TASK_ID)
        .catch((caught: unknown) => caught)) as APIConnectionTimeoutError;
      expect(error).toBeInstanceOf(APIConnectionTimeoutError);
      expect(error.message).toContain(server.url);
      expect(error.message).toContain('within 100 ms');
      expectNoSecretOrId(error);
    } finally {
      await server.close();
      mock.close();
    }
  });
});

describe('a certificate the client refuses', () => {
  let directory: string;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'dts-tls-'));
    const key = join(directory, 'key.pem');
    const cert = join(directory, 'cert.pem');
    execFileSync('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-subj',
      '/CN=127.0.0.1',
      '-days',
      '1',
      '-keyout',
      key,
      '-out',
      cert,
    ]);
    server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    rmSync(directory, { recursive: true, force: true });
  });

  it('names the origin and the certificate error in the message', async () => {
    const error = (await clientOf(url, { maxRetries: 0 })
      .tasks.retrieve(TASK_ID)
      .catch((caught: unknown) => caught)) as APIConnectionError;
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error.code).toMatch(/SELF_SIGNED|CERT|TLS/);
    expect(error.message).toContain(url);
    expect(error.message).toContain(String(error.code));
    expect(error.message).toMatch(/certificate/i);
    expectNoSecretOrId(error);
  });
});
