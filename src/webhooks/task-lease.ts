/**
 * A task's processing lease while this process holds it (docs/webhooks.md "Receiving on several
 * instances"): how long it is surely ours by this process's clock (from when the call that took or
 * renewed it was sent), renewed before `onEvent` when a third of its TTL went by since (a stall between
 * taking it and `onEvent`), and every third of its TTL while `onEvent` runs and its status is recorded.
 * @module
 */
import type { DeliveryStore } from '../core/store.js';
import { unrefTimer } from './shared-state.js';

/** Why a lease may have been another instance's while `onEvent` ran: found gone, or expired by this clock. */
export type LeaseLapse = 'lost' | 'expired';

export class TaskLease {
  readonly store: DeliveryStore;
  readonly key: string;
  readonly token: string;
  /** The task's record, read once the lease was taken. */
  readonly value: string | undefined;
  readonly #ttlMs: number;
  /** `performance.now()` until which no other instance can have taken the lease. */
  #validUntil: number;
  #renewal: ReturnType<typeof setInterval> | undefined;
  #renewing: Promise<boolean> | undefined;
  #lost = false;
  /**
   * `performance.now()` when the status's record was sent: what happens to the lease after is the write's.
   */
  #recordedAt: number | undefined;

  /** `sentAt`: `performance.now()` when the call that took the lease was sent. */
  constructor(
    store: DeliveryStore,
    key: string,
    token: string,
    value: string | undefined,
    sentAt: number,
    ttlMs: number,
  ) {
    this.store = store;
    this.key = key;
    this.token = token;
    this.value = value;
    this.#ttlMs = ttlMs;
    this.#validUntil = sentAt + ttlMs;
  }

  /**
   * Renews the lease (compare-and-set of its token, TTL restarted): `true` while it is ours. A store
   * failure keeps what is known (`false` only once the lease can have expired).
   */
  renew(): Promise<boolean> {
    if (this.#lost) return Promise.resolve(false);
    this.#renewing ??= (async () => {
      const sentAt = performance.now();
      try {
        if (await this.store.compareAndSet(this.key, this.token, this.token, this.#ttlMs)) {
          this.#validUntil = Math.max(this.#validUntil, sentAt + this.#ttlMs);
          return true;
        }
        // Once the status is being recorded, that write (fenced itself) may have released the lease.
        if (this.#recordedAt === undefined) this.#lost = true;
        return false;
      } catch {
        return performance.now() < this.#validUntil;
      } finally {
        this.#renewing = undefined;
      }
    })();
    return this.#renewing;
  }

  /**
   * Right before `onEvent`: `true` when the lease is ours for two thirds of its TTL at least, renewing
   * it if a third went by since it was taken (a stall); `false` when it was lost (run nothing).
   */
  async confirm(): Promise<boolean> {
    if (this.#validUntil - performance.now() > (2 * this.#ttlMs) / 3) return true;
    return this.renew();
  }

  /** Renews every third of the TTL until {@link stop}. */
  keepRenewing(): void {
    this.#renewal = setInterval(() => void this.renew(), Math.max(1, Math.floor(this.#ttlMs / 3)));
    unrefTimer(this.#renewal);
  }

  stop(): void {
    clearInterval(this.#renewal);
  }

  /**
   * The status is being recorded: from now on its fenced write, not a renewal, tells whether the lease held.
   */
  recording(): void {
    this.#recordedAt = performance.now();
  }

  /** The status's record was fenced out: another instance holds the lease. */
  markLost(): void {
    this.#lost = true;
  }

  /**
   * Whether another instance can have held the lease from its take until the record was sent (or now):
   * `'lost'` when a renewal or the record found it gone or another's, `'expired'` when this process's
   * clock passed its expiry without a renewal answered (a stall longer than its TTL), else `undefined`.
   */
  lapse(): LeaseLapse | undefined {
    if (this.#lost) return 'lost';
    return (this.#recordedAt ?? performance.now()) >= this.#validUntil ? 'expired' : undefined;
  }
}
