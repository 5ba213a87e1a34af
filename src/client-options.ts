/** The options of `DeliveryClient` (README "The client"). @module */
import type { Logger, LogLevel, ReconciliationOptions, SchemaDrift, ValidationMode } from './core/options.js';
import type { DeliveryStore } from './core/store.js';

/**
 * Options of `DeliveryClient`. Every option is optional where an environment variable can supply it.
 */
export interface ClientOptions {
  /**
   * API key, sent as `Authorization: apikey <key>`. Default: env `DELIVERY_API_KEY`. Required. A server
   * secret.
   */
  apiKey?: string | undefined;
  /** Seller id, sent as `x-seller-id`. Default: env `DELIVERY_SELLER_ID`. Required. */
  sellerId?: string | undefined;
  /**
   * Base URL, with or without `/rest`; https but for loopback; no query. Default: env `DELIVERY_BASE_URL`.
   * Required.
   */
  baseUrl?: string | undefined;
  /** Per-attempt timeout in ms, covering headers and body. Default 30 000. */
  timeout?: number;
  /** Retries of operations that are safe to repeat (and resends of a create proven absent). Default 2. */
  maxRetries?: number;
  /**
   * Largest decoded response body, bytes, else `ResponseTooLargeError`. Integer 1 024…2^30. Default 4 MiB.
   */
  maxResponseBytes?: number;
  /**
   * Deadline in ms for a whole call, retries and waits included. Default: none (bounded by attempts × timeout
   * + waits).
   */
  totalTimeout?: number;
  /**
   * How answers are read: `'tolerant'` (default) or `'strict'` (README "Schema drift"; {@link
   * ValidationMode}).
   */
  validation?: ValidationMode;
  /**
   * Called for each drifted field (operation, path, type names; never the value). Default: none; drift is
   * logged at `warn`.
   */
  onDrift?: (drift: SchemaDrift) => void;
  /**
   * Fetch implementation, called with one argument: a `Request` that carries the attempt's signal, headers
   * and body. Default: the global `fetch`, looked up at each call (so msw or tracing installed later
   * applies).
   */
  fetch?: typeof globalThis.fetch;
  /** Where log lines go. Default: `console`. Secrets are redacted from every line. */
  logger?: Logger;
  /**
   * Least severe level written. Default: env `DELIVERY_LOG`, else `'warn'`. `'debug'` logs requests and
   * responses (redacted).
   */
  logLevel?: LogLevel;
  /** Allow construction in a browser, where the API key would be exposed to users. Default false. */
  dangerouslyAllowBrowser?: boolean;
  /**
   * Order leases and order → task, shared (README "Running several instances"). Default: its own
   * `memoryStore()`.
   */
  store?: DeliveryStore;
  /**
   * `tasks.create`'s `lookupFirst` for every create (README "Exactly-once creation"). Default: `true` without
   * `store`, `false` with one.
   */
  lookupFirst?: boolean;
  /**
   * How long a created order is remembered, so creating it again returns its task without a POST, ms. Default
   * 86 400 000 (24 h).
   */
  orderTtlMs?: number;
  /**
   * Deadline of each store call, ms, counted while this process is awake (a stall does not use it up); a
   * call waits on while the store answers other calls, up to 5 × this in all. Past it the call fails with
   * `StoreUnavailableError` (a create sends nothing). Default 1000.
   */
  storeTimeoutMs?: number;
  /** Tuning of create reconciliation (see the README, "Exactly-once creation"). */
  reconciliation?: Partial<ReconciliationOptions>;
  /**
   * How long the service may take to list a new task, ms (README "Exactly-once creation"). Integer 0…600 000.
   * Default 10 000.
   */
  listingDelayMs?: number;
}
