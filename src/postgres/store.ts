/** `postgresStore`: the `DeliveryStore` over PostgreSQL (README "Running several instances"). @module */
import type { Logger } from '../core/options.js';
import type { DeliveryStore, StoreFence } from '../core/store.js';
import { readOptions } from '../internal/read-options.js';
import { type BatchOutcome, tickBatch } from '../internal/tick-batch.js';
import { PostgresStoreOptionsSchema } from './option-schemas.js';
import {
  createIfAbsent,
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
 * Its table is made and checked by {@link PostgresStore.ready}, which every call awaits. The lease and
 * record calls (`setIfAbsentThenGet`, `compareAndSetReleasing`, `delete`) made in one tick of the event
 * loop go as one statement per kind, at most 128 calls on distinct keys, each answered as alone
 * (docs/several-instances.md "PostgreSQL store").
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
          await createIfAbsent(
            query,
            `CREATE TABLE IF NOT EXISTS ${table} (key text PRIMARY KEY, value text NOT NULL, expires_at timestamptz NOT NULL)`,
          );
          await createIfAbsent(query, `CREATE INDEX IF NOT EXISTS ${index} ON ${table} (expires_at)`);
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
  // The same three calls for several keys at once, one statement each: one commit for a tick's calls.
  // A batch's calls touch distinct keys (tickBatch's keysOf), so no row is written twice in one statement;
  // rows are taken in key order, so two processes' batches lock them in the same order.
  const expiryOf = `clock_timestamp() + i.ttl * interval '1 millisecond'`;
  const takeThenReadMany = `WITH i AS (SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[])
  WITH ORDINALITY AS t(key, value, ttl, read_key, n)),
taken AS (INSERT INTO ${table} (key, value, expires_at) SELECT i.key, i.value, ${expiryOf} FROM i ORDER BY i.key
  ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at
  WHERE ${table}.expires_at <= clock_timestamp() RETURNING key),
record AS (SELECT key, value, expires_at > clock_timestamp() AS live, xmax = '0'::xid AS latest FROM ${table}
  WHERE key IN (SELECT i.read_key FROM i JOIN taken USING (key)))
SELECT EXISTS (SELECT 1 FROM taken WHERE taken.key = i.key) AS taken, coalesce(r.latest, false) AS latest,
  CASE WHEN r.live THEN r.value END AS value
FROM i LEFT JOIN record r ON r.key = i.read_key ORDER BY i.n`;
  const releasingMany = `WITH i AS (SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[],
  $6::boolean[], $7::text[]) WITH ORDINALITY AS t(key, value, ttl, fence_key, fence_value, or_absent, expected, n)),
lease AS (SELECT key, value, expires_at > clock_timestamp() AS live FROM ${table}
  WHERE key IN (SELECT fence_key FROM i) ORDER BY key FOR UPDATE),
fence AS (SELECT i.n, NOT (coalesce(l.value = i.fence_value AND l.live, false)
  OR (i.or_absent AND NOT coalesce(l.live, false))) AS fenced FROM i LEFT JOIN lease l ON l.key = i.fence_key),
updated AS (UPDATE ${table} SET value = i.value, expires_at = ${expiryOf} FROM i JOIN fence f USING (n)
  WHERE ${table}.key = i.key AND i.expected IS NOT NULL AND ${table}.value = i.expected
  AND ${table}.expires_at > clock_timestamp() AND NOT f.fenced RETURNING i.n),
inserted AS (INSERT INTO ${table} (key, value, expires_at) SELECT i.key, i.value, ${expiryOf} FROM i JOIN fence f USING (n)
  WHERE i.expected IS NULL AND NOT f.fenced ORDER BY i.key
  ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at
  WHERE ${table}.expires_at <= clock_timestamp() RETURNING key),
written AS (SELECT n FROM updated UNION ALL SELECT i.n FROM inserted JOIN i USING (key)),
released AS (DELETE FROM ${table} WHERE key IN (SELECT i.fence_key FROM i JOIN written USING (n)) RETURNING 1)
SELECT f.fenced, EXISTS (SELECT 1 FROM written w WHERE w.n = i.n) AS written FROM i JOIN fence f USING (n) ORDER BY i.n`;
  const compareDelete = `DELETE FROM ${table} WHERE key = $1 AND ($2::text IS NULL OR value = $2 OR expires_at <= clock_timestamp())
RETURNING expires_at > clock_timestamp() AS live, value`;
  const compareDeleteMany = `WITH i AS (SELECT * FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t(key, expected, n)),
deleted AS (DELETE FROM ${table} USING i WHERE ${table}.key = i.key
  AND (i.expected IS NULL OR ${table}.value = i.expected OR ${table}.expires_at <= clock_timestamp())
  RETURNING ${table}.key, ${table}.expires_at > clock_timestamp() AS live, ${table}.value)
SELECT d.live, d.value FROM i LEFT JOIN deleted d USING (key) ORDER BY i.n`;
  const readMany = `SELECT key, value FROM ${table} WHERE key = ANY ($1::text[]) AND expires_at > clock_timestamp()`;
  /**
   * A take's answer from its statement's row: `taken` and the record's value, which is read again (in
   * one statement for the batch) where the statement's snapshot may predate a commit (`latest` false).
   */
  const takeAnswers = async (calls: readonly TakeCall[], rows: readonly unknown[]): Promise<TakeAnswer[]> => {
    const taken = rows.map(
      (row) => row as { taken: boolean; latest: boolean; value: string | null } | undefined,
    );
    const stale = calls.filter((_, index) => taken[index]?.taken === true && taken[index]?.latest !== true);
    const reread = new Map<string, string>();
    if (stale.length > 0) {
      const { rows: read } = await query(readMany, [stale.map(({ readKey }) => readKey)]);
      for (const row of read as { key: string; value: string }[]) reread.set(row.key, row.value);
    }
    return calls.map(({ readKey }, index): TakeAnswer => {
      const row = taken[index];
      if (row?.taken !== true) return [false, undefined];
      return [true, row.latest ? (row.value ?? undefined) : reread.get(readKey)];
    });
  };
  const recordAnswer = (row: unknown): RecordAnswer => {
    const { fenced, written } = (row ?? {}) as { fenced?: boolean; written?: boolean };
    return fenced !== false ? 'fenced' : written === true ? 'set' : 'changed';
  };
  // An expired row goes too, but does not count as deleted.
  const releaseAnswer = (call: ReleaseCall, row: unknown): boolean => {
    const { live, value } = (row ?? {}) as { live?: boolean | null; value?: string | null };
    return live === true && (call.expected === undefined || value === call.expected);
  };
  /** One statement for `call` alone (and a read after a take that needs one): its answer. */
  const alone = async (call: StoreCall): Promise<unknown> => {
    if (call.kind === 'take') {
      if (call.readKey === call.key) {
        const { rowCount } = await query(insertUnlessLive, [call.key, call.value, call.ttl]);
        return rowCount === 1 ? [true, call.value] : [false, undefined];
      }
      const { rows } = await query(takeThenRead, [call.key, call.value, call.ttl, call.readKey]);
      return (await takeAnswers([call], rows))[0];
    }
    if (call.kind === 'release') {
      const { rows } = await query(compareDelete, [call.key, call.expected ?? null]);
      return releaseAnswer(call, rows[0]);
    }
    const { fence } = call;
    const values = [call.key, call.value, call.ttl, fence.key, fence.value, fence.orAbsent];
    const { rows } = await query(
      call.expected === undefined ? insertReleasing : replaceReleasing,
      call.expected === undefined ? values : [...values, call.expected],
    );
    return recordAnswer(rows[0]);
  };
  /** One statement for two or more `calls` of one kind, on distinct keys: their answers, in their order. */
  const together = async (calls: readonly StoreCall[]): Promise<unknown[]> => {
    const keys = calls.map(({ key }) => key);
    const takes = calls.filter((call): call is TakeCall => call.kind === 'take');
    if (takes.length > 0) {
      const values = [
        keys,
        ...(['value', 'ttl', 'readKey'] as const).map((name) => takes.map((call) => call[name])),
      ];
      return takeAnswers(takes, (await query(takeThenReadMany, values)).rows);
    }
    const records = calls.filter((call): call is RecordCall => call.kind === 'record');
    if (records.length > 0) {
      const { rows } = await query(releasingMany, [
        keys,
        records.map(({ value }) => value),
        records.map(({ ttl }) => ttl),
        records.map(({ fence }) => fence.key),
        records.map(({ fence }) => fence.value),
        records.map(({ fence }) => fence.orAbsent),
        records.map(({ expected }) => expected ?? null),
      ]);
      return rows.map(recordAnswer);
    }
    const releases = calls.filter((call): call is ReleaseCall => call.kind === 'release');
    const { rows } = await query(compareDeleteMany, [keys, releases.map(({ expected }) => expected ?? null)]);
    return releases.map((call, index) => releaseAnswer(call, rows[index]));
  };
  /** `calls` on distinct keys: one statement per kind of two or more calls, each other call alone. */
  const batchOf = async (calls: readonly StoreCall[]): Promise<BatchOutcome<unknown>[]> => {
    const outcomes: BatchOutcome<unknown>[] = [];
    const settle = async (index: number): Promise<void> => {
      outcomes[index] = await alone(calls[index] as StoreCall).then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
    };
    const settleAll = async (indexes: readonly number[]): Promise<void> => {
      if (indexes.length === 1) return settle(indexes[0] as number);
      try {
        const rows = await together(indexes.map((index) => calls[index] as StoreCall));
        for (const [position, index] of indexes.entries()) outcomes[index] = { value: rows[position] };
      } catch (error) {
        // Refused by PostgreSQL, none of it was applied: each call alone answers for itself.
        if (isRefusal(error)) await Promise.all(indexes.map(settle));
        else for (const index of indexes) outcomes[index] = { error };
      }
    };
    const ofKind = new Map<StoreCall['kind'], number[]>();
    const running: Promise<void>[] = [];
    for (const [index, call] of calls.entries()) {
      const [key, otherKey] = keysOf(call);
      // A call whose two keys are one row is a statement of its own.
      if (key === otherKey) running.push(settle(index));
      else ofKind.set(call.kind, [...(ofKind.get(call.kind) ?? []), index]);
    }
    for (const indexes of ofKind.values()) running.push(settleAll(indexes));
    await Promise.all(running);
    return outcomes;
  };
  const batched = tickBatch<StoreCall, unknown>({ max: MAX_BATCH, keysOf, alone, together: batchOf });
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
      await ensureTable();
      const answer = await batched({ kind: 'take', key, value, ttl: ttlArgument(ttlMs), readKey });
      sweep();
      return answer as TakeAnswer;
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
      const call: StoreCall = { kind: 'record', key, expected, value, ttl: ttlArgument(ttlMs), fence };
      const answer = await batched(call);
      sweep();
      return answer as RecordAnswer;
    },
    delete: async (key, expected) => {
      await ensureTable();
      return (await batched({ kind: 'release', key, expected })) as boolean;
    },
  };
}

/** A lease taken and a record read (`setIfAbsentThenGet`); `ttl` in whole ms. */
interface TakeCall {
  readonly kind: 'take';
  readonly key: string;
  readonly value: string;
  readonly ttl: string;
  readonly readKey: string;
}

/** A record written and its lease let go (`compareAndSetReleasing`); `ttl` in whole ms. */
interface RecordCall {
  readonly kind: 'record';
  readonly key: string;
  readonly expected: string | undefined;
  readonly value: string;
  readonly ttl: string;
  readonly fence: StoreFence;
}

/** A key deleted if it holds `expected` (`delete`). */
interface ReleaseCall {
  readonly kind: 'release';
  readonly key: string;
  readonly expected: string | undefined;
}

/** A lease or record call of the handler, as {@link tickBatch} carries it. */
type StoreCall = TakeCall | RecordCall | ReleaseCall;

/** What `setIfAbsentThenGet` answers. */
type TakeAnswer = readonly [stored: boolean, value: string | undefined];

/** What `compareAndSetReleasing` answers. */
type RecordAnswer = 'set' | 'fenced' | 'changed';

/** Most calls in one batched statement. */
const MAX_BATCH = 128;

/** The rows a call touches. */
function keysOf(call: StoreCall): readonly string[] {
  if (call.kind === 'take') return [call.key, call.readKey];
  if (call.kind === 'record') return [call.key, call.fence.key];
  return [call.key];
}

/** An error PostgreSQL answered with (a SQLSTATE code): the statement was rolled back. */
function isRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}
