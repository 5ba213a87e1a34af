/** A level filter over the caller's logger, secrets redacted from every line and field. */
import type { Logger, LogLevel } from '../core/options.js';
import type { ClientRedactor } from './client-internals.js';
import { readEnv } from './env.js';

export const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, off: 100 };

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && Object.hasOwn(RANK, value);
}

/** The option (checked by the options schema), else env `DELIVERY_LOG`, else `'warn'`. */
export function resolveLogLevel(option: LogLevel | undefined): LogLevel {
  const level = option ?? readEnv('DELIVERY_LOG');
  return isLogLevel(level) ? level : 'warn';
}

/**
 * A logger called `(fields, message)`: pino (it has `bindings()`) or bunyan (it has `streams` and `fields`).
 */
export function isStructuredLogger(target: object): boolean {
  const candidate = target as { bindings?: unknown; streams?: unknown; fields?: unknown };
  return (
    typeof candidate.bindings === 'function' ||
    (Array.isArray(candidate.streams) && typeof candidate.fields === 'object')
  );
}

type StructuredLogMethod = (fields: Record<string, unknown>, message: string) => void;

/** `fields` with a non-enumerable `toString` writing their JSON, never `[object Object]`. */
function printable(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.defineProperty({ ...fields }, 'toString', {
    value: () => {
      try {
        return JSON.stringify(fields);
      } catch {
        return `{${Object.keys(fields)}}`;
      }
    },
  });
}

/**
 * Writes to a {@link Logger} at or above a level, redacted: `(line, fields)`, or `(fields, message)` for pino
 * and bunyan.
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

  #log(level: Exclude<LogLevel, 'off'>, message: string, fields?: Record<string, unknown>): void {
    if (!this.enabled(level)) return;
    try {
      if (this.#structured) {
        const redacted =
          fields === undefined ? {} : (this.#redactor.value(fields) as Record<string, unknown>);
        const write = this.#target[level] as unknown as StructuredLogMethod;
        write.call(
          this.#target,
          { component: 'delivery-task-sdk', ...redacted },
          this.#redactor.text(message),
        );
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
    this.#log('debug', message, fields);
  }
  info(message: string, fields?: Record<string, unknown>): void {
    this.#log('info', message, fields);
  }
  warn(message: string, fields?: Record<string, unknown>): void {
    this.#log('warn', message, fields);
  }
  error(message: string, fields?: Record<string, unknown>): void {
    this.#log('error', message, fields);
  }
}
