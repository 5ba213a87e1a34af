/** `redisStore`: the `DeliveryStore` over Redis (README "Running several instances"). @module */
import type { DeliveryStore } from '../core/store.js';
import { readOptions } from '../internal/read-options.js';
import {
  commandSender,
  isOne,
  type RedisClientLike,
  type RedisWarningLogger,
  type SendCommand,
  textReply,
} from './commands.js';
import { RedisStoreOptionsSchema } from './option-schemas.js';
import {
  COMPARE_AND_DELETE,
  COMPARE_AND_SET,
  COMPARE_AND_SET_RELEASING,
  runScript,
  SET_IF_ABSENT_THEN_GET,
} from './scripts.js';
import { settingsCheck } from './settings.js';

/** Options of {@link redisStore}. */
export interface RedisStoreOptions {
  /**
   * Put before every key (`<prefix>v2:<base URL>:<seller id>:…`), so apps can share a database. Default
   * `'dts:'`.
   */
  prefix?: string;
  /** Where the one warning about an unreadable or `volatile-*` eviction policy goes. Default `console`. */
  logger?: RedisWarningLogger;
}

/** What {@link redisStore} returns: a `DeliveryStore` with its start-up check. */
export interface RedisStore extends DeliveryStore {
  /**
   * Reads the Redis's `maxmemory-policy` (every master of a cluster) once; await it at boot. Every store
   * call awaits it first, so without it the first create or webhook runs it. `volatile-*`: one warning;
   * `CONFIG` refused (renamed, ACL, some managed Redis): one warning, and it resolves.
   * @throws {ConfigurationError} `option: 'maxmemory-policy'` under an `allkeys-*` policy (read again at the
   * next call).
   * @throws the client's error when Redis cannot be reached (run again at the next call).
   */
  ready(): Promise<void>;
}

/**
 * A `DeliveryStore` in Redis shared per database and `prefix` (docs/several-instances.md "Redis settings").
 * Its eviction policy is checked by {@link RedisStore.ready}, which every call awaits: an `allkeys-*` policy
 * rejects there (a create sends nothing), never at `redisStore()`.
 * @param client A connected ioredis (5, 6) or node-redis (`redis` 5, 6) client or cluster; never closed.
 * @throws {ConfigurationError} for `client` (neither library) or `prefix`.
 */
export function redisStore(client: RedisClientLike, options: RedisStoreOptions = {}): RedisStore {
  const raw = commandSender(client, 'redisStore');
  const { prefix, logger } = readOptions(RedisStoreOptionsSchema, options);
  const ready = settingsCheck(client, raw, {
    owner: 'redisStore',
    ttlKeys: true,
    persistence: false,
    logger: logger ?? console,
  });
  const send: SendCommand = async (key, command, ...args) => {
    await ready();
    return raw(key, command, ...args);
  };
  return {
    ready,
    setIfAbsent: async (key, value, ttlMs) =>
      textReply(
        await send(prefix + key, 'SET', prefix + key, value, 'PX', ttlArgument(ttlMs), 'NX'),
        'SET',
      ) === 'OK',
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
  if (!Number.isFinite(ttlMs))
    throw new RangeError(`redisStore: ttlMs must be a finite number of ms, got ${ttlMs}`);
  return String(Math.max(1, Math.ceil(ttlMs)));
}
