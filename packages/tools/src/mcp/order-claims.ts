/** One booking per order across every MCP session sharing the store. */
import type { DeliveryStore } from 'delivery-task-sdk';
import { type StoreScope, storeKey } from 'delivery-task-sdk/internal';

/**
 * How long a claim of a booking in progress lasts, ms (10 minutes: longer than any create with its
 * reconciliation).
 */
export const PENDING_TTL_MS = 10 * 60_000;

/** How long a booked order is remembered, ms (2 days). */
export const BOOKED_TTL_MS = 2 * 86_400_000;

/** What claiming an order found. */
export type Claim =
  | { readonly claimed: true; readonly value: string }
  | { readonly claimed: false; readonly state: 'pending' }
  | { readonly claimed: false; readonly state: 'booked'; readonly taskId: string; readonly value: string };

/** The claims of one seller's orders in one store. */
export class OrderClaims {
  readonly #store: DeliveryStore;
  readonly #scope: StoreScope;

  /** `scope`: the client's base URL and seller id, whose orders these are. */
  constructor(store: DeliveryStore, scope: StoreScope) {
    this.#store = store;
    this.#scope = scope;
  }

  #key(orderNumber: string): string {
    return storeKey(this.#scope, 'mcp-order', orderNumber);
  }

  /**
   * Claims `orderNumber` for a booking, or says who holds it.
   * @throws {StoreUnavailableError} when the store does not answer.
   */
  async claim(orderNumber: string): Promise<Claim> {
    const value = `pending:${globalThis.crypto.randomUUID()}`;
    const key = this.#key(orderNumber);
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await this.#store.setIfAbsent(key, value, PENDING_TTL_MS)) return { claimed: true, value };
      const held = await this.#store.get(key);
      if (held === undefined) continue; // expired or released in between: claim again
      if (held.startsWith('booked:')) {
        return { claimed: false, state: 'booked', taskId: held.slice('booked:'.length), value: held };
      }
      return { claimed: false, state: 'pending' };
    }
    return { claimed: false, state: 'pending' };
  }

  /**
   * Records that the claim `value` booked `taskId` (best effort: a store failure leaves the claim to expire).
   */
  async booked(orderNumber: string, value: string, taskId: string): Promise<void> {
    try {
      await this.#store.compareAndSet(this.#key(orderNumber), value, `booked:${taskId}`, BOOKED_TTL_MS);
    } catch {
      // The pending claim expires on its own; the order look-up finds the task meanwhile.
    }
  }

  /**
   * Forgets a `booked:` record whose task the service does not know (a sandbox reset, a store that
   * outlived the account's tasks), so the order can be claimed again.
   * @throws {StoreUnavailableError} when the store does not answer.
   */
  async forget(orderNumber: string, value: string): Promise<void> {
    await this.#store.delete(this.#key(orderNumber), value);
  }

  /** Gives the claim `value` up: nothing was booked (best effort, as {@link booked}). */
  async release(orderNumber: string, value: string): Promise<void> {
    try {
      await this.#store.delete(this.#key(orderNumber), value);
    } catch {
      // Expires on its own.
    }
  }
}
