/**
 * Where the webhook handler keeps what must hold across instances (docs/webhooks.md, "Receiving on several
 * instances"): the `store` option, every call bounded by `storeTimeoutMs`, with
 * this process's memory standing in while the store does not answer. An outage is logged once, as a
 * warning when it starts and an info line when the store answers again; neither names a key (keys hold
 * the seller id). Without a store the memory is all there is.
 * @module
 */
import { isStoreUnavailableError } from '../core/errors.js';
import { type DeliveryStore, memoryStore, type StoreScope, storeKey, withStoreDeadline } from '../core/store.js';
import type { LevelLogger } from '../internal/logger.js';

/** Options of {@link SharedState}. */
export interface SharedStateOptions {
  /** The shared store, or `undefined` for this process's memory only. */
  readonly store: DeliveryStore | undefined;
  /** Deadline of one store call, ms. */
  readonly storeTimeoutMs: number;
  /** The base URL and seller id the keys are scoped to (`'default'` for each without a client). */
  readonly scope: StoreScope;
  /** Keys held in this process's memory at most. */
  readonly maxLocalKeys: number;
  readonly logger: LevelLogger;
}

/** A random token naming one holder of a lease. */
export function leaseToken(): string {
  return globalThis.crypto.randomUUID();
}

/** Lets the process exit while the timer is pending (Node, Bun, Deno); a no-op where timers are numbers. */
export function unrefTimer(timer: unknown): void {
  (timer as { unref?: () => void } | undefined)?.unref?.();
}

/**
 * The shared store while it answers, else this process's memory. A call that fails or outlasts
 * `storeTimeoutMs` starts an outage: one warning, then every call goes to the memory without waiting on
 * the store, while the store is probed every 5 × `storeTimeoutMs` in the background; the first answer
 * ends the outage (one info line). With {@link holdDuringOutages} (a handler with an inbox) nothing runs
 * on the memory: every call goes to the store, a failure is thrown, and the first call that succeeds
 * ends the outage.
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
    this.#shared = options.store === undefined ? undefined : withStoreDeadline(options.store, options.storeTimeoutMs);
    this.#local = memoryStore({ maxKeys: options.maxLocalKeys });
    this.#scope = options.scope;
    this.#logger = options.logger;
    this.#probeIntervalMs = 5 * options.storeTimeoutMs;
  }

  /** True when a shared store was given (whether or not it answers now). */
  get hasStore(): boolean {
    return this.#shared !== undefined;
  }

  /**
   * From now on, never stand in with the memory: {@link use} throws the store's failure (the caller
   * waits and tries again), and the outage ends at the first call that succeeds. For a handler with an
   * inbox, whose events can wait there. Without a store, a no-op.
   */
  holdDuringOutages(): void {
    this.#holding = this.#shared !== undefined;
  }

  /** True after {@link holdDuringOutages}: store failures are thrown, never met with the memory. */
  get holding(): boolean {
    return this.#holding;
  }

  /** Takes note of a store call that succeeded outside {@link use}: ends an outage when holding. */
  answered(): void {
    if (!this.#holding || !this.#down) return;
    this.#down = false;
    this.#logger.info('Shared store answers again; webhooks waiting in the inbox are processed');
  }

  /** This process's memory: the store without the `store` option, the stand-in during an outage. */
  get local(): DeliveryStore {
    return this.#local;
  }

  /** The key `v2:<base URL>:<seller id>:webhook:<parts…>`. */
  key(...parts: readonly string[]): string {
    return storeKey(this.#scope, 'webhook', ...parts);
  }

  /**
   * Runs `operation` on the shared store while it answers, else on this process's memory. When the shared
   * store fails ({@link StoreUnavailableError}), the outage starts and `operation` runs again, from the
   * start, on the memory: it must be safe to restart. Other errors pass through.
   */
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

  /**
   * Runs `operation` on the shared store only: `undefined` during an outage (or when this call starts
   * one). Without a store, on the memory. For what must not run on one instance's memory while others
   * cannot see it (the sync lease).
   */
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

  /**
   * Takes note of a failure of the shared store met outside {@link use}: true (and the outage starts, if
   * it had not) for a {@link StoreUnavailableError}, false for any other error.
   */
  failed(error: unknown): boolean {
    if (!isStoreUnavailableError(error)) return false;
    if (!this.#down) {
      this.#down = true;
      // The message names the operation and the reason, never the key.
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
