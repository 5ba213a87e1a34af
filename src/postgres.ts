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
 * @module delivery-task-sdk/postgres
 */
import { ConfigurationError } from './core/errors.js';
import type { Logger } from './core/options.js';
import type { DeliveryStore } from './core/store.js';
import { coalesced } from './internal/coalesce.js';
import { LevelLogger, resolveLogLevel } from './internal/logger.js';
import { Redactor } from './internal/redact.js';
import type { InboxEntry, InboxEventSummary, WebhookInbox } from './webhooks/inbox.js';

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
  /**
   * Where the error of an idle pool connection goes (logged at `error`, the connection's password
   * redacted) when the store attached the pool's error listener itself. Default `console`, at the level of
   * env `DELIVERY_LOG` (else `warn`).
   */
  logger?: Logger;
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
function guardPool(pool: unknown, owner: string, logger: Logger | undefined): void {
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
 * every 500 writes. A compareAndSet with `{ durable: false }` (an order's outcome: its loss is safe) commits
 * without waiting for the disk (`synchronous_commit` off for that statement's transaction only); every
 * other write waits for it.
 *
 * Failures are rejections with pg's error (whose message never holds a key or value: they are sent as
 * parameters); the client turns them, and a call slower than its store timeout, into
 * `StoreUnavailableError`. The store never ends `pool`. A `Pool` without an `'error'` listener gets one that
 * logs an idle connection's error (`options.logger`, password redacted), so it cannot end the process.
 *
 * @param pool A pg `Pool` (recommended) or connected `Client` (`pg` ≥ 8).
 * @param options `table` (default `'dts_store'`), `createTable` (default `true`).
 * @throws {ConfigurationError} `option: 'pool'` when `pool` has no `query`; `option: 'table'` for a table
 *   name that is not an identifier (optionally schema-qualified).
 */
export function postgresStore(pool: PostgresQueryable, options: PostgresStoreOptions = {}): DeliveryStore {
  const query = queryOf(pool, 'postgresStore');
  guardPool(pool, 'postgresStore', options.logger);
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
  const replace = `UPDATE ${table} SET value = $2, expires_at = ${expiry} WHERE key = $1 AND value = $4 AND expires_at > clock_timestamp()`;
  // The same in one statement whose commit does not wait for the disk (`synchronous_commit` off for its own
  // transaction only, so a pooled connection keeps its setting).
  const replaceLazily = `UPDATE ${table} SET value = $2, expires_at = ${expiry} FROM (SELECT set_config('synchronous_commit', 'off', true)) AS lazy
WHERE key = $1 AND value = $4 AND expires_at > clock_timestamp()`;
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
    compareAndSet: async (key, expected, value, ttlMs, options) => {
      if (expected === undefined) return setIfAbsent(key, value, ttlMs);
      await ensureTable();
      const result = await query(options?.durable === false ? replaceLazily : replace, [
        key,
        value,
        ttlArgument(ttlMs),
        expected,
      ]);
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

/** Options of {@link postgresInbox}. */
export interface PostgresInboxOptions {
  /** The inbox's table (identifier, optionally schema-qualified). Default `'dts_inbox'`. */
  table?: string;
  /** Create the table and its indexes on first use (statements in docs/several-instances.md). Default `true`. */
  createTable?: boolean;
  /**
   * Events held at most (pending and failed); beyond, webhooks are not written and are answered 503. The
   * count is read at most once a second, so the bound holds within one second's arrivals. Default
   * 1 000 000; an integer ≥ 1.
   */
  maxEntries?: number;
  /** How long done events stay before they are deleted, ms. Default 900 000 (15 min); an integer ≥ 0. */
  retentionMs?: number;
  /**
   * How long a claimed event stays with its worker, ms; past it, another worker claims it. Must be longer
   * than the handler's `eventTimeoutMs`. Default 60 000; an integer ≥ 1.
   */
  visibilityTimeoutMs?: number;
  /** Claims of one event at most; an event whose last claim expired after that many is marked failed. Default 5; an integer ≥ 1. */
  maxAttempts?: number;
  /** Where an idle pool connection's error goes when the inbox attached the pool's error listener (see {@link PostgresStoreOptions.logger}). Default `console`. */
  logger?: Logger;
}

function integer(owner: string, name: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min) {
    throw new ConfigurationError(
      name,
      `Invalid ${name} of ${owner}: expected an integer ≥ ${min}, got ${String(value)}`,
    );
  }
  return value;
}

/** Interval of reading the inbox's size for its bound, ms. */
const COUNT_EVERY_MS = 1000;
/** Interval of moving rows claimed `maxAttempts` times to the failed ones, ms (at most half the visibility timeout). */
const SWEEP_EVERY_MS = 1000;
/** Pending and failed rows from which a maintenance run keeps the table's statistics fresh (`ANALYZE` each time they doubled). */
const ANALYZE_FROM_ROWS = 1000;
/** Rows marked done by one statement at most. */
const COMPLETE_BATCH = 500;
/** Done rows one maintenance run deletes at most. */
const TRIM_MAX_ROWS = 5000;

/**
 * A durable webhook inbox in a PostgreSQL table, for the webhook handler's `inbox` option (README
 * "Running several instances"; docs/several-instances.md "Durable intake"):
 *
 * - **Writing** (the receiver, before answering 200): `INSERT … ON CONFLICT (task_id, kind) DO NOTHING`,
 *   one short transaction; a duplicate webhook of (task, status) is stored once.
 * - **Claiming** (the workers), one statement per claim: the oldest pending rows whose claim is absent or
 *   expired, and only the oldest pending row of each task (so one task's events are processed in arrival
 *   order across every worker), locked with `FOR UPDATE SKIP LOCKED LIMIT n` and stamped with a claim
 *   expiring after `visibilityTimeoutMs`. A row whose claim expired `maxAttempts` times is marked failed
 *   (by a claim, at most once a second).
 * - **Done**: one `UPDATE … WHERE id = ANY ($1)` for the events marked while the previous one was sent
 *   (500 at most). Done rows are deleted once older than `retentionMs` (at most 5 000 per maintenance run,
 *   every 5 s per worker); the same run keeps the table's statistics fresh (`ANALYZE` once it holds 1 000
 *   pending and failed rows, then each time they doubled). **Failed** rows stay until `replay()` or your own `DELETE`.
 *
 * Bounds: `maxEntries` pending and failed rows (default 1 000 000), read at most once a second; beyond,
 * webhooks are answered 503. No advisory lock, no session state: it works behind PgBouncer. A `Pool`
 * without an `'error'` listener gets one that logs (see {@link postgresStore}).
 *
 * @param pool A pg `Pool` (recommended) or connected `Client` (`pg` ≥ 8).
 * @param options See {@link PostgresInboxOptions}.
 * @throws {ConfigurationError} for a `pool` without `query`, a bad table name, or an option out of range.
 */
export function postgresInbox(pool: PostgresQueryable, options: PostgresInboxOptions = {}): WebhookInbox {
  const owner = 'postgresInbox';
  const query = queryOf(pool, owner);
  guardPool(pool, owner, options.logger);
  const table = quotedTable('table', options.table, 'dts_inbox');
  const plain = (options.table ?? 'dts_inbox').replaceAll('.', '_');
  const maxEntries = integer(owner, 'maxEntries', options.maxEntries, 1_000_000, 1);
  const retentionMs = integer(owner, 'retentionMs', options.retentionMs, 900_000, 0);
  const visibilityTimeoutMs = integer(owner, 'visibilityTimeoutMs', options.visibilityTimeoutMs, 60_000, 1);
  const maxAttempts = integer(owner, 'maxAttempts', options.maxAttempts, 5, 1);
  const ensureTable =
    options.createTable === false
      ? async () => {}
      : onceSucceeded(async () => {
          await query(`CREATE TABLE IF NOT EXISTS ${table} (
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
)`);
          await query(`CREATE INDEX IF NOT EXISTS "${plain}_pending" ON ${table} (id) WHERE state = 'pending'`);
          await query(`CREATE INDEX IF NOT EXISTS "${plain}_task" ON ${table} (task_id, id) WHERE state = 'pending'`);
          await query(`CREATE INDEX IF NOT EXISTS "${plain}_done" ON ${table} (done_at) WHERE state = 'done'`);
        });
  let held = 0;
  let countedAt = 0;
  let counting: Promise<void> | undefined;
  const count = (): Promise<void> => {
    counting ??= query(`SELECT count(*)::bigint AS n FROM ${table} WHERE state <> 'done'`)
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
  /** Pending and failed rows when this process last ran `ANALYZE` on the table (see `maintain`). */
  let analyzedAt = 0;
  /** Marks rows done, many in one statement: the ids given while one batch is sent go in the next. */
  const completeMany = coalesced<string>(async (ids) => {
    await query(
      `UPDATE ${table} SET state = 'done', done_at = clock_timestamp(), claimed_until = NULL WHERE id = ANY ($1::bigint[])`,
      [ids],
    );
  }, COMPLETE_BATCH);
  return {
    visibilityTimeoutMs,
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
      // One statement: the oldest claimable row of each task is claimed, and (at most every SWEEP_EVERY_MS:
      // it reads every pending row) rows whose last claim expired after maxAttempts claims become failed.
      // The conditions exclude each other, and such a row is never claimed meanwhile.
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
      const counts = await query(
        `SELECT count(*) FILTER (WHERE state = 'pending')::int AS pending, count(*) FILTER (WHERE state = 'failed')::int AS failed FROM ${table} WHERE state <> 'done'`,
      );
      const { pending = 0, failed = 0 } = (counts.rows[0] as { pending?: number; failed?: number } | undefined) ?? {};
      const { rows } = await query(
        `SELECT id::text AS id, task_id, kind, received_at::text AS received_at, state, attempts, error FROM ${table}
WHERE state IN ('pending', 'failed') ORDER BY state = 'failed', id LIMIT $1`,
        [limit],
      );
      const events = (
        rows as {
          id: string;
          task_id: string;
          kind: string;
          received_at: string;
          state: 'pending' | 'failed';
          attempts: number;
          error: string | null;
        }[]
      ).map(
        (row): InboxEventSummary => ({
          id: row.id,
          taskId: row.task_id,
          kind: row.kind,
          receivedAt: Number(row.received_at),
          state: row.state,
          attempts: row.attempts,
          ...(row.error === null ? {} : { error: row.error }),
        }),
      );
      return { pending, failed, events };
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
      // A table that grew fast (a young table filled by a peak) has no statistics yet, and the claim's plan
      // then reads every pending row (14 ms per claim at 4 000 rows, measured) instead of the oldest few.
      if (held >= ANALYZE_FROM_ROWS && held >= 2 * analyzedAt) {
        analyzedAt = held;
        await query(`ANALYZE ${table}`);
      }
    },
  };
}
