/**
 * What the webhook handler and `delivery-task-tools` read of a `DeliveryClient` and the client does not
 * publish: its seller id (a secret, for store keys), its redactor and where it logs. Kept on the client
 * itself under a registered symbol, so the CommonJS and ESM copies of the SDK read what either wrote;
 * not enumerable, so `JSON.stringify`, `util.inspect` and `Object.keys` never show it. Read outside the
 * SDK only through `delivery-task-sdk/internal`.
 * @module
 */
import type { Logger, LogLevel } from '../core/options.js';

/** Removes a client's API key and seller id, whole or in part, from text and from values. */
export interface ClientRedactor {
  text(text: string): string;
  value(value: unknown): unknown;
}

/** Where a client logs: its logger and level. */
export interface ClientLogging {
  readonly logger: Logger;
  readonly level: LogLevel;
}

/** A `DeliveryClient`'s resolved internals. */
export interface ClientInternals {
  /** The seller id sent as `x-seller-id`: a secret, never to be logged. */
  readonly sellerId: string;
  readonly redactor: ClientRedactor;
  readonly logging: ClientLogging;
}

const CLIENT_INTERNALS: unique symbol = Symbol.for('delivery-task-sdk.client-internals');

/** Puts `internals` on `client`, read-only and not enumerable; once, when the client is built. */
export function attachClientInternals(client: object, internals: ClientInternals): void {
  Object.defineProperty(client, CLIENT_INTERNALS, { value: Object.freeze({ ...internals }) });
}

/** The internals of a `DeliveryClient`, or `undefined` for any other value. */
export function clientInternalsOf(client: unknown): ClientInternals | undefined {
  if (typeof client !== 'object' || client === null) return undefined;
  const internals = (client as { [CLIENT_INTERNALS]?: unknown })[CLIENT_INTERNALS];
  return typeof internals === 'object' && internals !== null ? (internals as ClientInternals) : undefined;
}
