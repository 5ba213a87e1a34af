import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runtimeWithoutMswInterception } from '../../src/testing/msw-support.js';
import { createMockDeliveryService } from '../../src/testing.js';
import { ROOT } from '../support/root.js';

// The detection is stubbed per test; by default it calls through (this suite runs on Node ≥ 22.12).
vi.mock('../../src/testing/msw-support.js', { spy: true });

afterEach(() => {
  vi.mocked(runtimeWithoutMswInterception).mockRestore();
});

describe('mock.listen() where msw cannot intercept', () => {
  for (const runtime of ['Bun 1.4.5', 'Deno 2.9.6']) {
    it(`throws naming ${runtime} and pointing to startMockHttpServer`, () => {
      vi.mocked(runtimeWithoutMswInterception).mockReturnValue(runtime);
      const mock = createMockDeliveryService();
      expect(() => mock.listen()).toThrow(
        `mock.listen() cannot intercept requests on ${runtime}: msw's setupServer does not intercept there.`,
      );
      expect(() => mock.listen()).toThrow(/startMockHttpServer\(mock\).*baseUrl: server\.url/);
      // Nothing was started: close() is harmless and a later listen() where msw works succeeds.
      mock.close();
      vi.mocked(runtimeWithoutMswInterception).mockReturnValue(undefined);
      mock.listen();
      mock.close();
    });
  }

  it('intercepts fetch itself on Node.js before 22.12, with the same answers, and restores fetch on close()', async () => {
    vi.mocked(runtimeWithoutMswInterception).mockReturnValue('Node.js 20.20.2');
    const before = globalThis.fetch;
    const mock = createMockDeliveryService();
    mock.listen();
    try {
      expect(globalThis.fetch).not.toBe(before);
      expect(() => mock.listen()).toThrow(/already listening/);
      const headers = { authorization: `apikey ${mock.apiKey}`, 'x-seller-id': mock.sellerId };
      const response = await fetch(`${mock.baseUrl}/tasks/wallet-balance`, { headers });
      expect(await response.json()).toEqual({ walletAmount: 100 });
      expect((await fetch(`${mock.baseUrl}/tasks/wallet-balance`)).status).toBe(401);
      mock.inject({ kind: 'network-error' });
      await expect(fetch(`${mock.baseUrl}/tasks/wallet-balance`, { headers })).rejects.toThrow(TypeError);
      // By default a request to the mock's origin that no handler matches fails, never reaching a network;
      // one elsewhere goes through (the app under test): test/testing/unhandled-requests.test.ts.
      await expect(fetch(`${mock.baseUrl}/not-a-route`)).rejects.toThrow(/no handler of the mock/);
    } finally {
      mock.close();
    }
    expect(globalThis.fetch).toBe(before);
  });

  it.runIf(existsSync('/usr/bin/node'))(
    'serves the client, faults and webhooks from mock.listen() on the system Node.js (20 here)',
    async () => {
      const { stdout } = await promisify(execFile)(
        '/usr/bin/node',
        ['--import', 'tsx', 'test/support/listen-anywhere.ts'],
        { cwd: ROOT, timeout: 60_000 },
      );
      const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
      expect(result).toEqual({
        node: expect.any(String),
        created: 'N20-1',
        retrieved: 'requested',
        listed: 2,
        balance: expect.any(Number),
        afterDrop: 'N20-2',
        // N20-1, then N20-2 dropped before processing and sent again after the lookup found nothing.
        creates: 3,
        tasks: 2,
        timedOut: 'APIConnectionTimeoutError',
        webhooks: ['requested'],
        unhandled: 'TypeError',
        patchedWhileListening: true,
        restoredOnClose: true,
        connectionErrorAfterClose: true,
      });
    },
    90_000,
  );

  it('listens where the detection finds no gap (this Node.js)', async () => {
    expect(runtimeWithoutMswInterception()).toBeUndefined();
    const mock = createMockDeliveryService();
    mock.listen();
    try {
      const response = await fetch(`${mock.baseUrl}/tasks/wallet-balance`, {
        headers: { authorization: `apikey ${mock.apiKey}`, 'x-seller-id': mock.sellerId },
      });
      expect(await response.json()).toEqual({ walletAmount: 100 });
    } finally {
      mock.close();
    }
  });
});

describe('runtimeWithoutMswInterception', () => {
  it('names Bun and Deno with their versions', () => {
    expect(runtimeWithoutMswInterception({ Bun: { version: '1.4.5' } })).toBe('Bun 1.4.5');
    expect(runtimeWithoutMswInterception({ Deno: { version: { deno: '2.9.6' } } })).toBe('Deno 2.9.6');
    expect(runtimeWithoutMswInterception({ Bun: {} })).toBe('Bun');
    // Bun and Deno also define process.versions.node; they are detected first.
    const node = { versions: { node: '24.3.0' } };
    expect(runtimeWithoutMswInterception({ Bun: { version: '1.4.5' }, process: node })).toBe('Bun 1.4.5');
    expect(runtimeWithoutMswInterception({ Deno: { version: { deno: '2.9.6' } }, process: node })).toBe(
      'Deno 2.9.6',
    );
  });

  it('names Node.js below 22.12 and accepts 22.12 and later', () => {
    const onNode = (version: string) =>
      runtimeWithoutMswInterception({ process: { versions: { node: version } } });
    expect(onNode('20.20.2')).toBe('Node.js 20.20.2');
    expect(onNode('22.11.0')).toBe('Node.js 22.11.0');
    expect(onNode('22.12.0')).toBeUndefined();
    expect(onNode('22.23.3')).toBeUndefined();
    expect(onNode('23.0.0')).toBeUndefined();
    expect(onNode('24.21.0')).toBeUndefined();
  });

  it('leaves other runtimes to msw', () => {
    expect(runtimeWithoutMswInterception({})).toBeUndefined();
  });
});
