/**
 * The `DeliveryClient` of an operator command, configured by the same environment variables as the
 * SDK (`DELIVERY_API_KEY`, `DELIVERY_SELLER_ID`, `DELIVERY_BASE_URL`, `DELIVERY_LOG`), read from the
 * command's environment. The client checks them and names the missing one itself.
 * @module
 */
import { type ClientOptions, DeliveryClient } from '../../client.js';
import { isLogLevel } from '../../internal/logger.js';
import type { Logger } from '../../options.js';
import type { CliIo } from '../io.js';

/** The environment variables the operator commands read (the client's own). */
export const CLIENT_ENV = {
  apiKey: 'DELIVERY_API_KEY',
  sellerId: 'DELIVERY_SELLER_ID',
  baseUrl: 'DELIVERY_BASE_URL',
  logLevel: 'DELIVERY_LOG',
} as const;

/** The SDK's log level in the CLI when `DELIVERY_LOG` names none. */
export const DEFAULT_CLI_LOG_LEVEL = 'error';

/** The API key and seller id of the environment (for redaction of everything the command writes). */
export function secretsOf(io: CliIo): [string | undefined, string | undefined] {
  return [io.env[CLIENT_ENV.apiKey], io.env[CLIENT_ENV.sellerId]];
}

/** A logger writing the SDK's lines (already redacted by the SDK) on the command's stderr. */
export function stderrLogger(io: CliIo): Logger {
  const write = (message: string, fields?: Record<string, unknown>) =>
    io.stderr(`${message}${fields === undefined ? '' : ` ${JSON.stringify(fields)}`}\n`);
  return { debug: write, info: write, warn: write, error: write };
}

/**
 * A client for the command's environment. `io.env` is the only source: a variable missing there is
 * missing (an empty string makes the client throw its `ConfigurationError`, naming the option and
 * the variable, rather than fall back to the process environment). `DELIVERY_LOG` picks the log level;
 * the CLI's default is `error` (the client's is `warn`), so that stderr carries only the command's own
 * lines; `DELIVERY_LOG=warn` shows the SDK's retries and resends, `info` its reconciliations.
 * `overrides` (a `store`, another `logger`) win over these.
 * @throws {ConfigurationError} for a missing or invalid key, seller id or base URL.
 */
export function clientFromEnv(io: CliIo, overrides: Pick<ClientOptions, 'store' | 'logger'> = {}): DeliveryClient {
  const logLevel = io.env[CLIENT_ENV.logLevel];
  return new DeliveryClient({
    apiKey: io.env[CLIENT_ENV.apiKey] ?? '',
    sellerId: io.env[CLIENT_ENV.sellerId] ?? '',
    baseUrl: io.env[CLIENT_ENV.baseUrl] ?? '',
    logLevel: isLogLevel(logLevel) ? logLevel : DEFAULT_CLI_LOG_LEVEL,
    logger: stderrLogger(io),
    ...overrides,
  });
}
