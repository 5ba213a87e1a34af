/**
 * `postgresStore` against a real PostgreSQL (a throwaway cluster, `test/support/postgres-server.ts`):
 * the store contract through a `Pool` and a `Client`, its table, its refusals, `ready()` of the store and
 * the inbox (the table made or checked at boot), and creates of one order from two clients on two pools
 * (as two processes would) sending one POST.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/index.js';
import { type PostgresQueryable, postgresInbox, postgresStore } from '../../src/postgres.js';
import { orderParams, useMockService } from '../support/mock-service.js';
import {
  describeWithPostgres,
  type PostgresServer,
  startPostgresServer,
} from '../support/postgres-server.js';
import { describeStoreContract } from '../support/store-contract.js';

describeWithPostgres('postgresStore on a real PostgreSQL', () => {
  const service = useMockService();
  let server: PostgresServer;
  let pool: pg.Pool;
  let client: pg.Client;
  beforeAll(async () => {
    server = await startPostgresServer();
    pool = new pg.Pool({ connectionString: server.url, max: 20 });
    client = new pg.Client({ connectionString: server.url });
    await client.connect();
  }, 60_000);
  afterAll(async () => {
    await client?.end();
    await pool?.end();
    await server?.stop();
  });

  describeStoreContract('postgresStore (Pool)', () => postgresStore(pool), [
    'setIfAbsentThenGet',
    'compareAndSetReleasing',
  ]);
  describeStoreContract(
    'postgresStore (Client, own table)',
    () => postgresStore(client, { table: 'public.dts_store_client' }),
    ['setIfAbsentThenGet', 'compareAndSetReleasing'],
  );
  describeStoreContract(
    'postgresStore (Pool, unnamed statements)',
    () => postgresStore(pool, { table: 'dts_store_unnamed', preparedStatements: false }),
    ['setIfAbsentThenGet', 'compareAndSetReleasing'],
  );

  /**
   * A holder's record write and lease release left uncommitted on another connection while
   * setIfAbsentThenGet waits for the lease: its statement's snapshot is older than the commit.
   */
  async function takenAfterRelease(before: string | undefined): Promise<readonly [boolean, unknown]> {
    const store = postgresStore(pool, { table: 'dts_take_read' });
    await store.ready();
    const lease = `lease:${randomUUID()}`;
    const record = `task:${randomUUID()}`;
    await store.setIfAbsent(lease, 'holder', 60_000);
    if (before !== undefined) await store.setIfAbsent(record, before, 60_000);
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(
        `INSERT INTO dts_take_read (key, value, expires_at) VALUES ($1, 'after', clock_timestamp() + interval '1 minute')
ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        [record],
      );
      await holder.query('DELETE FROM dts_take_read WHERE key = $1', [lease]);
      const taking = store.setIfAbsentThenGet?.(lease, 'taker', 60_000, record);
      // The taker's statement waits on the lease row the holder is deleting.
      for (let waited = 0; waited < 100; waited++) {
        const { rows } = await pool.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%dts_take_read%'",
        );
        if (rows[0].n > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await holder.query('COMMIT');
      return (await taking) ?? [false, undefined];
    } finally {
      holder.release();
    }
  }

  it('setIfAbsentThenGet reads the record a holder wrote as it released the lease, committed mid-statement', async () => {
    expect(await takenAfterRelease('before')).toEqual([true, 'after']);
  });

  it('setIfAbsentThenGet reads a first record a holder inserted as it released the lease, committed mid-statement', async () => {
    expect(await takenAfterRelease(undefined)).toEqual([true, 'after']);
  });

  it('sends named prepared statements unless preparedStatements: false, and never an asynchronous commit', async () => {
    for (const preparedStatements of [true, false]) {
      const sent: unknown[] = [];
      const counting = {
        query: (text: unknown, values?: unknown[]) => {
          sent.push(text);
          return pool.query(text as string, values);
        },
      };
      const store = postgresStore(counting, { table: 'dts_prepared', preparedStatements });
      const inbox = postgresInbox(counting, { table: 'dts_prepared_inbox', preparedStatements });
      await store.ready();
      await inbox.ready();
      const from = sent.length;
      const key = randomUUID();
      await store.setIfAbsent(key, 'a', 10_000);
      await store.compareAndSet(key, 'a', 'b', 10_000);
      await inbox.claim('worker', 10);
      const hot = sent.slice(from);
      expect(hot).toHaveLength(3);
      expect(hot.every((text) => typeof text === (preparedStatements ? 'object' : 'string'))).toBe(true);
      const texts = sent.map((text) => (typeof text === 'string' ? text : (text as { text: string }).text));
      expect(texts.some((text) => text.includes('synchronous_commit'))).toBe(false);
      expect(await store.get(key)).toBe('b');
    }
  });

  it("counts and lists an inbox's pending and failed events (inspect, the maxEntries count) without reading its done rows", async () => {
    const sent: string[] = [];
    const capturing = capturingPool(pool, sent);
    const table = 'dts_counted_inbox';
    const inbox = postgresInbox(capturing, { table });
    await inbox.ready();
    // 30 000 done rows, as retentionMs keeps them (15 minutes of 33 events a second), 3 failed, 5 pending.
    await pool.query(
      `INSERT INTO ${table} (task_id, kind, body, received_at, state, done_at)
SELECT 'done-' || n, 'delivered', repeat('x', 600), 0, 'done', now() FROM generate_series(1, 30000) AS n`,
    );
    await pool.query(
      `INSERT INTO ${table} (task_id, kind, body, received_at, state) SELECT 'failed-' || n, 'accepted', '{}', 0, 'failed' FROM generate_series(1, 3) AS n`,
    );
    await pool.query(`ANALYZE ${table}`);
    for (let task = 0; task < 5; task++) {
      await inbox.append({ taskId: `pending-${task}`, kind: 'accepted', body: '{}', receivedAt: 0 });
    }
    const from = sent.length;
    const inspected = await inbox.inspect({ limit: 6 });
    expect(inspected).toEqual(expect.objectContaining({ pending: 5, failed: 3 }));
    // Pending first, then failed, each oldest first.
    expect(inspected.events.map((event) => `${event.state} ${event.taskId}`)).toEqual([
      ...[0, 1, 2, 3, 4].map((task) => `pending pending-${task}`),
      'failed failed-1',
    ]);
    // The counts and the events in one statement: one snapshot, so they agree.
    const inspecting = sent.slice(from);
    expect(inspecting).toEqual([expect.stringContaining('count(')]);
    const counts = [...new Set(sent.filter((text) => text.includes('count(')))];
    // The maxEntries count (at the first append) and inspect's.
    expect(counts).toHaveLength(2);
    const pages = Number(
      (await pool.query<{ pages: string }>(`SELECT pg_relation_size('${table}') / 8192 AS pages`)).rows[0]
        ?.pages,
    );
    expect(pages).toBeGreaterThan(2_000);
    for (const text of counts) {
      const { rows } = await pool.query<{ 'QUERY PLAN': [{ Plan: Record<string, number> }] }>(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text.replaceAll('$1', '6')}`,
      );
      const plan = rows[0]?.['QUERY PLAN'][0].Plan ?? {};
      const blocks = (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0);
      expect(blocks, text).toBeLessThan(pages / 20);
    }
  });

  it('inspect({ limit: 0 }) counts in one statement and lists nothing', async () => {
    const sent: string[] = [];
    const capturing = capturingPool(pool, sent);
    const inbox = postgresInbox(capturing, { table: 'dts_counted_only' });
    // Nothing to list: the counts' row alone.
    expect(await inbox.inspect()).toEqual({ pending: 0, failed: 0, events: [] });
    await inbox.append({ taskId: 'counted', kind: 'accepted', body: '{}', receivedAt: 0 });
    const from = sent.length;
    expect(await inbox.inspect({ limit: 0 })).toEqual({ pending: 1, failed: 0, events: [] });
    expect(sent.slice(from)).toEqual([expect.stringContaining('count(')]);
  });

  it("keeps a claim's update of an inbox row on the row's page (no index written), in a table made now or before", async () => {
    const body = JSON.stringify({ padding: 'x'.repeat(1300) });
    /** The heap page of each row, by id. */
    const pagesOf = async (table: string) =>
      (
        await pool.query<{ id: string; page: string }>(
          `SELECT id::text AS id, split_part(trim(both '()' from ctid::text), ',', 1) AS page FROM ${table} ORDER BY id`,
        )
      ).rows.map((row) => `${row.id}@${row.page}`);
    const claimedInPlace = async (table: string, createTable: boolean) => {
      const inbox = postgresInbox(pool, { table, createTable });
      for (let task = 0; task < 12; task++)
        await inbox.append({ taskId: `paged-${task}`, kind: 'accepted', body, receivedAt: 0 });
      const before = await pagesOf(table);
      expect(await inbox.claim('worker', 12)).toHaveLength(12);
      return { before, after: await pagesOf(table) };
    };
    const made = await claimedInPlace('dts_paged_inbox', true);
    expect(made.after).toEqual(made.before);
    // A table an earlier version made (no fillfactor) gets it at the next boot with createTable on.
    await pool.query(`CREATE TABLE dts_paged_before (LIKE dts_paged_inbox INCLUDING ALL)`);
    await pool.query('ALTER TABLE dts_paged_before RESET (fillfactor)');
    const before = await claimedInPlace('dts_paged_before', true);
    expect(before.after).toEqual(before.before);
    // The application's migrations decide: with createTable: false the table is left as it is.
    await pool.query(`CREATE TABLE dts_paged_migrated (LIKE dts_paged_inbox INCLUDING ALL)`);
    await pool.query('ALTER TABLE dts_paged_migrated RESET (fillfactor)');
    const migrated = await claimedInPlace('dts_paged_migrated', false);
    expect(migrated.after).not.toEqual(migrated.before);
  });

  it('refuses a pool without query and a table name that is not an identifier', () => {
    expect(() => postgresStore({} as PostgresQueryable)).toThrow(ConfigurationError);
    for (const table of ['a;drop table x', 'a b', '"x"', 'a.b.c', '', 42]) {
      expect(() => postgresStore(pool, { table: table as string })).toThrow(
        expect.objectContaining({ option: 'table' }),
      );
    }
  });

  it('with createTable: false uses the table the application made, and fails while it is missing', async () => {
    const store = postgresStore(pool, { table: 'dts_migrated', createTable: false });
    await expect(store.get('k')).rejects.toThrow(/dts_migrated/);
    await pool.query(
      'CREATE TABLE dts_migrated (key text PRIMARY KEY, value text NOT NULL, expires_at timestamptz NOT NULL)',
    );
    expect(await store.setIfAbsent('k', 'v', 10_000)).toBe(true);
    expect(await store.get('k')).toBe('v');
  });

  it('ready() makes the store and inbox tables at boot, before any call', async () => {
    const exists = async (table: string) =>
      (await pool.query('SELECT to_regclass($1) IS NOT NULL AS found', [table])).rows[0]?.found;
    await postgresStore(pool, { table: 'dts_ready_store' }).ready();
    await postgresInbox(pool, { table: 'dts_ready_inbox' }).ready();
    expect(await exists('dts_ready_store')).toBe(true);
    expect(await exists('dts_ready_inbox')).toBe(true);
  });

  it('ready() of several processes booting at once on new tables: every one resolves', async () => {
    // Eight processes' pools, one connection each: their CREATE … IF NOT EXISTS statements race in the
    // catalogue, where IF NOT EXISTS alone does not stop a unique violation (23505).
    const pools = Array.from({ length: 16 }, () => new pg.Pool({ connectionString: server.url, max: 2 }));
    try {
      const failures: string[] = [];
      for (let round = 0; round < 10; round++) {
        const table = `dts_boot_${round}_${randomUUID().slice(0, 8)}`;
        const booted = await Promise.allSettled(
          pools.flatMap((each) => [
            postgresInbox(each, { table: `${table}_inbox` }).ready(),
            postgresStore(each, { table: `${table}_store` }).ready(),
          ]),
        );
        for (const result of booted)
          if (result.status === 'rejected') failures.push(`${table}: ${String(result.reason)}`);
      }
      expect(failures).toEqual([]);
    } finally {
      await Promise.all(pools.map((each) => each.end()));
    }
  });

  it('with createTable: false, ready() refuses a missing table, saying what to do, and resolves once migrated', async () => {
    const store = postgresStore(pool, { table: 'dts_later', createTable: false });
    const inbox = postgresInbox(pool, { table: 'dts_later_inbox', createTable: false });
    for (const made of [store, inbox]) {
      const error = await made.ready().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(error).toMatchObject({
        option: 'table',
        message: expect.stringContaining('create it in your migrations'),
      });
    }
    await pool.query(
      'CREATE TABLE dts_later (key text PRIMARY KEY, value text NOT NULL, expires_at timestamptz NOT NULL)',
    );
    await store.ready();
    expect(await store.setIfAbsent('k', 'v', 10_000)).toBe(true);
  });

  it("logs at ready() each index an inbox's statements read that its table lacks, with the statement to make it", async () => {
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (message: string) => warnings.push(message) };
    await pool.query(`CREATE TABLE dts_migrated_inbox (
  id bigserial PRIMARY KEY, task_id text NOT NULL, kind text NOT NULL, body text NOT NULL,
  received_at bigint NOT NULL, state text NOT NULL DEFAULT 'pending', attempts integer NOT NULL DEFAULT 0,
  claimed_by text, claimed_until timestamptz, error text, done_at timestamptz, UNIQUE (task_id, kind))`);
    await pool.query(
      `CREATE INDEX dts_migrated_inbox_pending ON dts_migrated_inbox (id) WHERE state = 'pending';
CREATE INDEX dts_migrated_inbox_task ON dts_migrated_inbox (task_id, id) WHERE state = 'pending';
CREATE INDEX dts_migrated_inbox_done ON dts_migrated_inbox (done_at) WHERE state = 'done'`,
    );
    // An index of the failed index's name that is not it: createTable's IF NOT EXISTS keeps it.
    await pool.query('CREATE INDEX dts_migrated_inbox_failed ON dts_migrated_inbox (kind)');
    for (const createTable of [false, true]) {
      warnings.length = 0;
      await postgresInbox(pool, { table: 'dts_migrated_inbox', createTable, logger }).ready();
      expect(warnings).toEqual([expect.stringContaining("no index on (id) WHERE state = 'failed'")]);
      expect(warnings[0]).toContain(
        `CREATE INDEX CONCURRENTLY IF NOT EXISTS "dts_migrated_inbox_failed" ON "dts_migrated_inbox" (id) WHERE state = 'failed'`,
      );
    }
    await pool.query('DROP INDEX dts_migrated_inbox_failed');
    for (const createTable of [false, true]) {
      warnings.length = 0;
      await postgresInbox(pool, { table: 'dts_migrated_inbox', createTable, logger }).ready();
      // createTable made the index the first time round; either way the table now has all four.
      expect(warnings).toEqual(createTable ? [] : [expect.stringContaining("WHERE state = 'failed'")]);
    }
    warnings.length = 0;
    await postgresInbox(pool, { table: 'dts_migrated_inbox', createTable: false, logger }).ready();
    expect(warnings).toEqual([]);
  });

  it('refuses at ready() a table of that name without the columns it needs', async () => {
    await pool.query('CREATE TABLE dts_other (key text PRIMARY KEY, payload text)');
    for (const createTable of [true, false]) {
      const error = await postgresStore(pool, { table: 'dts_other', createTable })
        .ready()
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ name: 'ConfigurationError', option: 'table' });
      expect((error as Error).message).toContain('without the columns it needs');
    }
  });

  it('takes no advisory lock (it works behind PgBouncer in transaction pooling)', async () => {
    const store = postgresStore(pool, { table: 'dts_locks' });
    const key = randomUUID();
    await store.setIfAbsent(key, 'a', 10_000);
    await store.compareAndSet(key, 'a', 'b', 10_000);
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'");
    expect(rows[0].n).toBe(0);
  });

  it('makes one task of an order created at once by two clients on two pools', async () => {
    const second = new pg.Pool({ connectionString: server.url, max: 4 });
    try {
      const [a, b] = [pool, second].map((p) =>
        service.client({ store: postgresStore(p, { table: 'dts_orders' }) }),
      );
      const params = orderParams(`ORD-${randomUUID()}`);
      const [one, two] = await Promise.all([a?.tasks.create(params), b?.tasks.create(params)]);
      expect(one?.id).toBe(two?.id);
      expect(service.mock.requestsFor('tasks.create')).toHaveLength(1);
    } finally {
      await second.end();
    }
  });
});

/** `pool`, with the text of each statement sent through it pushed onto `sent`. */
function capturingPool(pool: pg.Pool, sent: string[]): PostgresQueryable {
  return {
    query: (text: unknown, values?: unknown[]) => {
      sent.push(typeof text === 'string' ? text : (text as { text: string }).text);
      return pool.query(text as string, values);
    },
  };
}
