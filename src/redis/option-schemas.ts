/**
 * The shapes of `RedisStoreOptions` and `RedisInboxOptions` as schemas, defaults included, read by
 * `readOptions` in `redisStore` and `redisInbox`.
 * @module
 */
import * as z from 'zod/mini';
import { accepted, flag, optionsObject, upTo } from '../internal/option-checks.js';
import type { RedisWarningLogger } from './commands.js';
import type { RedisInboxOptions } from './inbox-options.js';

/** Text of one character or more. */
const name = z.optional(
  accepted<string>((value) => typeof value === 'string' && value !== '', 'a non-empty string'),
);

const logger = z.optional(z.custom<RedisWarningLogger>());

/** The options of `redisStore`: `prefix` default `'dts:'` (may be empty). */
export const RedisStoreOptionsSchema = optionsObject(
  { prefix: z.optional(accepted<string>((value) => typeof value === 'string', 'a string')), logger },
  { prefix: 'dts:' },
);

/** The options of `redisInbox`, their documented defaults applied. */
export const RedisInboxOptionsSchema = optionsObject(
  {
    stream: name,
    group: name,
    maxEntries: upTo(1),
    retentionMs: upTo(0),
    visibilityTimeoutMs: upTo(1),
    maxAttempts: upTo(1),
    maxFailed: upTo(1),
    waitAof: z.optional(z.custom<NonNullable<RedisInboxOptions['waitAof']>>()),
    volatile: flag,
    logger,
  },
  {
    stream: 'dts:events',
    group: 'dts-workers',
    maxEntries: 1_000_000,
    retentionMs: 900_000,
    visibilityTimeoutMs: 60_000,
    maxAttempts: 5,
    maxFailed: 10_000,
    volatile: false,
  },
);
