/**
 * Shared state for guarantees that hold across processes (README "Running several instances"): the {@link DeliveryStore} interface, the in-process {@link memoryStore} (the
 * default), and the deadline every store call runs under. `redisStore` lives in
 * `delivery-task-sdk/redis`.
 *
 * The interface is four atomic operations on string keys and values, each with a TTL where it writes,
 * small enough to implement over Postgres, DynamoDB or etcd.
 * @module
 */
import { ConfigurationError, StoreUnavailableError } from './errors.js';

/**
 * A shared key-value store with expiry. Every write carries a TTL in ms (> 0): keys never outlive it.
 * Each operation must be atomic with respect to the others on the same key. Implementations reject
 * (any error) when the store cannot answer; the SDK turns that, and a call slower than its store
 * timeout, into {@link StoreUnavailableError}.
 */
export interface DeliveryStore {
  /** Stores `value` under `key` for `ttlMs` ms unless the key exists. Resolves `true` when it stored it. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** The value under `key`, or `undefined` when absent or expired. */
  get(key: string): Promise<string | undefined>;
  /**
   * Replaces the value under `key` with `value` (TTL `ttlMs` ms, restarted) only when the current value
   * equals `expected` (`undefined`: the key is absent). Resolves `true` when it replaced it. `options`
   * may be ignored (see {@link StoreWriteOptions}).
   */
  compareAndSet(
    key: string,
    expected: string | undefined,
    value: string,
    ttlMs: number,
    options?: StoreWriteOptions,
  ): Promise<boolean>;
  /** Deletes `key`, only when its value equals `expected` if that is given. Resolves `true` when it deleted it. */
  delete(key: string, expected?: string): Promise<boolean>;
}

/** How a {@link DeliveryStore} may carry out one write. */
export interface StoreWriteOptions {
  /**
   * `false`: the write may be lost if the store itself crashes within moments of it, so the store need
   * not wait for its disk before answering (`postgresStore`: an asynchronous commit; other stores ignore
   * it). The SDK asks it only where losing the write is safe: an order's outcome (or its release), whose
   * loss leaves the order's `sending` record, so the next create of the order looks it up before
   * sending. Default `true`.
   */
  durable?: boolean;
}

interface MemoryEntry {
  value: string;
  /** Expiry, ms since the epoch. */
  expiresAt: number;
}

/** Options of {@link memoryStore}. */
export interface MemoryStoreOptions {
  /** Keys held at most; beyond, the entries closest to expiry are dropped first. Default 100 000. */
  maxKeys?: number;
  /** Clock in ms since the epoch, for tests. Default `Date.now`. */
  now?: () => number;
}

/**
 * A {@link DeliveryStore} in this process's memory: the default, giving the guarantees within one
 * process only. Bounded by `maxKeys` (default 100 000); expired keys are dropped as they are met and
 * when the bound is reached.
 */
export function memoryStore(options: MemoryStoreOptions = {}): DeliveryStore {
  const maxKeys = options.maxKeys ?? 100_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, MemoryEntry>();
  const read = (key: string): MemoryEntry | undefined => {
    const entry = entries.get(key);
    if (entry !== undefined && entry.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };
  const write = (key: string, value: string, ttlMs: number): void => {
    entries.delete(key);
    entries.set(key, { value, expiresAt: now() + ttlMs });
    if (entries.size > maxKeys) {
      const time = now();
      for (const [oldKey, entry] of entries) if (entry.expiresAt <= time) entries.delete(oldKey);
      // Still over: drop the oldest writes (insertion order) until within the bound.
      for (const oldKey of entries.keys()) {
        if (entries.size <= maxKeys) break;
        entries.delete(oldKey);
      }
    }
  };
  return {
    setIfAbsent: async (key, value, ttlMs) => {
      if (read(key) !== undefined) return false;
      write(key, value, ttlMs);
      return true;
    },
    get: async (key) => read(key)?.value,
    compareAndSet: async (key, expected, value, ttlMs) => {
      if (read(key)?.value !== expected) return false;
      write(key, value, ttlMs);
      return true;
    },
    delete: async (key, expected) => {
      const entry = read(key);
      if (entry === undefined || (expected !== undefined && entry.value !== expected)) return false;
      entries.delete(key);
      return true;
    },
  };
}

/** Default deadline of one store call, ms. */
export const DEFAULT_STORE_TIMEOUT_MS = 1000;

/**
 * `store` with every call bounded by `timeoutMs`: a call that rejects or takes longer rejects with
 * {@link StoreUnavailableError} naming the operation (never the key, which holds the seller id); a
 * {@link ConfigurationError} (a Redis store refusing an `allkeys-*` eviction policy) passes as it is.
 */
export function withStoreDeadline(store: DeliveryStore, timeoutMs: number): DeliveryStore {
  const guard = <T>(operation: keyof DeliveryStore, call: () => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new StoreUnavailableError({ operation, reason: `no answer within ${timeoutMs} ms` })),
        timeoutMs,
      );
      let pending: Promise<T>;
      try {
        pending = call();
      } catch (error) {
        pending = Promise.reject(error);
      }
      pending.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          // A store that refuses its configuration (a Redis that may evict keys) says so as it is.
          reject(
            error instanceof StoreUnavailableError || error instanceof ConfigurationError
              ? error
              : new StoreUnavailableError({ operation, reason: 'the store failed', cause: error }),
          );
        },
      );
    });
  return {
    setIfAbsent: (key, value, ttlMs) => guard('setIfAbsent', () => store.setIfAbsent(key, value, ttlMs)),
    get: (key) => guard('get', () => store.get(key)),
    compareAndSet: (key, expected, value, ttlMs, options) =>
      guard('compareAndSet', () => store.compareAndSet(key, expected, value, ttlMs, options)),
    delete: (key, expected) => guard('delete', () => store.delete(key, expected)),
  };
}

/** Version of the key layout; a change of layout changes it, so old keys are never misread. */
export const STORE_KEY_VERSION = 'v2';

/**
 * Whose state a key holds: the service's base URL and the seller id. Two clients of different base
 * URLs (staging and production) or sellers sharing one store never meet.
 */
export interface StoreScope {
  /** The service's base URL, as the client holds it (`https://…/`). */
  readonly baseUrl: string;
  readonly sellerId: string;
}

/** `%`, `:` and the hash-tag braces escaped, so a part can never forge the next one nor a hash tag. */
const escapePart = (part: string): string =>
  part.replaceAll('%', '%25').replaceAll(':', '%3A').replaceAll('{', '%7B').replaceAll('}', '%7D');

/** The base URL with one trailing slash, so `https://x/rest` and `https://x/rest/` are one service. */
const canonicalBaseUrl = (baseUrl: string): string => (baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);

/**
 * A store key: `v2:<base URL>:<seller id>:<kind>:<parts…>`, each part escaped so no part can forge
 * another, the last part in a Redis Cluster hash tag (`{…}`) so the keys of one task (record, lease) live
 * on one node (an order has one key: its record, which holds its lease). A `redisStore` adds its own
 * prefix before it.
 */
export function storeKey(scope: StoreScope, kind: string, ...parts: readonly string[]): string {
  const escaped = parts.map(escapePart);
  const last = escaped.length - 1;
  if (last >= 0) escaped[last] = `{${escaped[last]}}`;
  return [
    STORE_KEY_VERSION,
    escapePart(canonicalBaseUrl(scope.baseUrl)),
    escapePart(scope.sellerId),
    kind,
    ...escaped,
  ].join(':');
}
