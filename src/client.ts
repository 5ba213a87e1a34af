/** `DeliveryClient`, the entry point: one per API key and seller (README "The client"). @module */
import type { ClientOptions } from './client-options.js';
import { ConfigurationError } from './core/errors.js';
import type { ReconciliationOptions } from './core/options.js';
import { DEFAULT_STORE_TIMEOUT_MS, memoryStore, withStoreDeadline } from './core/store.js';
import { VERSION } from './core/version.js';
import { attachClientInternals } from './internal/client-internals.js';
import type { ResourceContext } from './internal/context.js';
import { driftReporter } from './internal/drift-report.js';
import { isBrowser, readEnv } from './internal/env.js';
import { isHeaderValue, MAX_CREDENTIAL_LENGTH } from './internal/headers.js';
import { Transport } from './internal/http.js';
import { LevelLogger, resolveLogLevel } from './internal/logger.js';
import { checkValidation, integerOption, MAX_TIMER_MS } from './internal/options.js';
import { REDACTED, Redactor } from './internal/redact.js';
import { Branches } from './resources/branches.js';
import { handleOf } from './resources/handle.js';
import { Tasks } from './resources/tasks.js';
import { Wallet } from './resources/wallet.js';

export type { ClientOptions } from './client-options.js';

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
const DEFAULT_ORDER_TTL_MS = 86_400_000;
const DEFAULT_LISTING_DELAY_MS = 10_000;
const DEFAULT_RECONCILIATION: ReconciliationOptions = {
  checks: 3,
  intervalMs: 1000,
  windowSkewMs: 300_000,
  maxPages: 10,
};

const MAX_SUGGESTED_NAME_LENGTH = 64;

const MAX_BASE_URL_LENGTH = 2048;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

const CLIENT_OPTIONS: readonly (keyof ClientOptions)[] = [
  'apiKey',
  'sellerId',
  'baseUrl',
  'timeout',
  'maxRetries',
  'maxResponseBytes',
  'totalTimeout',
  'validation',
  'onDrift',
  'fetch',
  'logger',
  'logLevel',
  'dangerouslyAllowBrowser',
  'store',
  'lookupFirst',
  'orderTtlMs',
  'storeTimeoutMs',
  'reconciliation',
  'listingDelayMs',
];

function distance(a: string, b: string): number {
  const left = a.toLowerCase();
  const right = b.toLowerCase();
  // Two rows of the table; every index read is within them (set on the row before).
  let previous = [...Array(right.length + 1).keys()];
  for (let i = 1; i <= left.length; i++) {
    const current = [i];
    for (let j = 1; j <= right.length; j++) {
      const substitution = (previous[j - 1] as number) + (left[i - 1] === right[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution);
    }
    previous = current;
  }
  return previous[right.length] as number;
}

/** Refuses an unknown option, naming the closest known one (`maxRetry` → `maxRetries`). */
function checkKnownOptions(options: object): void {
  for (const name of Object.keys(options)) {
    if ((CLIENT_OPTIONS as readonly string[]).includes(name)) continue;
    const closest =
      name.length > MAX_SUGGESTED_NAME_LENGTH
        ? undefined
        : CLIENT_OPTIONS.map((known) => ({ known, far: distance(name, known) })).sort(
            (a, b) => a.far - b.far,
          )[0];
    const hint = closest && closest.far <= 3 ? `; did you mean ${closest.known}?` : '';
    throw new ConfigurationError(
      name,
      `Unknown DeliveryClient option ${JSON.stringify(name.slice(0, 60))}${hint}`,
    );
  }
}

/** @throws {ConfigurationError} when `options[option]` is given and not of `type`. */
function checkType(options: ClientOptions, option: 'onDrift' | 'fetch' | 'lookupFirst', type: string): void {
  const value = options[option];
  if (value !== undefined && typeof value !== type) {
    throw new ConfigurationError(option, `Invalid ${option}: expected a ${type}, got ${typeof value}`);
  }
}

function required(option: 'apiKey' | 'sellerId' | 'baseUrl', value: unknown, env: string): string {
  if (value !== undefined && typeof value !== 'string') {
    throw new ConfigurationError(option, `Invalid ${option}: expected a string, got ${typeof value}`);
  }
  const resolved = value ?? readEnv(env);
  if (resolved === undefined || resolved.trim() === '') {
    throw new ConfigurationError(
      option,
      `Missing ${option}: pass it to new DeliveryClient({ ${option} }) or set ${env}`,
    );
  }
  if (option !== 'baseUrl' && resolved.length > MAX_CREDENTIAL_LENGTH) {
    throw new ConfigurationError(
      option,
      `Invalid ${option} (option or ${env}): longer than ${MAX_CREDENTIAL_LENGTH} characters`,
    );
  }
  const trimmed = resolved.trim();
  // A secret: the message names the option, never the value.
  if (option !== 'baseUrl' && !isHeaderValue(trimmed)) {
    throw new ConfigurationError(
      option,
      `Invalid ${option} (option or ${env}): sent in a header, it may not hold a control character (U+0000–U+001F), DEL or a character past U+00FF`,
    );
  }
  return trimmed;
}

/** The error for a `baseUrl` that is not one: `reason` after the common words. */
const badBaseUrl = (reason: string) =>
  new ConfigurationError('baseUrl', `Invalid baseUrl (option or DELIVERY_BASE_URL): ${reason}`);

function checkBaseUrl(value: string): string {
  if (value.length > MAX_BASE_URL_LENGTH) throw badBaseUrl(`longer than ${MAX_BASE_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw badBaseUrl('not an absolute URL');
  }
  const loopback = LOOPBACK_HOSTS.has(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw badBaseUrl(`${url.protocol}//${url.host} must use https (http is allowed only for loopback hosts)`);
  }
  if (url.username || url.password) throw badBaseUrl('credentials in the URL are not allowed');
  if (url.search !== '' || url.hash !== '' || /[?#]/.test(value))
    throw badBaseUrl('no query or fragment allowed');
  // `https://h/rest//` would send `https://h/rest//tasks`: one slash between segments, and one at the end.
  url.pathname = `${url.pathname}/`.replace(/\/{2,}/g, '/');
  return url.href;
}

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
    if (typeof options !== 'object' || options === null) {
      throw new ConfigurationError('options', 'DeliveryClient options must be an object');
    }
    checkKnownOptions(options);
    if (isBrowser() && options.dangerouslyAllowBrowser !== true) {
      throw new ConfigurationError(
        'dangerouslyAllowBrowser',
        'DeliveryClient refuses to run in a browser, where its API key would be exposed: call the service from your server, or pass dangerouslyAllowBrowser: true if you accept the risk',
      );
    }
    const apiKey = required('apiKey', options.apiKey, 'DELIVERY_API_KEY');
    const sellerId = required('sellerId', options.sellerId, 'DELIVERY_SELLER_ID');
    this.baseUrl = checkBaseUrl(required('baseUrl', options.baseUrl, 'DELIVERY_BASE_URL'));
    this.timeout = integerOption('timeout', options.timeout, DEFAULT_TIMEOUT_MS, 1, MAX_TIMER_MS);
    this.maxRetries = integerOption('maxRetries', options.maxRetries, DEFAULT_MAX_RETRIES, 0, 10);
    this.maxResponseBytes = integerOption(
      'maxResponseBytes',
      options.maxResponseBytes,
      DEFAULT_MAX_RESPONSE_BYTES,
      1024,
      2 ** 30,
    );
    const totalTimeout =
      options.totalTimeout === undefined
        ? undefined
        : integerOption('totalTimeout', options.totalTimeout, 0, 1, MAX_TIMER_MS);
    this.validation = checkValidation(options.validation);
    checkType(options, 'onDrift', 'function');
    const logLevel = resolveLogLevel(options.logLevel);
    checkType(options, 'fetch', 'function');
    if (options.fetch === undefined && typeof globalThis.fetch !== 'function') {
      throw new ConfigurationError('fetch', 'No fetch available: pass the fetch option');
    }
    checkType(options, 'lookupFirst', 'boolean');
    const fetchImplementation: typeof globalThis.fetch =
      options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    const redactor = new Redactor([apiKey, sellerId]);
    attachClientInternals(this, {
      sellerId,
      redactor,
      logging: { logger: options.logger ?? console, level: logLevel },
    });
    const logger = new LevelLogger(options.logger ?? console, logLevel, redactor);
    const given = options.reconciliation ?? {};
    const reconciliation: ReconciliationOptions = {
      checks: integerOption('reconciliation.checks', given.checks, DEFAULT_RECONCILIATION.checks, 1, 10),
      intervalMs: integerOption(
        'reconciliation.intervalMs',
        given.intervalMs,
        DEFAULT_RECONCILIATION.intervalMs,
        0,
        60_000,
      ),
      windowSkewMs: integerOption(
        'reconciliation.windowSkewMs',
        given.windowSkewMs,
        DEFAULT_RECONCILIATION.windowSkewMs,
        0,
        86_400_000,
      ),
      maxPages: integerOption(
        'reconciliation.maxPages',
        given.maxPages,
        DEFAULT_RECONCILIATION.maxPages,
        1,
        1000,
      ),
    };
    const transport = new Transport({
      baseUrl: this.baseUrl,
      apiKey,
      sellerId,
      fetch: fetchImplementation,
      callerFetch: options.fetch !== undefined,
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
      store: withStoreDeadline(
        options.store ?? memoryStore(),
        integerOption('storeTimeoutMs', options.storeTimeoutMs, DEFAULT_STORE_TIMEOUT_MS, 1, 60_000),
      ),
      sharedStore: options.store !== undefined,
      lookupFirst: options.lookupFirst,
      attemptTimeoutMs: this.timeout,
      totalTimeoutMs: totalTimeout,
      orderTtlMs: integerOption(
        'orderTtlMs',
        options.orderTtlMs,
        DEFAULT_ORDER_TTL_MS,
        1000,
        30 * 86_400_000,
      ),
      validation: this.validation,
      reportDrift: driftReporter(logger, options.onDrift),
      logger,
      redactor,
      maxRetries: this.maxRetries,
      reconciliation,
      listingDelayMs: integerOption(
        'listingDelayMs',
        options.listingDelayMs,
        DEFAULT_LISTING_DELAY_MS,
        0,
        600_000,
      ),
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
