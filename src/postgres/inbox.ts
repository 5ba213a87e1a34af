/**
 * `postgresInbox`: a durable webhook inbox in PostgreSQL (docs/several-instances.md "Durable intake").
 * @module
 */
import type { Logger } from '../core/options.js';
import { coalesced } from '../internal/coalesce.js';
import { readOptions } from '../internal/read-options.js';
import type { InboxEntry, InboxEventSummary, WebhookInbox } from '../webhooks/inbox.js';
import { PostgresInboxOptionsSchema } from './option-schemas.js';
import {
  createIfAbsent,
  guardPool,
  onceSucceeded,
  type PostgresQuery,
  type PostgresQueryable,
  queryOf,
  quotedTable,
  tableCheck,
} from './pool.js';

export interface PostgresInboxOptions {
  /** The table (optionally `schema.table`). Default `'dts_inbox'`. */
  table?: string;
  /**
   * Create the table (`fillfactor` 50) and indexes at {@link PostgresInbox.ready}, and set `fillfactor` 50 on
   * a table made without one; `false` when migrations do (docs/several-instances.md). Default `true`.
   */
  createTable?: boolean;
  /** Pending and failed events at most, counted once a second; beyond, 503. Default 1 000 000; ≥ 1. */
  maxEntries?: number;
  /** How long done events stay, ms. Default 900 000 (15 min); ≥ 0. */
  retentionMs?: number;
  /**
   * How long a claimed event stays with its worker, ms; over the handler's `eventTimeoutMs`. Default 60 000;
   * ≥ 1.
   */
  visibilityTimeoutMs?: number;
  /** Claims of one event at most, then it fails. Default 5; ≥ 1. */
  maxAttempts?: number;
  /** See {@link PostgresStoreOptions.logger}. Default `console`. */
  logger?: Logger;
  /**
   * Named prepared statements, as {@link PostgresStoreOptions.preparedStatements}: `false` behind a pooler
   * that does not keep them (PgBouncer before 1.21, or without `max_prepared_statements`). Default `true`.
   */
  preparedStatements?: boolean;
}

/** What {@link postgresInbox} returns: a {@link WebhookInbox} with its start-up check. */
export interface PostgresInbox extends WebhookInbox {
  /**
   * Creates the table and its indexes unless `createTable: false`, then reads its columns once; await it at
   * boot. The methods that write, claim or read await it first, so without it the first webhook or claim runs
   * it.
   * @throws {ConfigurationError} `option: 'table'` for a table (or column) that is not there (checked again
   * at the next call).
   * @throws pg's error when PostgreSQL cannot be reached (run again at the next call).
   */
  ready(): Promise<void>;
}

const COUNT_EVERY_MS = 1000;
/** At most half the visibility timeout. */
const SWEEP_EVERY_MS = 1000;
/** `ANALYZE` from this many pending and failed rows, then each time they doubled. */
const ANALYZE_FROM_ROWS = 1000;
const COMPLETE_BATCH = 500;
/**
 * How full an insert leaves each of the table's pages, %: a claim's update (of columns no index holds)
 * then finds room on the row's page and writes no index entry (a HOT update). 100 (PostgreSQL's
 * default) fills a page with ~1.3 KB task bodies, so each claim moved its row and wrote 4 index entries:
 * about 1.4 × the server CPU to drain (docs/several-instances.md "PostgreSQL store").
 */
const INBOX_FILLFACTOR = 50;
const TRIM_MAX_ROWS = 5000;
/** The columns `inspect()` lists (not the body). */
const LISTED = 'id, task_id, kind, received_at, state, attempts, error';

/**
 * A durable webhook inbox in a PostgreSQL table for the handler's `inbox` option (README "Running several
 * instances"): each task's oldest row claimed, failed rows kept until `replay()`; `maxEntries`, then 503.
 * @param pool A pg `Pool` (recommended) or connected `Client` (`pg` ≥ 8).
 * @throws {ConfigurationError} for a `pool` without `query`, a bad table name, or an option out of range.
 */
export function postgresInbox(pool: PostgresQueryable, options: PostgresInboxOptions = {}): PostgresInbox {
  const owner = 'postgresInbox';
  const read = readOptions(PostgresInboxOptionsSchema, options);
  const query = queryOf(pool, owner, read.preparedStatements);
  const { maxEntries, retentionMs, visibilityTimeoutMs, maxAttempts } = read;
  guardPool(pool, owner, read.logger);
  const table = quotedTable(read.table);
  const plain = read.table.replaceAll('.', '_');
  /** The rows in one state, counted on its partial index: never the done rows kept for `retentionMs`. */
  const rowsIn = (state: 'pending' | 'failed') => `(SELECT count(*) FROM ${table} WHERE state = '${state}')`;
  const ensureTable = tableCheck(
    owner,
    query,
    table,
    'id task_id kind body received_at state attempts claimed_by claimed_until error done_at'.split(' '),
    read.createTable === false
      ? () => lookForIndexes(query, table, plain, read.logger ?? console)
      : onceSucceeded(async () => {
          await createIfAbsent(
            query,
            `CREATE TABLE IF NOT EXISTS ${table} (
  id bigserial PRIMARY KEY,
  task_id text NOT NULL,
  kind text NOT NULL,
  body text NOT NULL,
  received_at bigint NOT NULL,
  state text NOT NULL DEFAULT 'pending',
  attempts integer NOT NULL DEFAULT 0,
  claimed_by text,
  claimed_until timestamptz,
  error text,
  done_at timestamptz,
  UNIQUE (task_id, kind)
) WITH (fillfactor = ${INBOX_FILLFACTOR})`,
          );
          await keepRoomOnPages(query, table);
          await createIfAbsent(
            query,
            `CREATE INDEX IF NOT EXISTS "${plain}_pending" ON ${table} (id) WHERE state = 'pending'`,
          );
          await createIfAbsent(
            query,
            `CREATE INDEX IF NOT EXISTS "${plain}_task" ON ${table} (task_id, id) WHERE state = 'pending'`,
          );
          await createIfAbsent(
            query,
            `CREATE INDEX IF NOT EXISTS "${plain}_done" ON ${table} (done_at) WHERE state = 'done'`,
          );
          // The failed rows counted and listed without reading the done ones kept for retentionMs.
          await createIfAbsent(
            query,
            `CREATE INDEX IF NOT EXISTS "${plain}_failed" ON ${table} (id) WHERE state = 'failed'`,
          );
          // IF NOT EXISTS goes by name alone: another index of one of these names is not one of them.
          await lookForIndexes(query, table, plain, read.logger ?? console);
        }),
  );
  let held = 0;
  let countedAt = 0;
  let counting: Promise<void> | undefined;
  const count = (): Promise<void> => {
    counting ??= query(`SELECT ${rowsIn('pending')} + ${rowsIn('failed')} AS n`)
      .then(({ rows }) => {
        held = Number((rows[0] as { n: string } | undefined)?.n ?? 0);
        countedAt = Date.now();
      })
      .finally(() => {
        counting = undefined;
      });
    return counting;
  };
  let sweptAt = 0;
  const sweepEveryMs = Math.min(SWEEP_EVERY_MS, Math.ceil(visibilityTimeoutMs / 2));
  let analyzedAt = 0;
  const completeMany = coalesced<string>(async (ids) => {
    await query(
      `UPDATE ${table} SET state = 'done', done_at = clock_timestamp(), claimed_until = NULL WHERE id = ANY ($1::bigint[])`,
      [ids],
    );
  }, COMPLETE_BATCH);
  return {
    visibilityTimeoutMs,
    ready: ensureTable,
    append: async (entry) => {
      await ensureTable();
      if (countedAt === 0) await count();
      else if (Date.now() - countedAt >= COUNT_EVERY_MS) void count().catch(() => {});
      if (held >= maxEntries) throw new Error(`the inbox holds ${maxEntries} events (maxEntries)`);
      const result = await query(
        `INSERT INTO ${table} (task_id, kind, body, received_at) VALUES ($1, $2, $3, $4) ON CONFLICT (task_id, kind) DO NOTHING`,
        [entry.taskId, entry.kind, entry.body, entry.receivedAt],
      );
      held += result.rowCount ?? 0;
    },
    claim: async (consumer, max) => {
      await ensureTable();
      // Claims the oldest claimable row of each task, and at most every sweepEveryMs fails the rows past
      // maxAttempts.
      const sweep = Date.now() - sweptAt >= sweepEveryMs;
      if (sweep) sweptAt = Date.now();
      const { rows } = await query(
        `WITH given_up AS (
  UPDATE ${table} SET state = 'failed', error = $4
  WHERE $6 AND state = 'pending' AND claimed_until < clock_timestamp() AND attempts >= $5
), picked AS (
  SELECT id FROM ${table} AS i
  WHERE state = 'pending' AND (claimed_until IS NULL OR (claimed_until < clock_timestamp() AND attempts < $5))
    AND NOT EXISTS (SELECT 1 FROM ${table} AS o WHERE o.task_id = i.task_id AND o.state = 'pending' AND o.id < i.id)
  ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED
)
UPDATE ${table} AS t SET claimed_by = $1, claimed_until = clock_timestamp() + $3::bigint * interval '1 millisecond', attempts = t.attempts + 1
FROM picked WHERE t.id = picked.id
RETURNING t.id::text AS id, t.body, t.received_at::text AS received_at, t.attempts`,
        [
          consumer,
          max,
          visibilityTimeoutMs,
          `claimed ${maxAttempts} times without being marked done (a worker died each time)`,
          maxAttempts,
          sweep,
        ],
      );
      return (rows as { id: string; body: string; received_at: string; attempts: number }[])
        .map(
          (row): InboxEntry => ({
            id: row.id,
            body: row.body,
            receivedAt: Number(row.received_at),
            attempts: row.attempts,
          }),
        )
        .sort((a, b) => Number(a.id) - Number(b.id));
    },
    complete: completeMany,
    release: async (id) => {
      await query(
        `UPDATE ${table} SET claimed_until = NULL, claimed_by = NULL, attempts = GREATEST(attempts - 1, 0) WHERE id = $1 AND state = 'pending'`,
        [id],
      );
    },
    fail: async (id, error) => {
      await query(`UPDATE ${table} SET state = 'failed', error = $2, claimed_until = NULL WHERE id = $1`, [
        id,
        error.slice(0, 1000),
      ]);
    },
    inspect: async ({ limit = 100 } = {}) => {
      await ensureTable();
      // The counts and the events in one statement (one snapshot): each state from its partial index,
      // pending first, then failed, each oldest first; one row of counts alone when none is listed
      // (`limit` 0 included).
      const { rows } = await query(
        `SELECT counted.pending, counted.failed, listed.id::text AS id, listed.task_id, listed.kind,
  listed.received_at::text AS received_at, listed.state, listed.attempts, listed.error
FROM (SELECT ${rowsIn('pending')}::int AS pending, ${rowsIn('failed')}::int AS failed) AS counted LEFT JOIN LATERAL (SELECT * FROM (
  (SELECT ${LISTED} FROM ${table} WHERE state = 'pending' ORDER BY id LIMIT $1)
  UNION ALL
  (SELECT ${LISTED} FROM ${table} WHERE state = 'failed' ORDER BY id LIMIT $1)
) AS both_states ORDER BY state = 'failed', id LIMIT $1) AS listed ON true
ORDER BY listed.state = 'failed', listed.id`,
        [limit],
      );
      const listed = rows as {
        pending: number;
        failed: number;
        id: string | null;
        task_id: string;
        kind: string;
        received_at: string;
        state: 'pending' | 'failed';
        attempts: number;
        error: string | null;
      }[];
      const events = listed.flatMap((row): InboxEventSummary[] =>
        row.id === null
          ? []
          : [
              {
                id: row.id,
                taskId: row.task_id,
                kind: row.kind,
                receivedAt: Number(row.received_at),
                state: row.state,
                attempts: row.attempts,
                ...(row.error === null ? {} : { error: row.error }),
              },
            ],
      );
      return { pending: listed[0]?.pending ?? 0, failed: listed[0]?.failed ?? 0, events };
    },
    replay: async (ids) => {
      await ensureTable();
      const result = await query(
        `UPDATE ${table} SET state = 'pending', attempts = 0, error = NULL, claimed_until = NULL, claimed_by = NULL
WHERE state = 'failed' AND ($1::bigint[] IS NULL OR id = ANY ($1::bigint[]))`,
        [ids === undefined ? null : [...ids]],
      );
      return result.rowCount ?? 0;
    },
    maintain: async () => {
      await ensureTable();
      await query(
        `DELETE FROM ${table} WHERE id = ANY (ARRAY(SELECT id FROM ${table} WHERE state = 'done' AND done_at < clock_timestamp() - $1::bigint * interval '1 millisecond' LIMIT ${TRIM_MAX_ROWS}))`,
        [retentionMs],
      );
      await count();
      // A young table filled by a peak has no statistics: the claim's plan would read every pending row.
      if (held >= ANALYZE_FROM_ROWS && held >= 2 * analyzedAt) {
        analyzedAt = held;
        await query(`ANALYZE ${table}`, undefined, true);
      }
    },
  };
}

/**
 * Sets {@link INBOX_FILLFACTOR} on a table made without a fillfactor (by an earlier version): pages
 * written from then on keep the room (SHARE UPDATE EXCLUSIVE: appends and claims go on meanwhile). A
 * fillfactor the application set is kept.
 */
async function keepRoomOnPages(query: PostgresQuery, table: string): Promise<void> {
  const { rows } = await query('SELECT reloptions FROM pg_class WHERE oid = to_regclass($1)', [table], true);
  const options = (rows[0] as { reloptions: string[] | null } | undefined)?.reloptions ?? [];
  if (options.some((option) => option.startsWith('fillfactor='))) return;
  await query(`ALTER TABLE ${table} SET (fillfactor = ${INBOX_FILLFACTOR})`, undefined, true);
}

/**
 * The partial indexes the claim, the counts and `inspect()` read (name suffix, columns, state), as
 * `createTable` makes them.
 */
const INBOX_INDEXES = [
  ['pending', 'id', 'pending'],
  ['task', 'task_id, id', 'pending'],
  ['done', 'done_at', 'done'],
  ['failed', 'id', 'failed'],
] as const;

/**
 * Logs at boot each index of {@link INBOX_INDEXES} the table lacks (made by the application's migrations,
 * or by an older version; the statements that read it would read the whole table instead, done rows kept
 * for `retentionMs` included), with the statement that makes it. A missing table is left to the column
 * check that follows.
 */
async function lookForIndexes(
  query: PostgresQuery,
  table: string,
  plain: string,
  logger: Pick<Logger, 'warn'>,
): Promise<void> {
  const { rows } = await query(
    'SELECT pg_get_indexdef(indexrelid) AS definition FROM pg_index WHERE indrelid = to_regclass($1)',
    [table],
    true,
  );
  if (rows.length === 0) return;
  const definitions = (rows as { definition: string }[]).map((row) => row.definition);
  for (const [name, columns, state] of INBOX_INDEXES) {
    if (
      definitions.some((definition) => definition.endsWith(`(${columns}) WHERE (state = '${state}'::text)`))
    )
      continue;
    logger.warn(
      `postgresInbox: the table ${table} has no index on (${columns}) WHERE state = '${state}', so the statements that read those rows read the whole table; create it in your migrations: CREATE INDEX CONCURRENTLY IF NOT EXISTS "${plain}_${name}" ON ${table} (${columns}) WHERE state = '${state}'`,
    );
  }
}
