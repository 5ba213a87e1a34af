/**
 * Each `DeliveryClient`'s seller id, redactor and logging, kept beside the client (the seller id is a
 * secret), readable without importing the client. On `globalThis` under a global symbol, so every copy
 * of this module (CommonJS bundles, the executable) reads what any copy wrote.
 * @module
 */
import type { Logger, LogLevel } from '../core/options.js';

export interface ClientRedactor {
  text(text: string): string;
  value(value: unknown): unknown;
}

export interface ClientLogging {
  readonly logger: Logger;
  readonly level: LogLevel;
}

interface ClientRecord {
  readonly sellerId: string;
  readonly redactor: ClientRedactor | undefined;
  readonly logging: ClientLogging | undefined;
}

const TABLE = Symbol.for('delivery-task-sdk.clients');

const clients: WeakMap<object, ClientRecord> = (() => {
  const holder = globalThis as { [TABLE]?: WeakMap<object, ClientRecord> };
  holder[TABLE] ??= new WeakMap();
  return holder[TABLE];
})();

/** Records a client's seller id, redactor and logging when it is built. */
export function rememberSellerId(
  client: object,
  sellerId: string,
  redactor?: ClientRedactor,
  logging?: ClientLogging,
): void {
  clients.set(client, { sellerId, redactor, logging });
}

/** The seller id of a `DeliveryClient` (for store keys), or `undefined` for any other object. */
export function sellerIdOf(client: unknown): string | undefined {
  return typeof client === 'object' && client !== null ? clients.get(client)?.sellerId : undefined;
}

/** The redactor of a `DeliveryClient`'s API key and seller id, or `undefined` for any other object. */
export function redactorOf(client: unknown): ClientRedactor | undefined {
  return typeof client === 'object' && client !== null ? clients.get(client)?.redactor : undefined;
}

/** Where a `DeliveryClient` logs (its logger and level), or `undefined` for any other object. */
export function loggingOf(client: unknown): ClientLogging | undefined {
  return typeof client === 'object' && client !== null ? clients.get(client)?.logging : undefined;
}
