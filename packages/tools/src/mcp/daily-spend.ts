/**
 * The day's spending on fees per seller, in the policy's `DeliveryStore`: servers sharing it share one cap.
 */
import type { DeliveryStore } from 'delivery-task-sdk';
import { type StoreScope, storeKey } from 'delivery-task-sdk/internal';
import { Refusal } from './refusal.js';

/** How long a day's counter is kept, ms (2 days). */
export const SPEND_TTL_MS = 2 * 86_400_000;

const KUWAIT_OFFSET_MS = 3 * 3_600_000;

/** Compare-and-set attempts before a reservation gives up (each lost race means another one won). */
export const MAX_RESERVE_ATTEMPTS = 64;

/** The day in Kuwait of a time, `YYYY-MM-DD`. */
export function kuwaitDay(ms: number): string {
  return new Date(ms + KUWAIT_OFFSET_MS).toISOString().slice(0, 10);
}

export type Reservation =
  | { readonly ok: true; readonly day: string; readonly spentFils: number }
  | { readonly ok: false; readonly day: string; readonly spentFils: number };

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The day's spending of one seller in one store. */
export class DailySpend {
  readonly #store: DeliveryStore;
  readonly #scope: StoreScope;
  readonly #now: () => number;
  /** The cap, fils; `undefined`: none (spending is still counted). */
  readonly capFils: number | undefined;

  constructor(store: DeliveryStore, scope: StoreScope, capFils: number | undefined, now: () => number) {
    this.#store = store;
    this.#scope = scope;
    this.capFils = capFils;
    this.#now = now;
  }

  today(): string {
    return kuwaitDay(this.#now());
  }

  #key(day: string): string {
    return storeKey(this.#scope, 'mcp-spend', day);
  }

  /** The counter's text as fils. @throws {Refusal} (`store`) when the store holds something else. */
  #parse(value: string | undefined): number {
    if (value === undefined) return 0;
    const fils = /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(fils)) {
      throw new Refusal(
        'store',
        "the store holds something unreadable as today's spending; nothing was booked",
      );
    }
    return fils;
  }

  /**
   * Fils spent (reserved) on `day`, default today. @throws {StoreUnavailableError} when the store does not
   * answer.
   */
  async spent(day = this.today()): Promise<number> {
    return this.#parse(await this.#store.get(this.#key(day)));
  }

  /**
   * Adds `feeFils` to today's spending unless that passes the cap (`ok: false`, total found); atomic across
   * servers.
   * @throws {StoreUnavailableError} when the store does not answer; {@link Refusal} after {@link
   * MAX_RESERVE_ATTEMPTS}.
   */
  async reserve(feeFils: number): Promise<Reservation> {
    const day = this.today();
    const key = this.#key(day);
    for (let attempt = 0; attempt < MAX_RESERVE_ATTEMPTS; attempt++) {
      const current = await this.#store.get(key);
      const spentFils = this.#parse(current);
      if (this.capFils !== undefined && spentFils + feeFils > this.capFils)
        return { ok: false, day, spentFils };
      const total = spentFils + feeFils;
      if (await this.#store.compareAndSet(key, current, String(total), SPEND_TTL_MS)) {
        return { ok: true, day, spentFils: total };
      }
      await pause(Math.random() * 2 ** Math.min(attempt, 5));
    }
    throw new Refusal('store', "too many sessions are booking at once to count today's spending; try again");
  }

  /**
   * Adds `deltaFils` (negative to release) to `day`'s spending, never below 0; the new total, or `undefined`
   * when the store failed (the counter left as it was: too high only refuses sooner).
   */
  async adjust(day: string, deltaFils: number): Promise<number | undefined> {
    if (deltaFils === 0) return undefined;
    const key = this.#key(day);
    try {
      for (let attempt = 0; attempt < MAX_RESERVE_ATTEMPTS; attempt++) {
        const current = await this.#store.get(key);
        const total = Math.max(0, this.#parse(current) + deltaFils);
        if (await this.#store.compareAndSet(key, current, String(total), SPEND_TTL_MS)) return total;
        await pause(Math.random() * 2 ** Math.min(attempt, 5));
      }
    } catch {
      // best effort
    }
    return undefined;
  }
}
