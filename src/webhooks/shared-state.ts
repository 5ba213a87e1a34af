/**
 * What the webhook handler keeps across instances (docs/webhooks.md "Receiving on several instances"):
 * the `store`, each call bounded by `storeTimeoutMs`, with this process's memory standing in during an
 * outage (one warning, one info line when it ends; never a key).
 * @module
 */
import { ConfigurationError, isStoreUnavailableError, StoreUnavailableError } from '../core/errors.js';
import { type DeliveryStore, memoryStore, type StoreScope, storeKey } from '../core/store.js';
import { awakeDeadline } from '../internal/awake-deadline.js';
import type { LevelLogger } from '../internal/logger.js';

/** Options of {@link SharedState}. */
export interface SharedStateOptions {
  readonly store: DeliveryStore | undefined;
  readonly storeTimeoutMs: number;
  /** `'default'` for each without a client. */
  readonly scope: StoreScope;
  readonly maxLocalKeys: number;
  readonly logger: LevelLogger;
}

export function leaseToken(): string {
  return globalThis.crypto.randomUUID();
}

/** Lets the process exit while the timer is pending; a no-op where timers are numbers. */
export function unrefTimer(timer: unknown): void {
  (timer as { unref?: () => void } | undefined)?.unref?.();
}

/** How much longer than `storeTimeoutMs` a call may wait while the store answers others: the probe interval's. */
const SLOW_STORE_FACTOR = 5;

/**
 * `store` with each call bounded by an {@link awakeDeadline}: unavailable (a {@link StoreUnavailableError};
 * a {@link ConfigurationError} passes as it is) once it answered nothing for `timeoutMs` of this process
 * being awake, or after 5 × `timeoutMs` in all; its optional one-round-trip operations kept.
 */
function bounded(store: DeliveryStore, timeoutMs: number): DeliveryStore {
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
          reject(known ? error : new StoreUnavailableError({ operation, reason: 'the store failed', cause: error }));
        },
      );
    });
  const guarded: DeliveryStore = {
    setIfAbsent: (key, value, ttlMs) => guard('setIfAbsent', () => store.setIfAbsent(key, value, ttlMs)),
    get: (key) => guard('get', () => store.get(key)),
    compareAndSet: (key, expected, value, ttlMs, options) =>
      guard('compareAndSet', () => store.compareAndSet(key, expected, value, ttlMs, options)),
    delete: (key, expected) => guard('delete', () => store.delete(key, expected)),
  };
  const { setIfAbsentThenGet, compareAndSetReleasing } = store;
  if (setIfAbsentThenGet !== undefined) {
    guarded.setIfAbsentThenGet = (...args) => guard('setIfAbsentThenGet', () => setIfAbsentThenGet.apply(store, args));
  }
  if (compareAndSetReleasing !== undefined) {
    guarded.compareAndSetReleasing = (...args) =>
      guard('compareAndSetReleasing', () => compareAndSetReleasing.apply(store, args));
  }
  return guarded;
}

/**
 * The store while it answers, else this process's memory; during an outage the store is probed every
 * 5 × `storeTimeoutMs`. With {@link holdDuringOutages}, failures are thrown instead.
 */
export class SharedState {
  readonly #shared: DeliveryStore | undefined;
  readonly #local: DeliveryStore;
  readonly #scope: StoreScope;
  readonly #logger: LevelLogger;
  readonly #probeIntervalMs: number;
  #down = false;
  #holding = false;

  constructor(options: SharedStateOptions) {
    this.#shared = options.store === undefined ? undefined : bounded(options.store, options.storeTimeoutMs);
    this.#local = memoryStore({ maxKeys: options.maxLocalKeys });
    this.#scope = options.scope;
    this.#logger = options.logger;
    this.#probeIntervalMs = 5 * options.storeTimeoutMs;
  }

  get hasStore(): boolean {
    return this.#shared !== undefined;
  }

  /** Never stand in with the memory from now on (an inbox's events can wait). */
  holdDuringOutages(): void {
    this.#holding = this.#shared !== undefined;
  }

  get holding(): boolean {
    return this.#holding;
  }

  /** A store call that succeeded outside {@link use}: ends an outage when holding. */
  answered(): void {
    if (!this.#holding || !this.#down) return;
    this.#down = false;
    this.#logger.info('Shared store answers again; webhooks waiting in the inbox are processed');
  }

  get local(): DeliveryStore {
    return this.#local;
  }

  /** `v2:<base URL>:<seller id>:webhook:<parts…>`. */
  key(...parts: readonly string[]): string {
    return storeKey(this.#scope, 'webhook', ...parts);
  }

  /** Runs `operation` on the store, else on the memory; it must be safe to restart on the memory. */
  async use<T>(operation: (store: DeliveryStore) => Promise<T>): Promise<T> {
    const shared = this.#shared;
    if (shared !== undefined && this.#holding) {
      try {
        const result = await operation(shared);
        this.answered();
        return result;
      } catch (error) {
        this.failed(error);
        throw error;
      }
    }
    if (shared !== undefined && !this.#down) {
      try {
        return await operation(shared);
      } catch (error) {
        if (!this.failed(error)) throw error;
      }
    }
    return operation(this.#local);
  }

  /** Runs `operation` on the store only: `undefined` during an outage (the sync lease). */
  async useShared<T>(operation: (store: DeliveryStore) => Promise<T>): Promise<T | undefined> {
    const shared = this.#shared;
    if (shared === undefined) return operation(this.#local);
    if (this.#down && !this.#holding) return undefined;
    try {
      const result = await operation(shared);
      this.answered();
      return result;
    } catch (error) {
      if (!this.failed(error)) throw error;
      return undefined;
    }
  }

  /** A store failure met outside {@link use}: true for a {@link StoreUnavailableError}. */
  failed(error: unknown): boolean {
    if (!isStoreUnavailableError(error)) return false;
    if (!this.#down) {
      this.#down = true;
      if (this.#holding) {
        this.#logger.warn(`${error.message}; webhooks wait in the inbox until the store answers again`);
        return true;
      }
      this.#logger.warn(
        `${error.message}; webhooks are deduplicated and ordered in this process only until it answers again`,
      );
      this.#probe();
    }
    return true;
  }

  #probe(): void {
    const shared = this.#shared;
    if (shared === undefined) return;
    const timer = setTimeout(() => {
      shared.get(this.key('probe')).then(
        () => {
          this.#down = false;
          this.#logger.info('Shared store answers again; webhooks are deduplicated and ordered in it again');
        },
        () => this.#probe(),
      );
    }, this.#probeIntervalMs);
    unrefTimer(timer);
  }
}
