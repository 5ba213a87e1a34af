import pg from 'pg';
import { expect, it } from 'vitest';
import { describeWithPostgres, startPostgresServer } from '../support/postgres-server.js';

describeWithPostgres('the throwaway PostgreSQL of the tests', () => {
  it('starts on a free port, answers a query, and is gone once stopped', async () => {
    const server = await startPostgresServer();
    const pool = new pg.Pool({ connectionString: server.url, max: 1 });
    try {
      const { rows } = await pool.query<{ one: number }>('select 1 as one');
      expect(rows[0]?.one).toBe(1);
    } finally {
      await pool.end();
    }
    await server.stop();
    if (process.env.DATABASE_URL === undefined) {
      const probe = new pg.Client({ connectionString: server.url, connectionTimeoutMillis: 2000 });
      await expect(probe.connect()).rejects.toThrow();
    }
  }, 60_000);
});
