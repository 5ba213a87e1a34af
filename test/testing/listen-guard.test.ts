import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMockDeliveryService } from '../../src/testing/index.js';
import { runtimeWithoutMswInterception } from '../../src/testing/msw-support.js';

// The detection is stubbed per test; by default it calls through (this suite runs on Node ≥ 22.12).
vi.mock('../../src/testing/msw-support.js', { spy: true });

afterEach(() => {
  vi.mocked(runtimeWithoutMswInterception).mockRestore();
});

describe('mock.listen() where msw cannot intercept', () => {
  for (const runtime of ['Bun 1.4.5', 'Deno 2.9.6', 'Node.js 22.11.0']) {
    it(`throws naming ${runtime} and pointing to startMockHttpServer`, () => {
      vi.mocked(runtimeWithoutMswInterception).mockReturnValue(runtime);
      const mock = createMockDeliveryService();
      expect(() => mock.listen()).toThrow(
        `mock.listen() cannot intercept requests on ${runtime}: msw's setupServer intercepts fetch on Node.js ≥ 22.12 only.`,
      );
      expect(() => mock.listen()).toThrow(/startMockHttpServer\(mock\).*baseUrl: server\.url/);
      // Nothing was started: close() is harmless and a later listen() where msw works succeeds.
      mock.close();
      vi.mocked(runtimeWithoutMswInterception).mockReturnValue(undefined);
      mock.listen();
      mock.close();
    });
  }

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
    expect(runtimeWithoutMswInterception({ Deno: { version: { deno: '2.9.6' } }, process: node })).toBe('Deno 2.9.6');
  });

  it('names Node.js below 22.12 and accepts 22.12 and later', () => {
    const onNode = (version: string) => runtimeWithoutMswInterception({ process: { versions: { node: version } } });
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
