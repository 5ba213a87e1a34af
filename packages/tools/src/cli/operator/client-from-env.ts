/** The `DeliveryClient` of an operator command, configured by the SDK's environment variables. */

import type { Logger, LogLevel } from 'delivery-task-sdk';
import { type ClientOptions, ConfigurationError, DeliveryClient } from 'delivery-task-sdk';
import { invalidOption } from 'delivery-task-sdk/internal';
import type { CliIo } from '../io.js';

const LOG_LEVELS: readonly string[] = ['debug', 'info', 'warn', 'error', 'off'] satisfies LogLevel[];

function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && LOG_LEVELS.includes(value);
}

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

const CREDENTIALS = ['apiKey', 'sellerId', 'baseUrl'] as const;

/** What each credential is, in the words of a message. */
const WHAT = { apiKey: 'an API key', sellerId: 'a seller id', baseUrl: "the service's base URL" } as const;

/**
 * The client's `ConfigurationError` naming the environment variable to set (the CLI has no options):
 * `Invalid DELIVERY_BASE_URL: expected …, got …`.
 */
function forShell(error: unknown): unknown {
  if (!(error instanceof ConfigurationError)) return error;
  const option = CREDENTIALS.find((name) => name === error.option);
  if (option === undefined) return error;
  const env = CLIENT_ENV[option];
  return new ConfigurationError(
    option,
    error.message.replace(`Invalid ${option}:`, `Invalid ${env}:`).replace(` (the option or ${env})`, ''),
  );
}

/**
 * A client from `io.env` only (never the process environment). `DELIVERY_LOG` defaults to `error`, so stderr
 * carries the command's own lines; `overrides` win.
 * @throws {ConfigurationError} naming the variable for a missing or invalid key, seller id or base URL.
 */
export function clientFromEnv(
  io: CliIo,
  overrides: Pick<ClientOptions, 'store' | 'logger'> = {},
): DeliveryClient {
  for (const option of CREDENTIALS) {
    const env = CLIENT_ENV[option];
    if ((io.env[env] ?? '').trim() === '') {
      const { message } = invalidOption(
        env,
        `${WHAT[option]} (set the environment variable ${env})`,
        io.env[env],
      );
      throw new ConfigurationError(option, message);
    }
  }
  const logLevel = io.env[CLIENT_ENV.logLevel];
  try {
    return new DeliveryClient({
      apiKey: io.env[CLIENT_ENV.apiKey],
      sellerId: io.env[CLIENT_ENV.sellerId],
      baseUrl: io.env[CLIENT_ENV.baseUrl],
      logLevel: isLogLevel(logLevel) ? logLevel : DEFAULT_CLI_LOG_LEVEL,
      logger: stderrLogger(io),
      ...overrides,
    });
  } catch (error) {
    throw forShell(error);
  }
}
