/**
 * The seller id of each `DeliveryClient`, kept beside the client rather than on it (the seller id is a
 * secret and never appears on the client itself). Its own module so the webhook handler can read it
 * without importing the client (and, in a bundle, everything the client needs).
 * @module
 */

/** Seller ids by client. */
const sellerIds = new WeakMap<object, string>();

/** Records the seller id of a client when it is built. */
export function rememberSellerId(client: object, sellerId: string): void {
  sellerIds.set(client, sellerId);
}

/** The seller id of a `DeliveryClient` (for store keys), or `undefined` for any other object. */
export function sellerIdOf(client: unknown): string | undefined {
  return typeof client === 'object' && client !== null ? sellerIds.get(client) : undefined;
}
