/**
 * The behaviour every `DeliveryStore` must have, as a suite any store runs: `memoryStore` here, the
 * Redis stores (both client libraries) against a real redis-server. Keys are unique per test run, so
 * a shared server needs no flushing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DeliveryStore } from '../../src/index.js';
import { expectTickAsAlone, singleKeyOperation } from './store-operations.js';

let run = 0;

/** The optional one-round-trip operations of a `DeliveryStore`. */
export type OptionalStoreOperation = 'setIfAbsentThenGet' | 'compareAndSetReleasing';

/** What a store promises beyond the contract. */
export interface StoreContractOptions {
  /**
   * Calls made without waiting run in call order, each as it runs alone (one connection: Redis, memory);
   * a pool's calls run in any order.
   */
  readonly inCallOrder?: boolean;
}

/** `store` with `prefix` put before every key of the four calls every store has. */
const prefixed = (store: DeliveryStore, prefix: string): DeliveryStore => ({
  setIfAbsent: (key, value, ttlMs) => store.setIfAbsent(prefix + key, value, ttlMs),
  get: (key) => store.get(prefix + key),
  compareAndSet: (key, expected, value, ttlMs) => store.compareAndSet(prefix + key, expected, value, ttlMs),
  delete: (key, expected) => store.delete(prefix + key, expected),
});

/**
 * Runs the store contract against stores made by `make` (called once per test), and the contract of each
 * optional operation in `optional`, which the store must have (and no other).
 */
export function describeStoreContract(
  name: string,
  make: () => DeliveryStore | Promise<DeliveryStore>,
  optional: readonly OptionalStoreOperation[] = [],
  options: StoreContractOptions = {},
): void {
  describe(`${name} keeps the DeliveryStore contract`, () => {
    const key = (label: string) => `contract:${process.pid}:${Date.now()}:${++run}:${label}`;
    /** A lease key and a record key in one Redis Cluster hash slot. */
    const pair = (label: string) => {
      const tag = `{${process.pid}-${Date.now()}-${++run}-${label}}`;
      return { lease: `contract:lease:${tag}`, record: `contract:record:${tag}` };
    };

    it(`has exactly the optional operations ${optional.join(', ') || '(none)'}`, async () => {
      const store = await make();
      for (const operation of ['setIfAbsentThenGet', 'compareAndSetReleasing'] as const) {
        expect(typeof store[operation]).toBe(optional.includes(operation) ? 'function' : 'undefined');
      }
    });

    if (optional.includes('setIfAbsentThenGet')) {
      it('setIfAbsentThenGet: stores unless present, and reads the other key only when it stored', async () => {
        const store = await make();
        const { lease, record } = pair('then-get');
        const setIfAbsentThenGet = store.setIfAbsentThenGet?.bind(store);
        expect(await setIfAbsentThenGet?.(lease, 'mine', 10_000, record)).toEqual([true, undefined]);
        expect(await store.get(lease)).toBe('mine');
        await store.setIfAbsent(record, 'seen: accepted', 10_000);
        expect(await setIfAbsentThenGet?.(lease, 'theirs', 10_000, record)).toEqual([false, undefined]);
        expect(await store.get(lease)).toBe('mine');
        await store.delete(lease, 'mine');
        expect(await setIfAbsentThenGet?.(lease, 'theirs', 10_000, record)).toEqual([true, 'seen: accepted']);
        const racing = await Promise.all(
          Array.from({ length: 20 }, (_, index) =>
            setIfAbsentThenGet?.(`${lease}:race`, `v${index}`, 10_000, record),
          ),
        );
        expect(racing.filter((result) => result?.[0] === true)).toHaveLength(1);
      });
    }

    if (optional.includes('compareAndSetReleasing')) {
      it('compareAndSetReleasing: sets and releases only past the fence and the expected value', async () => {
        const store = await make();
        const { lease, record } = pair('releasing');
        const write = store.compareAndSetReleasing?.bind(store);
        const fence = { key: lease, value: 'mine', orAbsent: false };
        // No lease: fenced unless absence will do.
        expect(await write?.(record, undefined, 'r1', 10_000, fence)).toBe('fenced');
        expect(await store.get(record)).toBeUndefined();
        await store.setIfAbsent(lease, 'theirs', 10_000);
        expect(await write?.(record, undefined, 'r1', 10_000, { ...fence, orAbsent: true })).toBe('fenced');
        await store.delete(lease);
        await store.setIfAbsent(lease, 'mine', 10_000);
        await store.setIfAbsent(record, 'r0', 10_000);
        // The record changed: nothing written, the lease kept.
        expect(await write?.(record, undefined, 'r1', 10_000, fence)).toBe('changed');
        expect(await write?.(record, 'other', 'r1', 10_000, fence)).toBe('changed');
        expect(await store.get(record)).toBe('r0');
        expect(await store.get(lease)).toBe('mine');
        expect(await write?.(record, 'r0', 'r1', 10_000, fence)).toBe('set');
        expect(await store.get(record)).toBe('r1');
        expect(await store.get(lease)).toBeUndefined();
        // Absent record, absent lease allowed.
        const other = pair('releasing-absent');
        expect(
          await write?.(other.record, undefined, 'first', 10_000, {
            ...fence,
            key: other.lease,
            orAbsent: true,
          }),
        ).toBe('set');
        expect(await store.get(other.record)).toBe('first');
      });

      it('compareAndSetReleasing: lets exactly one of 20 concurrent writes of the same record win', async () => {
        const store = await make();
        const { lease, record } = pair('releasing-race');
        await store.setIfAbsent(lease, 'mine', 10_000);
        await store.setIfAbsent(record, 'r0', 10_000);
        const outcomes = await Promise.all(
          Array.from({ length: 20 }, (_, index) =>
            store.compareAndSetReleasing?.(record, 'r0', `r${index + 1}`, 10_000, {
              key: lease,
              value: 'mine',
              orAbsent: false,
            }),
          ),
        );
        expect(outcomes.filter((outcome) => outcome === 'set')).toHaveLength(1);
        // The winner released the lease: the others found the fence or the record changed.
        expect(
          outcomes.every((outcome) => outcome === 'set' || outcome === 'fenced' || outcome === 'changed'),
        ).toBe(true);
        expect(await store.get(record)).toBe(`r${outcomes.indexOf('set') + 1}`);
        expect(await store.get(lease)).toBeUndefined();
      });

      it('compareAndSetReleasing: restarts the record TTL and treats an expired lease as absent', async () => {
        const store = await make();
        const { lease, record } = pair('releasing-ttl');
        await store.setIfAbsent(lease, 'gone', 60);
        await store.setIfAbsent(record, 'r0', 100);
        await new Promise((resolve) => setTimeout(resolve, 150));
        expect(await store.get(record)).toBeUndefined();
        expect(
          await store.compareAndSetReleasing?.(record, undefined, 'r1', 10_000, {
            key: lease,
            value: 'mine',
            orAbsent: false,
          }),
        ).toBe('fenced');
        expect(
          await store.compareAndSetReleasing?.(record, undefined, 'r1', 10_000, {
            key: lease,
            value: 'mine',
            orAbsent: true,
          }),
        ).toBe('set');
        expect(await store.get(record)).toBe('r1');
      });
    }

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

    if (options.inCallOrder === true) {
      it('runs the calls made without waiting in call order, each answered as it is alone', async () => {
        const store = await make();
        await fc.assert(
          fc.asyncProperty(
            fc.array(singleKeyOperation, { maxLength: 3 }),
            fc.array(singleKeyOperation, { minLength: 1, maxLength: 10 }),
            async (before, calls) => {
              const base = key('order');
              await expectTickAsAlone(
                prefixed(store, `${base}:tick:`),
                prefixed(store, `${base}:alone:`),
                before,
                calls,
              );
            },
          ),
          { numRuns: 40 },
        );
      });
    }

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
