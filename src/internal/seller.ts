/**
 * The seller id of each `DeliveryClient`, the redactor of its secrets and where it logs, kept beside the client
 * rather than on it (the seller id is a secret and never appears on the client itself). Its own module
 * so the webhook handler and the MCP server can read them without importing the client (and, in a
 * bundle, everything the client needs).
 *
 * The table lives on `globalThis` under a global symbol (as the error brands do), so every copy of this
 * module reads what any copy wrote: the CommonJS bundle of an entry, or the `delivery-task` executable,
 * which builds the client from its own bundled copy and loads the MCP server from `dist/mcp/`.
 * @module
 */
import type { Logger, LogLevel } from '../core/options.js';

/** What the SDK's redaction offers another module: secrets removed from text and from any value. */
export interface ClientRedactor {
  /** `text` with every form of the client's secrets replaced. */
  text(text: string): string;
  /** A copy of `value` (objects, arrays, errors) with the client's secrets replaced in every string. */
  value(value: unknown): unknown;
}

/** Where a client writes its log lines: its `logger` option (else `console`) and its resolved level. */
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

/** Seller ids and redactors by client, shared by every copy of this module in the process. */
const clients: WeakMap<object, ClientRecord> = (() => {
  const holder = globalThis as { [TABLE]?: WeakMap<object, ClientRecord> };
  holder[TABLE] ??= new WeakMap();
  return holder[TABLE];
})();

/** Records the seller id (and the redactor of its secrets, and where it logs) of a client when it is built. */
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
