/**
 * The `Host` check (docs/sandbox.md, "Exposure"): it applies to every route whether or not a control token
 * is set; the token adds its own check on the control routes, never replaces it; `allowedHosts` is the one
 * way to answer another name. The SDK's `startMockHttpServer` checks `Host` the same way. Raw sockets on
 * 127.0.0.1 send the foreign `Host` a DNS-rebinding page's browser would send.
 */
import { connect } from 'node:net';
import {
  createMockDeliveryService,
  type MockHttpServer,
  startMockHttpServer,
} from 'delivery-task-sdk/testing';
import { type Sandbox, startSandbox } from 'delivery-task-tools/sandbox';
import { afterEach, describe, expect, it } from 'vitest';

const TOKEN = 'host-test-token-0123456789';

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function sandboxWith(options: Parameters<typeof startSandbox>[0]): Promise<Sandbox> {
  const running = await startSandbox({ port: 0, ...options });
  cleanups.push(() => running.close());
  return running;
}

/** Sends one raw HTTP/1.1 request and resolves with the status line's code (0: no answer within 2 s). */
function statusOf(baseUrl: string, method: string, path: string, headers: Record<string, string>, body = '') {
  const { hostname, port } = new URL(baseUrl);
  const lines = Object.entries({ ...headers, 'content-length': String(Buffer.byteLength(body)) }).map(
    ([name, value]) => `${name}: ${value}\r\n`,
  );
  const text = `${method} ${path} HTTP/1.1\r\n${lines.join('')}Connection: close\r\n\r\n${body}`;
  return new Promise<number>((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(text));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.setTimeout(2000, () => socket.destroy());
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1] ?? 0)));
    socket.on('error', reject);
  });
}

/** What a rebinding page would do, each with the test credentials and the control token. */
function attacks(running: Sandbox): [string, string, Record<string, string>, string][] {
  const service = { authorization: `apikey ${running.apiKey}`, 'x-seller-id': running.sellerId };
  const control = { authorization: `Bearer ${TOKEN}` };
  const json = { 'content-type': 'application/json' };
  return [
    ['GET', '/tasks', service, ''],
    ['GET', '/rest/tasks/wallet-balance', service, ''],
    ['POST', '/tasks/wallet-topup', { ...service, ...json }, '{"amount":500}'],
    ['POST', '/tasks', { ...service, ...json }, '{"orderNumber":"REBIND-1"}'],
    ['GET', '/', {}, ''],
    ['GET', '/_dashboard/dashboard.js', {}, ''],
    ['GET', '/pay/anything', {}, ''],
    ['POST', '/pay/anything', {}, ''],
    ['GET', '/_sandbox/tasks', control, ''],
    ['GET', '/_sandbox/requests', control, ''],
    ['POST', '/_sandbox/reset', control, ''],
    ['GET', '/_sandbox/events', control, ''],
  ];
}

describe('the sandbox refuses a foreign Host on every route', () => {
  for (const withToken of [false, true]) {
    it(`${withToken ? 'with' : 'without'} a control token`, async () => {
      const running = await sandboxWith(withToken ? { controlToken: TOKEN } : {});
      const { port } = new URL(running.baseUrl);
      for (const host of [
        `rebind.example:${port}`,
        'rebind.example',
        `attacker.test:${port}`,
        `10.0.0.1:${port}`,
      ]) {
        for (const [method, path, headers, body] of attacks(running)) {
          expect(
            await statusOf(running.baseUrl, method, path, { host, ...headers }, body),
            `${method} ${path} ${host}`,
          ).toBe(403);
        }
      }
      // Nothing was stored: no task, no top-up link, no request in the log.
      expect(running.mock.tasks).toHaveLength(0);
      expect(running.mock.requests).toHaveLength(0);
      // The sandbox's own names are answered, the token still checked on the control routes.
      const own = `localhost:${port}`;
      const service = { authorization: `apikey ${running.apiKey}`, 'x-seller-id': running.sellerId };
      expect(await statusOf(running.baseUrl, 'GET', '/tasks', { host: own, ...service })).toBe(200);
      expect(await statusOf(running.baseUrl, 'GET', '/_sandbox/tasks', { host: own })).toBe(
        withToken ? 401 : 200,
      );
      expect(
        await statusOf(running.baseUrl, 'GET', '/_sandbox/tasks', {
          host: own,
          authorization: `Bearer ${TOKEN}`,
        }),
      ).toBe(200);
    });
  }

  it('answers a name given in allowedHosts, and with a token still needs it on the control routes', async () => {
    const running = await sandboxWith({ controlToken: TOKEN, allowedHosts: ['sandbox'] });
    const { port } = new URL(running.baseUrl);
    const host = `sandbox:${port}`;
    const service = { authorization: `apikey ${running.apiKey}`, 'x-seller-id': running.sellerId };
    expect(await statusOf(running.baseUrl, 'GET', '/tasks', { host, ...service })).toBe(200);
    expect(await statusOf(running.baseUrl, 'GET', '/_sandbox/tasks', { host })).toBe(401);
    expect(
      await statusOf(running.baseUrl, 'GET', '/_sandbox/tasks', { host, authorization: `Bearer ${TOKEN}` }),
    ).toBe(200);
    expect(await statusOf(running.baseUrl, 'GET', '/tasks', { host: `other:${port}`, ...service })).toBe(403);
  });
});

describe('startMockHttpServer refuses a foreign Host', () => {
  async function serve(options: Parameters<typeof startMockHttpServer>[1] = {}) {
    const mock = createMockDeliveryService({ account: { type: 'wallet', balance: 100 } });
    const server: MockHttpServer = await startMockHttpServer(mock, options);
    cleanups.push(() => server.close());
    return {
      mock,
      server,
      headers: { authorization: `apikey ${mock.apiKey}`, 'x-seller-id': mock.sellerId },
    };
  }

  it('answers 403 FOREIGN_HOST to another name and stores nothing', async () => {
    const { mock, server, headers } = await serve();
    const { port } = new URL(server.url);
    const json = { ...headers, 'content-type': 'application/json' };
    for (const host of [`rebind.example:${port}`, 'rebind.example', `127.0.0.1.nip.test:${port}`]) {
      expect(await statusOf(server.url, 'GET', '/tasks', { host, ...headers })).toBe(403);
      expect(
        await statusOf(server.url, 'POST', '/tasks/wallet-topup', { host, ...json }, '{"amount":500}'),
      ).toBe(403);
    }
    expect(mock.requests).toHaveLength(0);
    const refused = await fetch(`${server.url}/tasks`, { headers: { ...headers } });
    expect(refused.status).toBe(200);
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
      expect(await statusOf(server.url, 'GET', '/tasks', { host, ...headers }), host).toBe(200);
    }
  });

  it('names the option in its answer, and answers the names of allowedHosts', async () => {
    const { server, headers } = await serve({ allowedHosts: ['mock'] });
    const { port } = new URL(server.url);
    expect(await statusOf(server.url, 'GET', '/tasks', { host: `mock:${port}`, ...headers })).toBe(200);
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.end(`GET /tasks HTTP/1.1\r\nHost: rebind.example:${port}\r\nConnection: close\r\n\r\n`),
      );
      let text = '';
      socket.on('data', (chunk) => {
        text += String(chunk);
      });
      socket.on('close', () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 403 /);
    expect(answer).toContain('"code":"FOREIGN_HOST"');
    expect(answer).toContain('allowedHosts');
    await expect(startMockHttpServer(createMockDeliveryService(), { allowedHosts: ['a b'] })).rejects.toThrow(
      /allowedHosts/,
    );
  });
});
