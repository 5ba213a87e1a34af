/**
 * What the PostgreSQL store and inbox share: the `pg` pool by shape, table names, the idle-error guard.
 * @module
 */
import { ConfigurationError } from '../core/errors.js';
import type { Logger } from '../core/options.js';
import { LevelLogger, resolveLogLevel } from '../internal/logger.js';
import { invalidOption } from '../internal/read-options.js';
import { Redactor } from '../internal/redact.js';

/**
 * A named prepared statement as `pg` takes it: parsed and planned once per connection under `name`, then
 * only bound and run.
 */
export interface PostgresNamedQuery {
  /** `dts_` and a hash of `text`: one name per statement text. */
  readonly name: string;
  /** The statement, `$1`… its parameters. */
  readonly text: string;
  /** The parameters' values. */
  readonly values?: unknown[];
}

/**
 * A `pg` (≥ 8) `Pool`, `PoolClient` or connected `Client`, by `query(text, values)` (or, with prepared
 * statements on, `query({ name, text, values })`): the rows and the count affected.
 */
export interface PostgresQueryable {
  query(
    text: string | PostgresNamedQuery,
    values?: unknown[],
  ): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/**
 * What the store and inbox send their statements with: `text` with `values`, as a named prepared statement
 * when those are on, unless `unnamed` (a statement sent once: the schema's, a check).
 */
export type PostgresQuery = (
  text: string,
  values?: unknown[],
  unnamed?: boolean,
) => ReturnType<PostgresQueryable['query']>;

/** `"schema"."table"` of a table name checked by the options schema. */
export function quotedTable(name: string): string {
  return name
    .split('.')
    .map((part) => `"${part}"`)
    .join('.');
}

/** A statement's name: `dts_` and a 64-bit hash of its text (a name stands for one text per connection). */
export function statementName(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995) ^ (b >>> 15);
  }
  return `dts_${(a >>> 0).toString(16).padStart(8, '0')}${(b >>> 0).toString(16).padStart(8, '0')}`;
}

/**
 * The `query` of `pool`, checked by shape; a single connection's queries run one after another. With
 * `prepared`, each text goes as a named prepared statement (its name made once per text).
 */
export function queryOf(pool: unknown, owner: string, prepared = false): PostgresQuery {
  const query =
    typeof pool === 'object' && pool !== null ? (pool as Partial<PostgresQueryable>).query : undefined;
  if (typeof query !== 'function') {
    throw invalidOption('pool', `a pg Pool or connected Client (with query) for ${owner}`, pool);
  }
  const names = new Map<string, string>();
  const send: PostgresQuery = (text, values, unnamed) => {
    if (!prepared || unnamed === true) return query.call(pool, text, values);
    let name = names.get(text);
    if (name === undefined) {
      name = statementName(text);
      names.set(text, name);
    }
    return query.call(pool, { name, text, values: values ?? [] });
  };
  if (typeof (pool as { totalCount?: unknown }).totalCount === 'number') return send;
  // A Client runs one query at a time: queued here, as pg 9 will no longer do it.
  let last: Promise<unknown> = Promise.resolve();
  return (text, values, unnamed) => {
    const next = last.then(
      () => send(text, values, unnamed),
      () => send(text, values, unnamed),
    );
    last = next.catch(() => {});
    return next;
  };
}

/**
 * SQLSTATEs of a catalogue row another session made at the same time: `unique_violation` (on `pg_class`,
 * `pg_type`), `duplicate_table`, `duplicate_object`.
 */
const MADE_MEANWHILE = new Set(['23505', '42P07', '42710']);

/** Runs of one `CREATE … IF NOT EXISTS` statement at most ({@link createIfAbsent}). */
const CREATE_RUNS = 3;

/**
 * Runs a `CREATE … IF NOT EXISTS` statement, and again when another session made the same object at the same
 * time: IF NOT EXISTS looks in the catalogue before its insert, so sessions booting together all go ahead and
 * all but one fail with a unique violation once that one committed; run again, the statement finds the
 * object. At most {@link CREATE_RUNS} runs; any other error is thrown at once.
 */
export async function createIfAbsent(query: PostgresQuery, text: string): Promise<void> {
  for (let run = 1; ; run++) {
    try {
      await query(text, undefined, true);
      return;
    } catch (error) {
      const code =
        typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
      if (run >= CREATE_RUNS || typeof code !== 'string' || !MADE_MEANWHILE.has(code)) throw error;
    }
  }
}

/**
 * Runs `create` until it succeeds, once at a time; retried once at once (a failure at boot, such as a
 * connection refused, is tried again before `ready()` rejects).
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

/**
 * A `ready()` for a store or inbox: creates the table (with `create`, unless `undefined`), then reads
 * `columns` of `table` once; runs again at the next call until it succeeds. A table or column that is not
 * there rejects with `ConfigurationError` (`option: 'table'`) saying what to do.
 */
export function tableCheck(
  owner: string,
  query: PostgresQuery,
  table: string,
  columns: readonly string[],
  create: (() => Promise<void>) | undefined,
): () => Promise<void> {
  let running: Promise<void> | undefined;
  const check = async (): Promise<void> => {
    try {
      await create?.();
      await query(`SELECT ${columns.join(', ')} FROM ${table} WHERE false`, undefined, true);
    } catch (error) {
      const code = (error as { code?: unknown })?.code;
      if (code !== '42P01' && code !== '42703' && code !== '3F000') throw error;
      const fix =
        code === '42703'
          ? 'a table of that name exists without the columns it needs: give the option table another name'
          : code === '3F000'
            ? 'create its schema first'
            : 'create it in your migrations with the statements of docs/several-instances.md "PostgreSQL store", or leave createTable on';
      throw new ConfigurationError(
        'table',
        `${owner} cannot use the table ${table} (${(error as Error).message}): ${fix}`,
      );
    }
  };
  return () => {
    running ??= check().catch((error: unknown) => {
      running = undefined;
      throw error;
    });
    return running;
  };
}

const guardedPools = new WeakSet<object>();

interface PoolEvents {
  on(event: 'error', listener: (error: unknown) => void): unknown;
  listenerCount(event: 'error'): number;
  readonly options?: { password?: unknown; connectionString?: unknown };
}

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
 * Gives a pg `Pool` without an `'error'` listener one that logs (password redacted): unheard, an idle
 * connection's error ends the process.
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

export function ttlArgument(ttlMs: number): string {
  if (!Number.isFinite(ttlMs))
    throw new RangeError(`postgresStore: ttlMs must be a finite number of ms, got ${ttlMs}`);
  return String(Math.max(1, Math.ceil(ttlMs)));
}
