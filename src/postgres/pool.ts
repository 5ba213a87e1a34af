/**
 * What the PostgreSQL store and inbox share: the merchant's `pg` pool by shape, table names, an idle
 * connection's error guard.
 * @module
 */
import { ConfigurationError } from '../core/errors.js';
import type { Logger } from '../core/options.js';
import { LevelLogger, resolveLogLevel } from '../internal/logger.js';
import { Redactor } from '../internal/redact.js';

/** A `pg` (≥ 8) `Pool`, `PoolClient` or connected `Client`, by `query(text, values)`: the rows and the count affected. */
export interface PostgresQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/** `schema.table` or `table`, each an identifier of letters, digits and `_` (quoted as written). */
const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$/;

/** The quoted form of a validated table name: `"schema"."table"`. */
export function quotedTable(option: string, table: unknown, fallback: string): string {
  const name = table ?? fallback;
  if (typeof name !== 'string' || !TABLE_NAME.test(name)) {
    throw new ConfigurationError(
      option,
      `Invalid ${option}: expected a table name of letters, digits and _ (optionally schema.table)`,
    );
  }
  return name
    .split('.')
    .map((part) => `"${part}"`)
    .join('.');
}

/** The `query` of `pool`, checked by shape; a single connection's queries run one after another. */
export function queryOf(pool: unknown, owner: string): PostgresQueryable['query'] {
  const query = typeof pool === 'object' && pool !== null ? (pool as Partial<PostgresQueryable>).query : undefined;
  if (typeof query !== 'function') {
    throw new ConfigurationError(
      'pool',
      `Invalid pool of ${owner}: expected a pg Pool or connected Client (with query)`,
    );
  }
  if (typeof (pool as { totalCount?: unknown }).totalCount === 'number') {
    return (text, values) => query.call(pool, text, values);
  }
  // A single connection (a Client) runs one query at a time: queued here, as pg 9 will no longer do it.
  let last: Promise<unknown> = Promise.resolve();
  return (text, values) => {
    const next = last.then(
      () => query.call(pool, text, values),
      () => query.call(pool, text, values),
    );
    last = next.catch(() => {});
    return next;
  };
}

/**
 * Runs `create` once at a time and until it succeeds: a failure (the database down) is retried on the
 * next call. Two processes creating the same table at once may collide on the catalogue: retried once.
 */
export function onceSucceeded(create: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => {
    done ??= create()
      .catch(() => create())
      .catch((error: unknown) => {
        done = undefined;
        throw error;
      });
    return done;
  };
}

/** Pools given an error listener by this module (one listener per pool, whichever of store and inbox came first). */
const guardedPools = new WeakSet<object>();

/** What {@link guardPool} uses of a pg `Pool`: its events and the connection settings it redacts. */
interface PoolEvents {
  on(event: 'error', listener: (error: unknown) => void): unknown;
  listenerCount(event: 'error'): number;
  readonly options?: { password?: unknown; connectionString?: unknown };
}

/** The password of a connection string (`postgres://user:password@host/db`), decoded. */
function passwordOf(connectionString: unknown): string | undefined {
  if (typeof connectionString !== 'string') return undefined;
  try {
    const password = new URL(connectionString).password;
    return password === '' ? undefined : decodeURIComponent(password);
  } catch {
    return undefined;
  }
}

/**
 * Gives a pg `Pool` that has no `'error'` listener one: a Pool emits an idle connection's error (the
 * server restarted or stopped with `pg_ctl stop -m immediate`), and an event without a listener ends the
 * process. The error is logged at `error` through `logger`, the password redacted; the pool replaces the
 * connection. A pool with a listener of its own, or a `Client`, is left as it is.
 */
export function guardPool(pool: unknown, owner: string, logger: Logger | undefined): void {
  if (typeof pool !== 'object' || pool === null || guardedPools.has(pool)) return;
  const events = pool as Partial<PoolEvents>;
  if (typeof events.on !== 'function' || typeof events.listenerCount !== 'function') return;
  if (typeof (pool as { totalCount?: unknown }).totalCount !== 'number') return; // a Client: its owner handles it
  if (events.listenerCount.call(pool, 'error') > 0) return;
  guardedPools.add(pool);
  const options = events.options;
  const password = typeof options?.password === 'string' ? options.password : undefined;
  const log = new LevelLogger(
    logger ?? console,
    resolveLogLevel(undefined),
    new Redactor([password, passwordOf(options?.connectionString)]),
  );
  events.on.call(pool, 'error', (error: unknown) => {
    log.error(
      `${owner}: an idle PostgreSQL connection of the pool failed (${(error as Error)?.message ?? String(error)}); the pool opens another one when needed`,
    );
  });
}

/** `ttlMs` as whole ms, at least 1, as text (a bigint parameter). */
export function ttlArgument(ttlMs: number): string {
  if (!Number.isFinite(ttlMs)) throw new RangeError(`postgresStore: ttlMs must be a finite number of ms, got ${ttlMs}`);
  return String(Math.max(1, Math.ceil(ttlMs)));
}

export function integer(owner: string, name: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min) {
    throw new ConfigurationError(
      name,
      `Invalid ${name} of ${owner}: expected an integer ≥ ${min}, got ${String(value)}`,
    );
  }
  return value;
}
