/**
 * `delivery-task-sdk/postgres`: {@link postgresStore}, the {@link DeliveryStore} over PostgreSQL, and
 * {@link postgresInbox}, the webhook handler's durable inbox there (README "Running several instances";
 * docs/several-instances.md). The main entry never loads this module.
 *
 * Both take the merchant's `pg` (node-postgres ≥ 8) `Pool` or connected `Client`, by the one method
 * they use, `query(text, values)`. This module imports nothing of `pg` (an optional peer dependency).
 *
 * ```ts
 * import { DeliveryClient } from 'delivery-task-sdk';
 * import { postgresStore } from 'delivery-task-sdk/postgres';
 * import pg from 'pg';
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const client = new DeliveryClient({ store: postgresStore(pool) });
 * ```
 * @module
 */
import { ConfigurationError } from './errors.js';
import type { DeliveryStore } from './store.js';

/**
 * A node-postgres `Pool`, `PoolClient` or connected `Client` (`pg` ≥ 8), by the one method the store
 * and the inbox use: `query(text, values)`, resolving with the rows and the number of rows affected.
 */
export interface PostgresQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/** Options of {@link postgresStore}. */
export interface PostgresStoreOptions {
  /**
   * The table holding the store's rows: an identifier, optionally schema-qualified (`dts.store`), of
   * letters, digits and `_`. Several applications or environments sharing one database use one table
   * each. Default `'dts_store'`.
   * @throws {ConfigurationError} from {@link postgresStore} (`option: 'table'`) for another value.
   */
  table?: string;
  /**
   * Create the table (and its expiry index) with `CREATE TABLE IF NOT EXISTS` on first use. `false` when
   * the application's migrations create it (the statements are in docs/several-instances.md). Default `true`.
   */
  createTable?: boolean;
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

/** Writes between two sweeps of expired rows. */
const SWEEP_EVERY_WRITES = 500;
/** Expired rows one sweep deletes at most (one short statement). */
const SWEEP_MAX_ROWS = 1000;

/**
 * A {@link DeliveryStore} in a PostgreSQL table, shared by every process using the same database and
 * table: the SDK's guarantees (one task per order, webhook deduplication and order, the sync checkpoint)
 * then hold across instances. README "Running several instances"; docs/several-instances.md.
 *
 * Rows are `(key, value, expires_at)`. Each operation is one statement in its own short transaction
 * (autocommit), atomic on its row: `INSERT … ON CONFLICT DO UPDATE … WHERE expired` (setIfAbsent,
 * compareAndSet from absent), `UPDATE … WHERE value = expected` (compareAndSet), `DELETE` and `SELECT`,
 * all comparing `expires_at` with the database's clock (`clock_timestamp()`), so the processes' clocks do
 * not matter. Leases are such rows, never advisory locks, so the store works behind PgBouncer in
 * transaction pooling. Expired rows are invisible at once and deleted by a sweep of at most 1 000 rows
 * every 500 writes.
 *
 * Failures are rejections with pg's error (whose message never holds a key or value: they are sent as
 * parameters); the client turns them, and a call slower than its store timeout, into
 * `StoreUnavailableError`. The store never ends `pool`.
 *
 * @param pool A pg `Pool` (recommended) or connected `Client` (`pg` ≥ 8).
 * @param options `table` (default `'dts_store'`), `createTable` (default `true`).
 * @throws {ConfigurationError} `option: 'pool'` when `pool` has no `query`; `option: 'table'` for a table
 *   name that is not an identifier (optionally schema-qualified).
 */
export function postgresStore(pool: PostgresQueryable, options: PostgresStoreOptions = {}): DeliveryStore {
  const query = queryOf(pool, 'postgresStore');
  const table = quotedTable('table', options.table, 'dts_store');
  const index = `"${(options.table ?? 'dts_store').replaceAll('.', '_')}_expires_at"`;
  const ensureTable =
    options.createTable === false
      ? async () => {}
      : onceSucceeded(async () => {
          await query(
            `CREATE TABLE IF NOT EXISTS ${table} (key text PRIMARY KEY, value text NOT NULL, expires_at timestamptz NOT NULL)`,
          );
          await query(`CREATE INDEX IF NOT EXISTS ${index} ON ${table} (expires_at)`);
        });
  let writes = 0;
  const sweep = (): void => {
    if (++writes % SWEEP_EVERY_WRITES !== 0) return;
    query(
      `DELETE FROM ${table} WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${table} WHERE expires_at <= clock_timestamp() LIMIT ${SWEEP_MAX_ROWS}))`,
    ).catch(() => {
      // The next sweep tries again; expired rows are invisible meanwhile.
    });
  };
  const expiry = `clock_timestamp() + $3::bigint * interval '1 millisecond'`;
  const insertUnlessLive = `INSERT INTO ${table} (key, value, expires_at) VALUES ($1, $2, ${expiry})
ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at
WHERE ${table}.expires_at <= clock_timestamp()`;
  const setIfAbsent = async (key: string, value: string, ttlMs: number): Promise<boolean> => {
    await ensureTable();
    const result = await query(insertUnlessLive, [key, value, ttlArgument(ttlMs)]);
    sweep();
    return result.rowCount === 1;
  };
  return {
    setIfAbsent,
    get: async (key) => {
      await ensureTable();
      const { rows } = await query(`SELECT value FROM ${table} WHERE key = $1 AND expires_at > clock_timestamp()`, [
        key,
      ]);
      return (rows[0] as { value: string } | undefined)?.value;
    },
    compareAndSet: async (key, expected, value, ttlMs) => {
      if (expected === undefined) return setIfAbsent(key, value, ttlMs);
      await ensureTable();
      const result = await query(
        `UPDATE ${table} SET value = $2, expires_at = ${expiry} WHERE key = $1 AND value = $4 AND expires_at > clock_timestamp()`,
        [key, value, ttlArgument(ttlMs), expected],
      );
      return result.rowCount === 1;
    },
    delete: async (key, expected) => {
      await ensureTable();
      // An expired row goes too, but does not count as deleted.
      const { rows } = await query(
        `DELETE FROM ${table} WHERE key = $1 AND ($2::text IS NULL OR value = $2 OR expires_at <= clock_timestamp())
RETURNING expires_at > clock_timestamp() AS live, value`,
        [key, expected ?? null],
      );
      const row = rows[0] as { live: boolean; value: string } | undefined;
      return row?.live === true && (expected === undefined || row.value === expected);
    },
  };
}

/** `ttlMs` as whole ms, at least 1, as text (a bigint parameter). */
function ttlArgument(ttlMs: number): string {
  if (!Number.isFinite(ttlMs)) throw new RangeError(`postgresStore: ttlMs must be a finite number of ms, got ${ttlMs}`);
  return String(Math.max(1, Math.ceil(ttlMs)));
}
