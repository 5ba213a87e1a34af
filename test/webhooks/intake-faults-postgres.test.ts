/**
 * Durable intake over PostgreSQL through store faults (README "Running several instances";
 * docs/several-instances.md § "Durable intake", "When the store fails"): PostgreSQL stopped with
 * `pg_ctl stop -m immediate` and started again. The attack is `store-fault-attack.ts`.
 */
import { randomUUID } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import pg from 'pg';
import { expect, it } from 'vitest';
import { postgresInbox, postgresStore } from '../../src/postgres.js';
import { describeWithPostgres, usePostgresServer } from '../support/postgres-server.js';
import { attack, type Backend, check, type Fault, silent } from './store-fault-attack.js';

describeWithPostgres('durable intake over PostgreSQL through store faults', () => {
  const postgres = usePostgresServer();

  it('attaches an error listener to a pool that has none (an idle client dropped by the server cannot end the process)', async () => {
    const pool = new pg.Pool({ connectionString: postgres.server().url, max: 2 });
    try {
      expect(pool.listenerCount('error')).toBe(0);
      postgresStore(pool, { table: 'listener_store' });
      expect(pool.listenerCount('error')).toBe(1);
      postgresInbox(pool, { table: 'listener_inbox' });
      expect(pool.listenerCount('error')).toBe(1);
      const own = new pg.Pool({ connectionString: postgres.server().url, max: 1 });
      const mine = () => {};
      own.on('error', mine);
      postgresStore(own, { table: 'listener_store' });
      postgresInbox(own, { table: 'listener_inbox' });
      expect(own.listeners('error')).toEqual([mine]);
      await own.end();
      // What the pool does with an idle client's error: emits it, which throws without a listener.
      expect(() =>
        (pool as unknown as EventEmitter).emit('error', new Error('terminating connection')),
      ).not.toThrow();
    } finally {
      await pool.end();
    }
  });

  it('processes each event once and in order across `pg_ctl stop -m immediate` and a start, with pools built without an error listener', async () => {
    const { crash, start } = postgres.server();
    if (crash === undefined || start === undefined) return; // DATABASE_URL: never stopped
    const name = `faults_${randomUUID().replaceAll('-', '').slice(0, 8)}`;
    const backend = (): Backend => {
      // As docs/several-instances.md showed it: no error listener of our own.
      const pool = new pg.Pool({
        connectionString: postgres.server().url,
        max: 6,
        connectionTimeoutMillis: 500,
        // A commit acknowledged must survive the crash, as on a production server (the test server turns it off).
        options: '-c synchronous_commit=on',
      });
      return {
        store: postgresStore(pool, { table: `${name}_store`, logger: silent }),
        inbox: postgresInbox(pool, {
          table: `${name}_inbox`,
          visibilityTimeoutMs: 20_000,
          logger: silent,
        }),
        close: () => pool.end(),
      };
    };
    let down = false;
    const fault: Fault = {
      start: async () => {
        down = true;
        await crash();
      },
      end: async () => {
        if (!down) return;
        down = false;
        await start();
      },
    };
    check('PostgreSQL stop -m immediate 3 s', await attack(backend, fault, 3000));
  }, 120_000);
});
