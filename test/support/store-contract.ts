/**
 * The behaviour every `DeliveryStore` must have, as a suite any store runs: `memoryStore` here, the
 * Redis stores (both client libraries) against a real redis-server. Keys are unique per test run, so
 * a shared server needs no flushing.
 */
import { describe, expect, it } from 'vitest';
import type { DeliveryStore } from '../../src/index.js';

let run = 0;

/** Runs the store contract against stores made by `make` (called once per test). */
export function describeStoreContract(name: string, make: () => DeliveryStore | Promise<DeliveryStore>): void {
  describe(`${name} keeps the DeliveryStore contract`, () => {
    const key = (label: string) => `contract:${process.pid}:${Date.now()}:${++run}:${label}`;

    it('stores a value once with setIfAbsent and reads it back', async () => {
      const store = await make();
      const k = key('once');
      expect(await store.setIfAbsent(k, 'first', 10_000)).toBe(true);
      expect(await store.setIfAbsent(k, 'second', 10_000)).toBe(false);
      expect(await store.get(k)).toBe('first');
      expect(await store.get(key('absent'))).toBeUndefined();
    });

    it('lets exactly one of 50 concurrent setIfAbsent calls win', async () => {
      const store = await make();
      const k = key('race');
      const wins = await Promise.all(
        Array.from({ length: 50 }, (_, index) => store.setIfAbsent(k, `v${index}`, 10_000)),
      );
      expect(wins.filter(Boolean)).toHaveLength(1);
      expect(await store.get(k)).toBe(`v${wins.indexOf(true)}`);
    });

    it('expires a key after its TTL', async () => {
      const store = await make();
      const k = key('ttl');
      await store.setIfAbsent(k, 'short', 60);
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(await store.get(k)).toBeUndefined();
      expect(await store.setIfAbsent(k, 'again', 10_000)).toBe(true);
    });

    it('replaces with compareAndSet only when the value is the expected one, absent included', async () => {
      const store = await make();
      const k = key('cas');
      expect(await store.compareAndSet(k, 'wrong', 'x', 10_000)).toBe(false);
      expect(await store.get(k)).toBeUndefined();
      expect(await store.compareAndSet(k, undefined, 'a', 10_000)).toBe(true);
      expect(await store.compareAndSet(k, undefined, 'b', 10_000)).toBe(false);
      expect(await store.compareAndSet(k, 'a', 'b', 10_000)).toBe(true);
      expect(await store.get(k)).toBe('b');
    });

    it('compares and replaces the same way with { durable: false }', async () => {
      const store = await make();
      const k = key('cas-lazy');
      const lazy = { durable: false };
      expect(await store.compareAndSet(k, 'wrong', 'x', 10_000, lazy)).toBe(false);
      expect(await store.compareAndSet(k, undefined, 'a', 10_000, lazy)).toBe(true);
      expect(await store.compareAndSet(k, 'b', 'c', 10_000, lazy)).toBe(false);
      expect(await store.compareAndSet(k, 'a', 'b', 10_000, lazy)).toBe(true);
      expect(await store.get(k)).toBe('b');
    });

    it('restarts the TTL on compareAndSet', async () => {
      const store = await make();
      const k = key('cas-ttl');
      await store.setIfAbsent(k, 'a', 100);
      await store.compareAndSet(k, 'a', 'b', 10_000);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await store.get(k)).toBe('b');
    });

    it('deletes unconditionally, or only when the value matches', async () => {
      const store = await make();
      const k = key('delete');
      await store.setIfAbsent(k, 'mine', 10_000);
      expect(await store.delete(k, 'theirs')).toBe(false);
      expect(await store.get(k)).toBe('mine');
      expect(await store.delete(k, 'mine')).toBe(true);
      expect(await store.get(k)).toBeUndefined();
      expect(await store.delete(k)).toBe(false);
      await store.setIfAbsent(k, 'again', 10_000);
      expect(await store.delete(k)).toBe(true);
    });

    it('keeps keys and values with any characters apart', async () => {
      const store = await make();
      const a = key('a:b');
      const b = key('a');
      await store.setIfAbsent(a, 'ä "quoted" \n line', 10_000);
      expect(await store.get(a)).toBe('ä "quoted" \n line');
      expect(await store.get(b)).toBeUndefined();
    });
  });
}
