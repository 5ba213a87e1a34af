/** `DeliveryClient`, the entry point: one per API key and seller (README "The client"). @module */
import type { ClientOptions } from './client-options.js';
import type { ReconciliationOptions } from './core/options.js';
import { memoryStore, withStoreDeadline } from './core/store.js';
import { VERSION } from './core/version.js';
import { attachClientInternals } from './internal/client-internals.js';
import type { ResourceContext } from './internal/context.js';
import { driftReporter } from './internal/drift-report.js';
import { isBrowser, readEnv } from './internal/env.js';
import { Transport } from './internal/http.js';
import { LevelLogger, resolveLogLevel } from './internal/logger.js';
import { invalidOption, readOptions } from './internal/read-options.js';
import { REDACTED, Redactor } from './internal/redact.js';
import { ClientOptionsSchema, serviceUrl } from './options/client.js';
import { Branches } from './resources/branches.js';
import { handleOf } from './resources/handle.js';
import { Tasks } from './resources/tasks.js';
import { Wallet } from './resources/wallet.js';

export type { ClientOptions } from './client-options.js';

/**
 * The Delivery Task Service client: `new DeliveryClient({ apiKey, sellerId, baseUrl })`.
 * @throws {ConfigurationError} naming an option missing, invalid or unknown, or in a browser without opting
 * in.
 */
export class DeliveryClient {
  /** Tasks: create, retrieve, list, estimate. */
  readonly tasks: Tasks;
  /** Pickup branches. */
  readonly branches: Branches;
  /** Prepaid wallet: balance and top-up. */
  readonly wallet: Wallet;
  /** The base URL requests are resolved against (always ending with `/`). */
  readonly baseUrl: string;
  /** Per-attempt timeout in ms. */
  readonly timeout: number;
  /** Retries of safe operations. */
  readonly maxRetries: number;
  /** Response validation mode. */
  readonly validation: 'tolerant' | 'strict';
  /** Largest response body read, in decoded bytes. */
  readonly maxResponseBytes: number;

  constructor(options: ClientOptions = {}) {
    if (isBrowser() && options?.dangerouslyAllowBrowser !== true) {
      throw invalidOption(
        'dangerouslyAllowBrowser',
        'true to run in a browser, which shows the API key to its users (call the service from a server)',
        options?.dangerouslyAllowBrowser,
      );
    }
    const given = readOptions(
      ClientOptionsSchema,
      typeof options === 'object' && options !== null
        ? {
            ...options,
            apiKey: options.apiKey ?? readEnv('DELIVERY_API_KEY'),
            sellerId: options.sellerId ?? readEnv('DELIVERY_SELLER_ID'),
            baseUrl: options.baseUrl ?? readEnv('DELIVERY_BASE_URL'),
          }
        : options,
    );
    const apiKey = given.apiKey.trim();
    const sellerId = given.sellerId.trim();
    this.baseUrl = serviceUrl(given.baseUrl) as string;
    this.timeout = given.timeout;
    this.maxRetries = given.maxRetries;
    this.maxResponseBytes = given.maxResponseBytes;
    const totalTimeout = given.totalTimeout;
    this.validation = given.validation === 'strict' ? 'strict' : 'tolerant';
    const logLevel = resolveLogLevel(given.logLevel);
    if (given.fetch === undefined && typeof globalThis.fetch !== 'function') {
      throw invalidOption('fetch', 'a function where there is no global fetch', undefined);
    }
    const fetchImplementation: typeof globalThis.fetch =
      given.fetch ?? ((input, init) => globalThis.fetch(input, init));
    const redactor = new Redactor([apiKey, sellerId]);
    attachClientInternals(this, {
      sellerId,
      redactor,
      logging: { logger: given.logger ?? console, level: logLevel },
    });
    const logger = new LevelLogger(given.logger ?? console, logLevel, redactor);
    const reconciliation: ReconciliationOptions = given.reconciliation;
    const transport = new Transport({
      baseUrl: this.baseUrl,
      apiKey,
      sellerId,
      fetch: fetchImplementation,
      callerFetch: given.fetch !== undefined,
      timeout: this.timeout,
      maxRetries: this.maxRetries,
      totalTimeout,
      maxResponseBytes: this.maxResponseBytes,
      logger,
      redactor,
    });
    const context: ResourceContext = {
      transport,
      sellerScope: `${this.baseUrl}\n${sellerId}`,
      sellerId,
      storeScope: { baseUrl: this.baseUrl, sellerId },
      store: withStoreDeadline(given.store ?? memoryStore(), given.storeTimeoutMs),
      sharedStore: given.store !== undefined,
      lookupFirst: given.lookupFirst,
      attemptTimeoutMs: this.timeout,
      totalTimeoutMs: totalTimeout,
      orderTtlMs: given.orderTtlMs,
      validation: this.validation,
      reportDrift: driftReporter(logger, given.onDrift),
      logger,
      redactor,
      maxRetries: this.maxRetries,
      reconciliation,
      listingDelayMs: given.listingDelayMs,
    };
    this.tasks = new Tasks(handleOf(context));
    this.branches = new Branches(handleOf(context));
    this.wallet = new Wallet(handleOf(context));
  }

  /** The SDK version. */
  static readonly VERSION = VERSION;

  /** A summary without secrets; `toJSON` and `util.inspect` give the same. */
  toString(): string {
    return `DeliveryClient(${this.baseUrl})`;
  }

  toJSON(): Record<string, unknown> {
    return {
      baseUrl: this.baseUrl,
      apiKey: REDACTED,
      sellerId: REDACTED,
      timeout: this.timeout,
      maxRetries: this.maxRetries,
      validation: this.validation,
      maxResponseBytes: this.maxResponseBytes,
    };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `DeliveryClient ${JSON.stringify(this.toJSON())}`;
  }
}
