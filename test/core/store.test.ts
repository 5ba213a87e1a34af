/** The shared-state primitives: `memoryStore`, the store deadline, and the key layout. */

import net from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { storeKey, withStoreDeadline } from '../../src/core/store.js';
import { type DeliveryStore, memoryStore, StoreUnavailableError } from '../../src/index.js';
import { describeStoreContract } from '../support/store-contract.js';

describeStoreContract('memoryStore', () => memoryStore(), [], { inCallOrder: true });

describe('memoryStore bounds', () => {
  it('holds at most maxKeys keys, dropping the oldest writes first', async () => {
    const store = memoryStore({ maxKeys: 3 });
    for (const name of ['a', 'b', 'c', 'd']) await store.setIfAbsent(name, name, 60_000);
    expect(await store.get('a')).toBeUndefined();
    expect(await Promise.all(['b', 'c', 'd'].map((name) => store.get(name)))).toEqual(['b', 'c', 'd']);
  });
});

describe('the store deadline', () => {
  const hanging: DeliveryStore = {
    setIfAbsent: () => new Promise(() => {}),
    get: () => new Promise(() => {}),
    compareAndSet: () => new Promise(() => {}),
    delete: () => new Promise(() => {}),
  };

  it('turns a call slower than the timeout into StoreUnavailableError naming the operation', async () => {
    const error = await withStoreDeadline(hanging, 30)
      .get('v1:seller-secret:order:ORD-1')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error instanceof StoreUnavailableError && error.operation).toBe('get');
    expect((error as Error).message).not.toContain('seller-secret');
  });

  it('turns a rejection or a throw into StoreUnavailableError with the cause', async () => {
    const failing: DeliveryStore = {
      ...hanging,
      setIfAbsent: () => Promise.reject(new Error('ECONNREFUSED')),
      delete: () => {
        throw new TypeError('not connected');
      },
    };
    const guarded = withStoreDeadline(failing, 1000);
    const rejected = await guarded.setIfAbsent('k', 'v', 10).catch((caught: unknown) => caught);
    expect(rejected).toBeInstanceOf(StoreUnavailableError);
    expect((rejected as Error).cause).toEqual(new Error('ECONNREFUSED'));
    await expect(guarded.delete('k')).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});

describe('the store deadline counts time awake', () => {
  /** Blocks the event loop for `ms`, as a stall of the process. */
  const stall = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until) {}
  };

  it('takes an answer that came in during a stall of this process past the timeout', async () => {
    // A store on a socket on 127.0.0.1 whose answer is already in the socket: read only from now on.
    const server = net.createServer((socket) => socket.end('answered'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    const socket = net.connect(port, '127.0.0.1');
    socket.pause();
    await new Promise((resolve) => socket.once('connect', resolve));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const onSocket: DeliveryStore = {
      ...memoryStore(),
      get: () =>
        new Promise((resolve) => {
          socket.once('data', (chunk) => resolve(String(chunk)));
          socket.resume();
        }),
    };
    try {
      // From the check phase: after the stall, the loop runs its due timers before it reads the socket.
      const answer = await new Promise<unknown>((resolve) =>
        setImmediate(() => {
          const pending = withStoreDeadline(onSocket, 100).get('k');
          stall(250);
          pending.then(resolve, resolve);
        }),
      );
      expect(answer).toBe('answered');
    } finally {
      socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('waits on a call while the store answers others, up to 5 × the timeout', async () => {
    const inner = memoryStore();
    let release: (value: string) => void = () => {};
    const slow: DeliveryStore = { ...inner, get: () => new Promise((resolve) => (release = resolve)) };
    const guarded = withStoreDeadline(slow, 100);
    const pending = guarded.get('k');
    // The store answers another call every 50 ms: it is busy, not gone.
    const busy = setInterval(() => void guarded.setIfAbsent('other', 'v', 1000), 50);
    setTimeout(() => release('late'), 300);
    try {
      await expect(pending).resolves.toBe('late');
    } finally {
      clearInterval(busy);
    }
    const hangs: DeliveryStore = { ...inner, get: () => new Promise(() => {}) };
    const started = performance.now();
    const hung = withStoreDeadline(hangs, 100);
    const again = setInterval(() => void hung.setIfAbsent('other', 'v', 1000), 50);
    try {
      await expect(hung.get('k')).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      clearInterval(again);
    }
    expect(performance.now() - started).toBeGreaterThanOrEqual(490);
  });

  it("keeps a store's optional one-round-trip operations", () => {
    const withFence: DeliveryStore = {
      ...memoryStore(),
      setIfAbsentThenGet: async () => [true, undefined] as const,
    };
    expect(withStoreDeadline(withFence, 100).setIfAbsentThenGet).toBeTypeOf('function');
    expect(withStoreDeadline(memoryStore(), 100).setIfAbsentThenGet).toBeUndefined();
  });
});

describe('store keys', () => {
  const s = { baseUrl: 'https://x.test/', sellerId: 's' };
  it('carry the version, the base URL and the seller id, and no part can forge another', () => {
    expect(storeKey({ baseUrl: 'https://delivery.test/rest/', sellerId: 'seller-1' }, 'order', 'ORD-1')).toBe(
      'v2:https%3A//delivery.test/rest/:seller-1:order:{ORD-1}',
    );
    expect(storeKey(s, 'order', 'a:b')).not.toBe(storeKey(s, 'order', 'a', 'b'));
    expect(storeKey(s, 'order', 'a%3Ab')).not.toBe(storeKey(s, 'order', 'a:b'));
    expect(() => storeKey(s, 'order', '\ud800')).not.toThrow();
  });

  it('keep the v2 layout for any text: each part with %, :, { and } percent-escaped, nothing else changed', () => {
    const escaped = (part: string) =>
      part.replaceAll('%', '%25').replaceAll(':', '%3A').replaceAll('{', '%7B').replaceAll('}', '%7D');
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.string({ unit: 'binary' }),
        fc.array(fc.string({ unit: 'binary' }), { maxLength: 3 }),
        (baseUrl, sellerId, parts) => {
          const last = parts.length - 1;
          const expected = [
            'v2',
            escaped(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`),
            escaped(sellerId),
            'order',
            ...parts.map((part, index) => (index === last ? `{${escaped(part)}}` : escaped(part))),
          ].join(':');
          expect(storeKey({ baseUrl, sellerId }, 'order', ...parts)).toBe(expected);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('tell base URLs and sellers apart, and treat a base URL with or without its trailing slash as one', () => {
    expect(storeKey({ baseUrl: 'https://staging.test/', sellerId: 's' }, 'order', 'A')).not.toBe(
      storeKey({ baseUrl: 'https://production.test/', sellerId: 's' }, 'order', 'A'),
    );
    expect(storeKey({ baseUrl: 'https://x.test/', sellerId: 'a:b' }, 'order', 'c')).not.toBe(
      storeKey({ baseUrl: 'https://x.test/', sellerId: 'a' }, 'order', 'b:c'),
    );
    expect(storeKey({ baseUrl: 'https://x.test/rest', sellerId: 's' }, 'epoch')).toBe(
      storeKey({ baseUrl: 'https://x.test/rest/', sellerId: 's' }, 'epoch'),
    );
  });

  it("stay each scope's when scopes are asked in turn", () => {
    const staging = { baseUrl: 'https://staging.test/', sellerId: 's:1' };
    const production = { baseUrl: 'https://production.test/', sellerId: 's:1' };
    for (let turn = 0; turn < 3; turn++) {
      expect(storeKey(staging, 'epoch')).toBe('v2:https%3A//staging.test/:s%3A1:epoch');
      expect(storeKey(production, 'epoch')).toBe('v2:https%3A//production.test/:s%3A1:epoch');
      expect(storeKey({ baseUrl: '', sellerId: '' }, 'epoch')).toBe('v2:/::epoch');
    }
  });

  it('put the keys of one order in one Redis Cluster hash tag, and no part can forge a tag', () => {
    const tag = (key: string) => /\{([^}]*)\}/.exec(key)?.[1];
    expect(tag(storeKey(s, 'order', 'ORD-1'))).toBe(tag(storeKey(s, 'order-lease', 'ORD-1')));
    expect(tag(storeKey(s, 'order', 'ORD-1'))).toBe(tag(storeKey(s, 'order-fence', 'ORD-1')));
    expect(tag(storeKey(s, 'webhook', 'task', 'T1'))).toBe(tag(storeKey(s, 'webhook', 'lease', 'T1')));
    expect(storeKey({ baseUrl: 'https://x.test/{a}', sellerId: '{s}' }, 'order', '{x}')).toBe(
      'v2:https%3A//x.test/%7Ba%7D/:%7Bs%7D:order:{%7Bx%7D}',
    );
  });
});
