/** `redisStore`: the `DeliveryStore` over Redis (README "Running several instances"). @module */
import { ConfigurationError } from '../core/errors.js';
import type { DeliveryStore } from '../core/store.js';
import {
  commandSender,
  guardedAgainstEviction,
  isOne,
  type RedisClientLike,
  type RedisWarningLogger,
  textReply,
} from './commands.js';
import {
  COMPARE_AND_DELETE,
  COMPARE_AND_SET,
  COMPARE_AND_SET_RELEASING,
  runScript,
  SET_IF_ABSENT_THEN_GET,
} from './scripts.js';

/** Options of {@link redisStore}. */
export interface RedisStoreOptions {
  /** Put before every key (`<prefix>v2:<base URL>:<seller id>:…`), so apps can share a database. Default `'dts:'`. */
  prefix?: string;
  /** Where the one warning about an unreadable or `volatile-*` eviction policy goes. Default `console`. */
  logger?: RedisWarningLogger;
}

const DEFAULT_PREFIX = 'dts:';

/**
 * A `DeliveryStore` in Redis shared per database and `prefix` (docs/several-instances.md "Redis settings").
 * @param client A connected ioredis (5, 6) or node-redis (`redis` 5, 6) client or cluster; never closed.
 * @throws {ConfigurationError} for `client` (neither library), `prefix`, or an `allkeys-*` `maxmemory-policy`.
 */
export function redisStore(client: RedisClientLike, options: RedisStoreOptions = {}): DeliveryStore {
  const raw = commandSender(client, 'redisStore');
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  if (typeof prefix !== 'string') {
    throw new ConfigurationError('prefix', `Invalid prefix of redisStore: expected a string, got ${typeof prefix}`);
  }
  const send = guardedAgainstEviction(raw, 'redisStore', true, options.logger ?? console);
  return {
    setIfAbsent: async (key, value, ttlMs) =>
      textReply(await send(prefix + key, 'SET', prefix + key, value, 'PX', ttlArgument(ttlMs), 'NX'), 'SET') === 'OK',
    get: async (key) => textReply(await send(prefix + key, 'GET', prefix + key), 'GET'),
    compareAndSet: async (key, expected, value, ttlMs) => {
      const args = [value, ttlArgument(ttlMs)];
      if (expected !== undefined) args.push(expected);
      return isOne(await runScript(send, COMPARE_AND_SET, prefix + key, args));
    },
    delete: async (key, expected) =>
      isOne(
        expected === undefined
          ? await send(prefix + key, 'DEL', prefix + key)
          : await runScript(send, COMPARE_AND_DELETE, prefix + key, [expected]),
      ),
    setIfAbsentThenGet: async (key, value, ttlMs, readKey) => {
      const reply = await runScript(
        send,
        SET_IF_ABSENT_THEN_GET,
        prefix + key,
        [value, ttlArgument(ttlMs)],
        [prefix + readKey],
      );
      const [stored, read] = Array.isArray(reply) ? reply : [];
      return isOne(stored) ? [true, textReply(read, 'GET')] : [false, undefined];
    },
    compareAndSetReleasing: async (key, expected, value, ttlMs, fence) => {
      const args = [value, ttlArgument(ttlMs), fence.value, fence.orAbsent ? '1' : '0'];
      if (expected !== undefined) args.push(expected);
      const reply = textReply(
        await runScript(send, COMPARE_AND_SET_RELEASING, prefix + key, args, [prefix + fence.key]),
        'compareAndSetReleasing',
      );
      if (reply === 'set' || reply === 'fenced' || reply === 'changed') return reply;
      throw new Error(`redisStore: unexpected reply to compareAndSetReleasing`);
    },
  };
}

/** `ttlMs` as Redis's PX argument: whole ms, at least 1. */
function ttlArgument(ttlMs: number): string {
  if (!Number.isFinite(ttlMs)) throw new RangeError(`redisStore: ttlMs must be a finite number of ms, got ${ttlMs}`);
  return String(Math.max(1, Math.ceil(ttlMs)));
}
