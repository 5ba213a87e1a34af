/**
 * The shape of `ClientOptions` (src/client-options.ts) as a schema, defaults included, read by `readOptions`.
 * The credentials are read with their environment variables already applied.
 * @module
 */
import * as z from 'zod/mini';
import type { Logger, SchemaDrift } from '../core/options.js';
import { DEFAULT_STORE_TIMEOUT_MS } from '../core/store.js';
import { isHeaderValue, MAX_CREDENTIAL_LENGTH } from '../internal/headers.js';
import {
  accepted,
  flag,
  hook,
  logLevelOption,
  MAX_TIMER_MS,
  optionsObject,
  storeOption,
  upTo,
  validationOption,
} from '../internal/option-checks.js';

const MAX_BASE_URL_LENGTH = 2048;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * `value` as the base URL requests resolve against, ending with one `/`; `undefined` unless an absolute
 * https URL (http for a loopback host) of at most 2048 characters without credentials, query or fragment.
 */
export function serviceUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > MAX_BASE_URL_LENGTH || /[?#]/.test(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.username || url.password) return undefined;
  const loopback = LOOPBACK_HOSTS.has(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) return undefined;
  // `https://h/rest//` would send `https://h/rest//tasks`: one slash between segments, and one at the end.
  url.pathname = `${url.pathname}/`.replace(/\/{2,}/g, '/');
  return url.href;
}

/** A credential sent in a header: 1 to 4096 characters, trimmed, none a header cannot carry. */
function credential(what: string, env: string) {
  return accepted<string>(
    (value) =>
      typeof value === 'string' &&
      value.trim() !== '' &&
      value.length <= MAX_CREDENTIAL_LENGTH &&
      isHeaderValue(value.trim()),
    `${what} of 1 to ${MAX_CREDENTIAL_LENGTH} characters a header can carry (the option or ${env})`,
  );
}

/** The defaults of `ClientOptions.reconciliation`. */
const RECONCILIATION_DEFAULTS = { checks: 3, intervalMs: 1000, windowSkewMs: 300_000, maxPages: 10 } as const;

/**
 * The options of `DeliveryClient`, `apiKey`, `sellerId` and `baseUrl` after their environment variables;
 * the documented defaults applied.
 */
export const ClientOptionsSchema = optionsObject(
  {
    apiKey: credential('an API key', 'DELIVERY_API_KEY'),
    sellerId: credential('a seller id', 'DELIVERY_SELLER_ID'),
    baseUrl: accepted<string>(
      (value) => serviceUrl(value) !== undefined,
      `an https URL (http for loopback hosts) of at most ${MAX_BASE_URL_LENGTH} characters, with no credentials, query or fragment (the option or DELIVERY_BASE_URL)`,
    ),
    timeout: upTo(1, MAX_TIMER_MS),
    maxRetries: upTo(0, 10),
    maxResponseBytes: upTo(1024, 2 ** 30),
    totalTimeout: upTo(1, MAX_TIMER_MS),
    validation: validationOption,
    onDrift: hook<(drift: SchemaDrift) => void>(),
    fetch: hook<typeof globalThis.fetch>(),
    logger: z.optional(z.custom<Logger>()),
    logLevel: logLevelOption,
    dangerouslyAllowBrowser: flag,
    store: storeOption,
    lookupFirst: flag,
    orderTtlMs: upTo(1000, 30 * 86_400_000),
    storeTimeoutMs: upTo(1, 60_000),
    reconciliation: z.optional(
      optionsObject(
        {
          checks: upTo(1, 10),
          intervalMs: upTo(0, 60_000),
          windowSkewMs: upTo(0, 86_400_000),
          maxPages: upTo(1, 1000),
        },
        RECONCILIATION_DEFAULTS,
      ),
    ),
    listingDelayMs: upTo(0, 600_000),
  },
  {
    timeout: 30_000,
    maxRetries: 2,
    maxResponseBytes: 4 * 1024 * 1024,
    validation: 'tolerant',
    orderTtlMs: 86_400_000,
    storeTimeoutMs: DEFAULT_STORE_TIMEOUT_MS,
    reconciliation: RECONCILIATION_DEFAULTS,
    listingDelayMs: 10_000,
  },
);
