/**
 * docs/testing.md on a test process where `@hono/node-server` serves: Hono's adapter replaces the global
 * `Request` and `Response` unless `overrideGlobalObjects: false`. The two ways round it the docs give keep
 * the mock's dropped connections dropped: `startMockHttpServer` under the replaced globals, and
 * `mock.listen()` beside an adapter made with `overrideGlobalObjects: false`.
 */
import { createAdaptorServer, getRequestListener } from '@hono/node-server';
import { describe, expect, it } from 'vitest';
import { createMockDeliveryService, startMockHttpServer } from '../../src/testing.js';

const nativeResponse = globalThis.Response;

/** A create against `baseUrl` with the mock's credentials: its status, or the error it rejected with. */
async function create(mock: ReturnType<typeof createMockDeliveryService>, baseUrl: string) {
  return fetch(`${baseUrl}/tasks`, {
    method: 'POST',
    body: '{}',
    headers: {
      authorization: `apikey ${mock.apiKey}`,
      'x-seller-id': mock.sellerId,
      'content-type': 'application/json',
    },
    signal: AbortSignal.timeout(5_000),
  }).then(
    (response) => response.status,
    (error: unknown) => error,
  );
}

describe('the mock beside Hono on Node', () => {
  it('mock.listen() drops the connection beside an adapter made with overrideGlobalObjects: false', async () => {
    createAdaptorServer({ fetch: () => new Response('app'), overrideGlobalObjects: false });
    expect(globalThis.Response).toBe(nativeResponse);
    const mock = createMockDeliveryService({ baseUrl: 'https://delivery.test' });
    mock.listen();
    try {
      mock.inject({ operation: 'tasks.create', kind: 'network-error' });
      const dropped = await create(mock, mock.baseUrl);
      expect(dropped).toBeInstanceOf(TypeError);
      expect((dropped as Error).name).not.toBe('TimeoutError');
    } finally {
      mock.close();
    }
  });

  it('startMockHttpServer drops the connection under the globals Hono replaced', async () => {
    getRequestListener(() => new Response('app'));
    expect(globalThis.Response).not.toBe(nativeResponse);
    const mock = createMockDeliveryService({});
    const server = await startMockHttpServer(mock);
    try {
      mock.inject({ operation: 'tasks.create', kind: 'network-error' });
      const dropped = await create(mock, server.url);
      expect(dropped).toBeInstanceOf(TypeError);
      expect((dropped as Error).name).not.toBe('TimeoutError');
      // The server still serves: the branches are answered.
      const branches = await fetch(`${server.url}/tasks/branches`, {
        headers: { authorization: `apikey ${mock.apiKey}`, 'x-seller-id': mock.sellerId },
      });
      expect(branches.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
