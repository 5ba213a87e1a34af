/**
 * `postgresStore` runs the lease and record calls made in one tick as one statement per kind, one commit
 * for all of them (docs/performance.md "Durable intake drain"): each answers as it would alone, calls on
 * one key in call order, and a statement PostgreSQL refuses is run again call by call, so one bad call
 * rejects alone. Checked on a real PostgreSQL against the same calls made one at a time.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type PostgresNamedQuery, postgresStore } from '../../src/postgres.js';
import {
  describeWithPostgres,
  type PostgresServer,
  startPostgresServer,
} from '../support/postgres-server.js';
import { expectTickAsAlone, operation, recordInOneTick, takeInOneTick } from '../support/store-operations.js';

describeWithPostgres('postgresStore: the calls of one tick in one statement', () => {
  let server: PostgresServer;
  let pool: pg.Pool;
  let otherPool: pg.Pool;
  beforeAll(async () => {
    server = await startPostgresServer();
    pool = new pg.Pool({ connectionString: server.url, max: 10 });
    otherPool = new pg.Pool({ connectionString: server.url, max: 10 });
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await otherPool?.end();
    await server?.stop();
  });

  /** The live keys of `table` and their values. */
  const contents = async (table: string): Promise<Record<string, string>> => {
    const { rows } = await pool.query<{ key: string; value: string }>(
      `SELECT key, value FROM ${table} WHERE expires_at > clock_timestamp() ORDER BY key`,
    );
    return Object.fromEntries(rows.map(({ key, value }) => [key, value]));
  };

  it('answers each call of a tick as it answers alone, and leaves the same rows', async () => {
    const batched = postgresStore(pool, { table: 'dts_batch_together' });
    const oneByOne = postgresStore(pool, { table: 'dts_batch_alone' });
    await Promise.all([batched.ready(), oneByOne.ready()]);
    await fc.assert(
      fc.asyncProperty(
        fc.array(operation, { maxLength: 3 }),
        fc.array(operation, { minLength: 1, maxLength: 12 }),
        async (before, batch) => {
          await pool.query('TRUNCATE dts_batch_together, dts_batch_alone');
          await expectTickAsAlone(batched, oneByOne, before, batch);
          expect(await contents('dts_batch_together')).toEqual(await contents('dts_batch_alone'));
        },
      ),
      { numRuns: 80 },
    );
  });

  it('sends the takes, records and releases of one tick as one statement each, and one alone as its own', async () => {
    const sent: string[] = [];
    const counting = {
      totalCount: 0,
      query: (statement: string | PostgresNamedQuery, values?: unknown[]) => {
        const { text, values: bound = values } =
          typeof statement === 'string' ? { text: statement } : statement;
        const kind = text.includes('FOR UPDATE')
          ? 'record'
          : text.includes('INSERT')
            ? 'take'
            : text.includes('DELETE')
              ? 'release'
              : 'read';
        const first = bound?.[0];
        const size = Array.isArray(first) ? first.length : undefined;
        sent.push(size === undefined ? kind : `${kind} × ${size}`);
        return pool.query(text, bound);
      },
    };
    const store = postgresStore(counting, { table: 'dts_batch_count' });
    await store.ready();
    sent.length = 0;
    const taken = await takeInOneTick(store, ['a', 'b', 'c', 'a']);
    // The second take of lease:a waits for the batch of the first, then finds it taken.
    expect(taken).toEqual([
      [true, undefined],
      [true, undefined],
      [true, undefined],
      [false, undefined],
    ]);
    const [recorded, released] = await Promise.all([
      recordInOneTick(store, ['a', 'b']),
      store.delete('lease:c', 'token'),
    ]);
    expect(recorded).toEqual(['set', 'set']);
    expect(released).toBe(true);
    expect(await Promise.all(['x', 'y'].map((key) => store.delete(`lease:${key}`, 'token')))).toEqual([
      false,
      false,
    ]);
    expect(await store.setIfAbsentThenGet?.('lease:a', 'next', 60_000, 'task:a')).toEqual([true, 'seen']);
    expect(sent).toEqual([
      'take × 3',
      // No record row in the take's snapshot: read again (one may have been committed since), together.
      'read × 3',
      // The second take of lease:a, alone after the first's batch.
      'take',
      // The records of one tick in one statement, the release beside them in its own.
      'record × 2',
      'release',
      'release × 2',
      'take',
    ]);
  });

  it('rejects only the call PostgreSQL refuses, the others of its tick answered alone', async () => {
    const store = postgresStore(pool, { table: 'dts_batch_refused' });
    await store.ready();
    const secret = `seller-${randomUUID()}`;
    const [refused, taken, other] = await Promise.allSettled([
      // PostgreSQL's text holds no NUL character: the whole statement is refused.
      store.setIfAbsentThenGet?.(`lease:${secret}`, 'tok\u0000en', 60_000, `task:${secret}`),
      store.setIfAbsentThenGet?.('lease:other', 'token', 60_000, 'task:other'),
      store.setIfAbsentThenGet?.('lease:third', 'token', 60_000, 'task:third'),
    ]);
    expect(refused.status).toBe('rejected');
    const reason = refused.status === 'rejected' ? (refused.reason as Error) : undefined;
    expect(reason?.message).toMatch(/0x00/);
    expect(String(reason?.message)).not.toContain(secret);
    expect(taken).toEqual({ status: 'fulfilled', value: [true, undefined] });
    expect(other).toEqual({ status: 'fulfilled', value: [true, undefined] });
    expect(await contents('dts_batch_refused')).toEqual({ 'lease:other': 'token', 'lease:third': 'token' });
  });

  it('takes each lease once when two processes batch the same leases in opposite orders, without a deadlock', async () => {
    const stores = [pool, otherPool].map((each) => postgresStore(each, { table: 'dts_batch_race' }));
    await stores[0]?.ready();
    for (let round = 0; round < 20; round++) {
      const keys = Array.from({ length: 12 }, (_, index) => `lease:${round}:${index}`);
      const results = await Promise.all(
        stores.map((store, side) =>
          Promise.all(
            (side === 0 ? keys : [...keys].reverse()).map(async (key) => {
              const [takenHere, record] =
                (await store.setIfAbsentThenGet?.(key, `side${side}`, 60_000, `task:${key}`)) ?? [];
              if (takenHere !== true) return undefined;
              if (record !== undefined) {
                // Taken after the other side let it go: its record is read, so the task is not done twice.
                expect(record).toBe('done');
                expect(await store.delete(key, `side${side}`)).toBe(true);
                return undefined;
              }
              // The record written and the lease let go in the next tick's batch, while the other side takes.
              const written = await store.compareAndSetReleasing?.(`task:${key}`, undefined, 'done', 60_000, {
                key,
                value: `side${side}`,
                orAbsent: false,
              });
              return [key, written] as const;
            }),
          ),
        ),
      );
      const done = results.flat().filter((entry) => entry !== undefined);
      // Each task done by one side only: its lease taken there, its record written there.
      expect(done.map(([key]) => key).sort()).toEqual([...keys].sort());
      expect(done.every(([, written]) => written === 'set')).toBe(true);
      const recorded = await contents('dts_batch_race');
      for (const key of keys) expect(recorded[`task:${key}`]).toBe('done');
    }
  });
});
