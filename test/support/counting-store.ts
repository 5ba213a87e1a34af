/**
 * Stores that count their calls, for the tests and benches that hold creates to a number of store calls
 * (docs/performance.md "Creates through a shared store").
 */
import type { DeliveryStore } from '../../src/core/store.js';

/** A count of calls. */
export interface CallCount {
  calls: number;
}

/** `call()`, counted in `counter`. */
export function tally<T>(counter: CallCount, call: () => T): T {
  counter.calls++;
  return call();
}

/** `store`, counting each of its calls in `counter`. */
export function countedStore(store: DeliveryStore, counter: CallCount): DeliveryStore {
  return {
    setIfAbsent: (key, value, ttlMs) => tally(counter, () => store.setIfAbsent(key, value, ttlMs)),
    get: (key) => tally(counter, () => store.get(key)),
    compareAndSet: (key, expected, value, ttlMs) =>
      tally(counter, () => store.compareAndSet(key, expected, value, ttlMs)),
    delete: (key, expected) => tally(counter, () => store.delete(key, expected)),
  };
}
