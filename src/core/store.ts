/** Shared state across processes (README "Running several instances"). @module */
import { awakeDeadline } from './awake-deadline.js';
import { ConfigurationError, StoreUnavailableError } from './errors.js';

/**
 * A key-value store with expiry: four operations, each atomic on its key; every write has a TTL in ms
 * (> 0). Reject when the store cannot answer: the SDK turns that into {@link StoreUnavailableError}.
 */
export interface DeliveryStore {
  /** Stores `value` under `key` for `ttlMs` ms unless the key exists. Resolves `true` when it stored it. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** The value under `key`, or `undefined` when absent or expired. */
  get(key: string): Promise<string | undefined>;
  /**
   * Replaces `key`'s value (TTL restarted) only when it equals `expected` (`undefined`: absent). `true` when
   * replaced.
   */
  compareAndSet(key: string, expected: string | undefined, value: string, ttlMs: number): Promise<boolean>;
  /**
   * Deletes `key`, only when its value equals `expected` if that is given. Resolves `true` when it deleted
   * it.
   */
  delete(key: string, expected?: string): Promise<boolean>;
  /**
   * Optional, one round trip: {@link setIfAbsent} of `key`, then, only when it stored, {@link get} of
   * `readKey` as it stands after that write. Resolves `[stored, value]` (`value` `undefined` unless stored).
   * The webhook handler takes a task's lease and reads its record with it (docs/several-instances.md
   * "Measured"); without it, two calls. `redisStore` has it (both keys in one hash slot on a cluster), and
   * `postgresStore` (a second statement when its first may have read `readKey` before a concurrent write).
   */
  setIfAbsentThenGet?(
    key: string,
    value: string,
    ttlMs: number,
    readKey: string,
  ): Promise<readonly [stored: boolean, value: string | undefined]>;
  /**
   * Optional, atomic: when `fence.key` holds `fence.value` (with `fence.orAbsent`, holding nothing will do)
   * and `key` holds `expected` (`undefined`: absent), sets `key` to `value` for `ttlMs` ms, deletes
   * `fence.key` and resolves `'set'`; otherwise changes nothing and resolves `'fenced'` (the fence failed)
   * or `'changed'` (`key` holds something else). The webhook handler records a task's status and releases
   * its lease with it, one call instead of three. `redisStore` and `postgresStore` have it.
   */
  compareAndSetReleasing?(
    key: string,
    expected: string | undefined,
    value: string,
    ttlMs: number,
    fence: StoreFence,
  ): Promise<'set' | 'fenced' | 'changed'>;
}

/**
 * The lease {@link DeliveryStore.compareAndSetReleasing} checks and deletes: `key` must hold `value` (or,
 * with `orAbsent`, nothing).
 */
export interface StoreFence {
  readonly key: string;
  readonly value: string;
  readonly orAbsent: boolean;
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
 * A {@link DeliveryStore} in this process's memory (the default): bounded by `maxKeys`, expired keys dropped.
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

/** How much longer than its timeout a store call may wait while the store answers others. */
const SLOW_STORE_FACTOR = 5;

/** Every call of a {@link DeliveryStore}, the optional ones last: {@link withStoreDeadline} guards each. */
const STORE_CALLS = [
  'setIfAbsent',
  'get',
  'compareAndSet',
  'delete',
  'setIfAbsentThenGet',
  'compareAndSetReleasing',
] as const satisfies readonly (keyof DeliveryStore)[];

type StoreCall = (typeof STORE_CALLS)[number];

/** A store call, whichever: its arguments passed through as they came. */
type StoreMethod = (...args: unknown[]) => Promise<unknown>;

/**
 * `store` with every call bounded by an awake deadline (docs/several-instances.md "Stalls while
 * receiving webhooks"): a failure, or no answer for `timeoutMs` ms of this process being awake (a stall of
 * the process does not count), rejects with {@link StoreUnavailableError} (never the key); a call waits on
 * while the store answered other calls in the last `timeoutMs`, up to 5 × `timeoutMs` in all. A
 * {@link ConfigurationError} passes as it is. The optional one-round-trip operations are kept.
 */
export function withStoreDeadline(store: DeliveryStore, timeoutMs: number): DeliveryStore {
  let answeredAt = Number.NEGATIVE_INFINITY;
  const options = { answeredAt: () => answeredAt, maxMs: SLOW_STORE_FACTOR * timeoutMs };
  const guard = <T>(operation: keyof DeliveryStore, call: () => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const deadline = awakeDeadline(
        timeoutMs,
        () => reject(new StoreUnavailableError({ operation, reason: `no answer within ${timeoutMs} ms` })),
        options,
      );
      let pending: Promise<T>;
      try {
        pending = call();
      } catch (error) {
        pending = Promise.reject(error);
      }
      pending.then(
        (value) => {
          answeredAt = performance.now();
          deadline.clear();
          resolve(value);
        },
        (error: unknown) => {
          deadline.clear();
          const known = error instanceof StoreUnavailableError || error instanceof ConfigurationError;
          reject(
            known
              ? error
              : new StoreUnavailableError({ operation, reason: 'the store failed', cause: error }),
          );
        },
      );
    });
  const guarded: Partial<Record<StoreCall, StoreMethod>> = {};
  for (const operation of STORE_CALLS) {
    if (store[operation] === undefined) continue;
    guarded[operation] = (...args) =>
      guard(operation, () => (store[operation] as StoreMethod).apply(store, args));
  }
  return guarded as DeliveryStore;
}

/** Version of the key layout; a change of layout changes it, so old keys are never misread. */
export const STORE_KEY_VERSION = 'v2';

/** Whose state a key holds: base URL and seller id, so staging and production never meet. */
export interface StoreScope {
  /** The service's base URL, as the client holds it (`https://…/`). */
  readonly baseUrl: string;
  readonly sellerId: string;
}

/**
 * `%`, `:` and the hash-tag braces percent-escaped (`%25`, `%3A`, `%7B`, `%7D`) in one pass, so a part can
 * never forge the next one nor a hash tag.
 */
const escapePart = (part: string): string =>
  part.replace(/[%:{}]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);

/** The base URL with one trailing slash, so `https://x/rest` and `https://x/rest/` are one service. */
const canonicalBaseUrl = (baseUrl: string): string => (baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);

/**
 * `v2:<base URL>:<seller id>:<kind>:<parts…>`, each part escaped; the last in a Redis Cluster hash tag so
 * one task's keys share a node. The scope's part is kept for the scope object last given: a scope is
 * read-only, and a different base URL or seller is a different object.
 */
export function storeKey(scope: StoreScope, kind: string, ...parts: readonly string[]): string {
  // The last scope's part kept: a client or handler keys all its calls with the one scope it holds.
  if (scope !== lastScope) {
    lastScope = scope;
    lastScopePart = `${escapePart(canonicalBaseUrl(scope.baseUrl))}:${escapePart(scope.sellerId)}`;
  }
  let key = `${STORE_KEY_VERSION}:${lastScopePart}:${kind}`;
  const last = parts.length - 1;
  for (let index = 0; index < last; index++) key += `:${escapePart(parts[index] as string)}`;
  return last < 0 ? key : `${key}:{${escapePart(parts[last] as string)}}`;
}

let lastScope: StoreScope | undefined;
let lastScopePart = '';
