/**
 * What the webhook handler keeps across instances (docs/webhooks.md "Receiving on several instances"):
 * the `store`, each call bounded by `storeTimeoutMs`, with this process's memory standing in during an
 * outage (one warning, one info line when it ends; never a key).
 * @module
 */
import { StoreUnavailableError } from '../core/errors.js';
import {
  type DeliveryStore,
  memoryStore,
  type StoreScope,
  storeKey,
  withStoreDeadline,
} from '../core/store.js';
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
    this.#shared =
      options.store === undefined ? undefined : withStoreDeadline(options.store, options.storeTimeoutMs);
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
    if (!(error instanceof StoreUnavailableError)) return false;
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
