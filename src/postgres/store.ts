/** `postgresStore`: the `DeliveryStore` over PostgreSQL (README "Running several instances"). @module */
import type { Logger } from '../core/options.js';
import type { DeliveryStore } from '../core/store.js';
import { readOptions } from '../internal/read-options.js';
import { PostgresStoreOptionsSchema } from './option-schemas.js';
import {
  guardPool,
  onceSucceeded,
  type PostgresQueryable,
  queryOf,
  quotedTable,
  tableCheck,
  ttlArgument,
} from './pool.js';

export interface PostgresStoreOptions {
  /**
   * The store's table: letters, digits and `_`, optionally `schema.table`; one per app sharing a database.
   * Default `'dts_store'`.
   */
  table?: string;
  /**
   * Create the table and its index at {@link PostgresStore.ready}; `false` when migrations do
   * (docs/several-instances.md). Default `true`.
   */
  createTable?: boolean;
  /**
   * Where an idle pool connection's error is logged (password redacted) when the store gave the pool its
   * listener. Default `console`.
   */
  logger?: Logger;
  /**
   * Send each statement as a named prepared statement, parsed and planned once per connection. `false`
   * behind a pooler that does not keep them: PgBouncer before 1.21, or 1.21+ in transaction or statement
   * pooling without `max_prepared_statements`, or another pooler without them (docs/several-instances.md).
   * Default `true`.
   */
  preparedStatements?: boolean;
}

/** What {@link postgresStore} returns: a `DeliveryStore` with its start-up check. */
export interface PostgresStore extends DeliveryStore {
  /**
   * Creates the table and its index unless `createTable: false`, then reads its columns once; await it at
   * boot. Every store call awaits it first, so without it the first create or webhook runs it.
   * @throws {ConfigurationError} `option: 'table'` for a table (or column) that is not there (checked again
   * at the next call).
   * @throws pg's error when PostgreSQL cannot be reached (run again at the next call).
   */
  ready(): Promise<void>;
}

const SWEEP_EVERY_WRITES = 500;
const SWEEP_MAX_ROWS = 1000;

/**
 * A `DeliveryStore` in a PostgreSQL table (README "Running several instances"); failures reject with pg's
 * error.
 * Its table is made and checked by {@link PostgresStore.ready}, which every call awaits.
 * @param pool A pg `Pool` (given an `'error'` listener if it has none) or connected `Client` (`pg` ≥ 8);
 * never ended.
 * @throws {ConfigurationError} `option: 'pool'` without `query`; `option: 'table'` for a bad table name.
 */
export function postgresStore(pool: PostgresQueryable, options: PostgresStoreOptions = {}): PostgresStore {
  const read = readOptions(PostgresStoreOptionsSchema, options);
  const query = queryOf(pool, 'postgresStore', read.preparedStatements);
  guardPool(pool, 'postgresStore', read.logger);
  const table = quotedTable(read.table);
  const index = `"${read.table.replaceAll('.', '_')}_expires_at"`;
  const ensureTable = tableCheck(
    'postgresStore',
    query,
    table,
    ['key', 'value', 'expires_at'],
    read.createTable === false
      ? undefined
      : onceSucceeded(async () => {
          await query(
            `CREATE TABLE IF NOT EXISTS ${table} (key text PRIMARY KEY, value text NOT NULL, expires_at timestamptz NOT NULL)`,
            undefined,
            true,
          );
          await query(`CREATE INDEX IF NOT EXISTS ${index} ON ${table} (expires_at)`, undefined, true);
        }),
  );
  let writes = 0;
  const sweep = (): void => {
    if (++writes % SWEEP_EVERY_WRITES !== 0) return;
    query(
      `DELETE FROM ${table} WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${table} WHERE expires_at <= clock_timestamp() LIMIT ${SWEEP_MAX_ROWS}))`,
    ).catch(() => {});
  };
  const expiry = `clock_timestamp() + $3::bigint * interval '1 millisecond'`;
  const insertUnlessLive = `INSERT INTO ${table} (key, value, expires_at) VALUES ($1, $2, ${expiry})
ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at
WHERE ${table}.expires_at <= clock_timestamp()`;
  const replace = `UPDATE ${table} SET value = $2, expires_at = ${expiry} WHERE key = $1 AND value = $4 AND expires_at > clock_timestamp()`;
  // The fence's row locked, the record compared and set only past it, the fence deleted only with the record.
  const fenced = `WITH lease AS (SELECT value = $5 AND expires_at > clock_timestamp() AS ours, expires_at > clock_timestamp() AS live
  FROM ${table} WHERE key = $4 FOR UPDATE),
fence AS (SELECT NOT (coalesce((SELECT ours FROM lease), false) OR ($6 AND NOT coalesce((SELECT live FROM lease), false))) AS fenced)`;
  const releasing = (write: string) => `${fenced},
written AS (${write} RETURNING 1),
released AS (DELETE FROM ${table} WHERE key = $4 AND EXISTS (SELECT 1 FROM written) RETURNING 1)
SELECT (SELECT fenced FROM fence) AS fenced, EXISTS (SELECT 1 FROM written) AS written`;
  const replaceReleasing = releasing(
    `UPDATE ${table} SET value = $2, expires_at = ${expiry} WHERE key = $1 AND value = $7 AND expires_at > clock_timestamp() AND NOT (SELECT fenced FROM fence)`,
  );
  const insertReleasing = releasing(
    `INSERT INTO ${table} (key, value, expires_at) SELECT $1, $2, ${expiry} WHERE NOT (SELECT fenced FROM fence)
ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at WHERE ${table}.expires_at <= clock_timestamp()`,
  );
  // The lease taken, then the record read. The read sees the statement's snapshot, which may predate the
  // commit of the holder whose release let the lease be taken: its row is the latest version only when no
  // writer has touched it (`xmax` 0; an update or delete, even uncommitted, sets it). Otherwise, or with
  // no row (one may have been inserted since), `latest` is false and the record is read again.
  const takeThenRead = `WITH taken AS (${insertUnlessLive} RETURNING 1),
record AS (SELECT value, expires_at > clock_timestamp() AS live, xmax = '0'::xid AS latest FROM ${table}
  WHERE key = $4 AND EXISTS (SELECT 1 FROM taken))
SELECT EXISTS (SELECT 1 FROM taken) AS taken, coalesce((SELECT latest FROM record), false) AS latest,
  (SELECT value FROM record WHERE live) AS value`;
  const get = async (key: string): Promise<string | undefined> => {
    await ensureTable();
    const { rows } = await query(
      `SELECT value FROM ${table} WHERE key = $1 AND expires_at > clock_timestamp()`,
      [key],
    );
    return (rows[0] as { value: string } | undefined)?.value;
  };
  const setIfAbsent = async (key: string, value: string, ttlMs: number): Promise<boolean> => {
    await ensureTable();
    const result = await query(insertUnlessLive, [key, value, ttlArgument(ttlMs)]);
    sweep();
    return result.rowCount === 1;
  };
  return {
    ready: ensureTable,
    setIfAbsent,
    get,
    setIfAbsentThenGet: async (key, value, ttlMs, readKey) => {
      if (readKey === key) return (await setIfAbsent(key, value, ttlMs)) ? [true, value] : [false, undefined];
      await ensureTable();
      const { rows } = await query(takeThenRead, [key, value, ttlArgument(ttlMs), readKey]);
      sweep();
      const row = rows[0] as { taken: boolean; latest: boolean; value: string | null } | undefined;
      if (row?.taken !== true) return [false, undefined];
      return [true, row.latest ? (row.value ?? undefined) : await get(readKey)];
    },
    compareAndSet: async (key, expected, value, ttlMs) => {
      if (expected === undefined) return setIfAbsent(key, value, ttlMs);
      await ensureTable();
      // Every write waits for its commit on disk: a lease or record is never lost.
      const result = await query(replace, [key, value, ttlArgument(ttlMs), expected]);
      return result.rowCount === 1;
    },
    compareAndSetReleasing: async (key, expected, value, ttlMs, fence) => {
      await ensureTable();
      const values = [key, value, ttlArgument(ttlMs), fence.key, fence.value, fence.orAbsent];
      const { rows } = await query(
        expected === undefined ? insertReleasing : replaceReleasing,
        expected === undefined ? values : [...values, expected],
      );
      sweep();
      const row = rows[0] as { fenced: boolean; written: boolean } | undefined;
      return row?.fenced !== false ? 'fenced' : row.written ? 'set' : 'changed';
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
