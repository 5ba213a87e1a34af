/** The `User-Agent` the service receives: seen by a real HTTP server on 127.0.0.1. */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../src/core/version.js';
import { DeliveryClient } from '../../src/index.js';
import { detectRuntime } from '../../src/internal/env.js';
import { userAgent } from '../../src/internal/http-request.js';

const received: IncomingHttpHeaders[] = [];
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    received.push(request.headers);
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ walletAmount: 12.5 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rest`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const client = () =>
  new DeliveryClient({ apiKey: 'key-ua-secret', sellerId: 'seller-ua', baseUrl, logLevel: 'off' });

describe('User-Agent', () => {
  it('sends delivery-task-sdk/<version> (node/<node version>) on every request', async () => {
    received.length = 0;
    const sdk = client();
    await sdk.wallet.retrieveBalance();
    await sdk.wallet.retrieveBalance({ headers: { 'x-trace': 'a' } });
    expect(received).toHaveLength(2);
    const expected = `delivery-task-sdk/${VERSION} (node/${process.versions.node})`;
    for (const headers of received) expect(headers['user-agent']).toBe(expected);
    expect(received[1]?.['x-trace']).toBe('a');
  });

  it("lets a call's user-agent header replace the SDK's, and keeps the auth headers", async () => {
    received.length = 0;
    await client().wallet.retrieveBalance({ headers: { 'User-Agent': 'my-shop/2.0' } });
    expect(received[0]?.['user-agent']).toBe('my-shop/2.0');
    expect(received[0]?.authorization).toBe('apikey key-ua-secret');
  });

  it('names bun, deno, edge-runtime and workerd from their globals, else unknown', () => {
    const scope = globalThis as Record<string, unknown>;
    const swap = (name: string, value: unknown, check: () => void) => {
      const had = Object.getOwnPropertyDescriptor(scope, name);
      Object.defineProperty(scope, name, { value, configurable: true, writable: true });
      try {
        check();
      } finally {
        if (had) Object.defineProperty(scope, name, had);
        else delete scope[name];
      }
    };
    swap('Bun', { version: '1.2.3' }, () =>
      expect(detectRuntime()).toEqual({ name: 'bun', version: '1.2.3' }),
    );
    swap('Deno', { version: { deno: '2.1.0' } }, () =>
      expect(userAgent()).toBe(`delivery-task-sdk/${VERSION} (deno/2.1.0)`),
    );
    swap('EdgeRuntime', 'edge-runtime', () => expect(detectRuntime().name).toBe('edge-runtime'));
    swap('process', undefined, () => {
      expect(detectRuntime()).toEqual({ name: 'unknown', version: 'unknown' });
      swap('navigator', { userAgent: 'Cloudflare-Workers' }, () =>
        expect(userAgent()).toBe(`delivery-task-sdk/${VERSION} (workerd/unknown)`),
      );
    });
  });
});
