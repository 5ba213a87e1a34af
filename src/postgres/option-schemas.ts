/**
 * The shapes of `PostgresStoreOptions` and `PostgresInboxOptions` as schemas, defaults included, read by
 * `readOptions` in `postgresStore` and `postgresInbox`.
 * @module
 */
import * as z from 'zod/mini';
import type { Logger } from '../core/options.js';
import { accepted, flag, optionsObject, upTo } from '../internal/option-checks.js';

const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$/;

/** A table name: letters, digits and `_`, optionally `schema.table`. */
const table = z.optional(
  accepted<string>(
    (value) => typeof value === 'string' && TABLE_NAME.test(value),
    'a table name of letters, digits and _ (optionally schema.table)',
  ),
);

const logger = z.optional(z.custom<Logger>());

/** The options of `postgresStore`, their defaults applied. */
export const PostgresStoreOptionsSchema = optionsObject(
  { table, createTable: flag, logger, preparedStatements: flag },
  { table: 'dts_store', createTable: true, preparedStatements: true },
);

/** The options of `postgresInbox`, their defaults applied. */
export const PostgresInboxOptionsSchema = optionsObject(
  {
    table,
    createTable: flag,
    maxEntries: upTo(1),
    retentionMs: upTo(0),
    visibilityTimeoutMs: upTo(1),
    maxAttempts: upTo(1),
    logger,
    preparedStatements: flag,
  },
  {
    table: 'dts_inbox',
    createTable: true,
    maxEntries: 1_000_000,
    retentionMs: 900_000,
    visibilityTimeoutMs: 60_000,
    maxAttempts: 5,
    preparedStatements: true,
  },
);
