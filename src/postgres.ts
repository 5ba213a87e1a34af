/**
 * `delivery-task-sdk/postgres`: {@link postgresStore}, the `DeliveryStore` over PostgreSQL, and
 * {@link postgresInbox}, the webhook handler's durable inbox there (README "Running several instances";
 * docs/several-instances.md). Both take the merchant's `pg` (≥ 8) `Pool` or connected `Client` by its
 * `query(text, values)`; nothing of `pg` is imported (an optional peer dependency). The main entry never
 * loads it.
 *
 * ```ts
 * import { DeliveryClient } from 'delivery-task-sdk';
 * import { postgresStore } from 'delivery-task-sdk/postgres';
 * import pg from 'pg';
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const store = postgresStore(pool);
 * await store.ready(); // at boot: creates the table (or checks it, with createTable: false)
 * const client = new DeliveryClient({ store });
 * ```
 * @module delivery-task-sdk/postgres
 */
export { type PostgresInbox, type PostgresInboxOptions, postgresInbox } from './postgres/inbox.js';
export type { PostgresNamedQuery, PostgresQueryable } from './postgres/pool.js';
export { type PostgresStore, type PostgresStoreOptions, postgresStore } from './postgres/store.js';
