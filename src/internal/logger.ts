/**
 * The SDK's logging: a level filter over a caller-supplied logger, with secrets redacted from every
 * line and field before it is written.
 */
import { ConfigurationError } from '../core/errors.js';
import type { Logger, LogLevel } from '../core/options.js';
import { readEnv } from './env.js';
import type { ClientRedactor } from './seller.js';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, off: 100 };

/** True for a valid {@link LogLevel} string. */
export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && Object.hasOwn(RANK, value);
}

/**
 * The level to use: the option when given, else env `DELIVERY_LOG` when it names a level, else `'warn'`.
 * @throws {ConfigurationError} for an option that is not a level.
 */
export function resolveLogLevel(option: LogLevel | undefined): LogLevel {
  if (option === undefined) {
    const fromEnv = readEnv('DELIVERY_LOG');
    return isLogLevel(fromEnv) ? fromEnv : 'warn';
  }
  if (!isLogLevel(option)) {
    throw new ConfigurationError('logLevel', `Invalid logLevel: expected 'debug', 'info', 'warn', 'error' or 'off'`);
  }
  return option;
}

/** A logger called `(fields, message)`: pino (it has `bindings()`) or bunyan (it has `streams` and `fields`). */
export function isStructuredLogger(target: object): boolean {
  const candidate = target as { bindings?: unknown; streams?: unknown; fields?: unknown };
  return (
    typeof candidate.bindings === 'function' ||
    (Array.isArray(candidate.streams) && typeof candidate.fields === 'object')
  );
}

/** A structured logger's level method: fields first, then the message. */
type StructuredLogMethod = (fields: Record<string, unknown>, message: string) => void;

/**
 * `fields` (already redacted) with a text form: a logger that turns its arguments into text
 * (`args.join(' ')`, a template, `String(fields)`) writes their JSON, never `[object Object]`. The
 * `toString` is not enumerable, so `console` and winston still show the fields as an object.
 */
function printable(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.defineProperty({ ...fields }, 'toString', {
    value: () => {
      try {
        return JSON.stringify(fields);
      } catch {
        // A value JSON cannot write (a bigint, a cycle): its keys at least.
        return `{${Object.keys(fields)}}`;
      }
    },
  });
}

/**
 * Writes to a {@link Logger} at or above a level, redacting secrets from messages and fields. A
 * console-style logger gets `(line, fields)`, the fields printable as JSON text (never `[object Object]`);
 * pino and bunyan get `(fields, message)`.
 */
export class LevelLogger {
  readonly #target: Logger;
  readonly #rank: number;
  readonly #redactor: ClientRedactor;
  readonly #structured: boolean;

  constructor(target: Logger, level: LogLevel, redactor: ClientRedactor) {
    this.#target = target;
    this.#rank = RANK[level];
    this.#redactor = redactor;
    this.#structured = isStructuredLogger(target);
  }

  /** True when lines of this level are written; check before building expensive fields. */
  enabled(level: Exclude<LogLevel, 'off'>): boolean {
    return RANK[level] >= this.#rank;
  }

  log(level: Exclude<LogLevel, 'off'>, message: string, fields?: Record<string, unknown>): void {
    if (!this.enabled(level)) return;
    try {
      if (this.#structured) {
        const redacted = fields === undefined ? {} : (this.#redactor.value(fields) as Record<string, unknown>);
        const write = this.#target[level] as unknown as StructuredLogMethod;
        write.call(this.#target, { component: 'delivery-task-sdk', ...redacted }, this.#redactor.text(message));
        return;
      }
      const line = `[delivery-task-sdk] ${this.#redactor.text(message)}`;
      if (fields === undefined) this.#target[level](line);
      else this.#target[level](line, printable(this.#redactor.value(fields) as Record<string, unknown>));
    } catch {
      // A failing logger must never break a request.
    }
  }

  debug(message: string, fields?: Record<string, unknown>): void {
    this.log('debug', message, fields);
  }
  info(message: string, fields?: Record<string, unknown>): void {
    this.log('info', message, fields);
  }
  warn(message: string, fields?: Record<string, unknown>): void {
    this.log('warn', message, fields);
  }
  error(message: string, fields?: Record<string, unknown>): void {
    this.log('error', message, fields);
  }
}
