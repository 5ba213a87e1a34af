/** `redisStore`: the `DeliveryStore` over Redis (README "Running several instances"). @module */
import type { DeliveryStore } from '../core/store.js';
import { readOptions } from '../internal/read-options.js';
import { tickBatch } from '../internal/tick-batch.js';
import {
  asArray,
  commandSender,
  isClusterClient,
  isOne,
  type RedisClientLike,
  type RedisWarningLogger,
  type SendCommand,
  scalarText,
  textReply,
} from './commands.js';
import { RedisStoreOptionsSchema } from './option-schemas.js';
import {
  COMPARE_AND_DELETE,
  COMPARE_AND_SET,
  COMPARE_AND_SET_RELEASING,
  evalScript,
  SET_IF_ABSENT_THEN_GET,
  STORE_BATCH,
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
 * rejects there (a create sends nothing), never at `redisStore()`. Calls made without waiting run in call
 * order, each atomic and answered as alone; on a single node the calls made in one tick go out together,
 * as one script when two or more of them need a script, else each as its own command (GET, SET NX, DEL)
 * (docs/several-instances.md "Draining a peak"). Its scripts go as EVAL, never EVALSHA, so a Redis that
 * lost its scripts (a restart, a failover) never makes a call go again after the calls that followed it.
 * @param client A connected ioredis (5, 6) or node-redis (`redis` 5, 6) client or cluster; never closed.
 * @throws {ConfigurationError} for `client` (neither library) or `prefix`.
 */
export function redisStore(client: RedisClientLike, options: RedisStoreOptions = {}): RedisStore {
  const raw = commandSender(client, 'redisStore');
  const { prefix, logger } = readOptions(RedisStoreOptionsSchema, options);
  const check = settingsCheck(client, raw, {
    owner: 'redisStore',
    ttlKeys: true,
    persistence: false,
    logger: logger ?? console,
  });
  // Every call waits for the check. Calls made before it passed go out in call order once it has; only
  // when the last of them went out does a command go out at once, so no later call overtakes them.
  let checked = false;
  let waiting = 0;
  const ready = (): Promise<void> =>
    checked
      ? Promise.resolve()
      : check().then(() => {
          checked ||= waiting === 0;
        });
  const send: SendCommand = (key, command, ...args) => {
    if (!checked) {
      waiting++;
      return check().then(
        () => {
          waiting--;
          checked ||= waiting === 0;
          return raw(key, command, ...args);
        },
        (error: unknown) => {
          waiting--;
          throw error;
        },
      );
    }
    try {
      return raw(key, command, ...args);
    } catch (error) {
      return Promise.reject(error);
    }
  };
  const batched = isClusterClient(client) ? undefined : storeBatch(send);
  /** `op` in the tick's batch where there is one (a single node), else alone by `alone`. */
  const run = (op: Omit<BatchedOperation, 'alone'>, alone: () => Promise<unknown>): Promise<unknown> =>
    batched === undefined ? alone() : batched({ ...op, alone });
  return {
    ready,
    setIfAbsent: async (key, value, ttlMs) => {
      const ttl = ttlArgument(ttlMs);
      const reply = await run({ keys: [prefix + key], args: ['S', value, ttl] }, () =>
        send(prefix + key, 'SET', prefix + key, value, 'PX', ttl, 'NX'),
      );
      // 1 from the batch's script, OK from SET alone.
      return isOne(reply) || scalarText(reply) === 'OK';
    },
    get: async (key) =>
      textReply(
        await run({ keys: [prefix + key], args: ['G'] }, () => send(prefix + key, 'GET', prefix + key)),
        'GET',
      ),
    compareAndSet: async (key, expected, value, ttlMs) => {
      const args = [value, ttlArgument(ttlMs)];
      const batchArgs = ['C', ...args, expected === undefined ? '0' : '1', expected ?? ''];
      if (expected !== undefined) args.push(expected);
      return isOne(
        await run({ keys: [prefix + key], args: batchArgs }, () =>
          evalScript(send, COMPARE_AND_SET, prefix + key, args),
        ),
      );
    },
    delete: async (key, expected) =>
      isOne(
        expected === undefined
          ? await run({ keys: [prefix + key], args: ['X'] }, () => send(prefix + key, 'DEL', prefix + key))
          : await run({ keys: [prefix + key], args: ['D', expected] }, () =>
              evalScript(send, COMPARE_AND_DELETE, prefix + key, [expected]),
            ),
      ),
    setIfAbsentThenGet: async (key, value, ttlMs, readKey) => {
      const args = [value, ttlArgument(ttlMs)];
      const keys = [prefix + key, prefix + readKey] as const;
      const reply = await run({ keys, args: ['L', ...args] }, () =>
        evalScript(send, SET_IF_ABSENT_THEN_GET, keys[0], args, [keys[1]]),
      );
      const [stored, read] = Array.isArray(reply) ? reply : [];
      return isOne(stored) ? [true, textReply(read, 'GET')] : [false, undefined];
    },
    compareAndSetReleasing: async (key, expected, value, ttlMs, fence) => {
      const args = [value, ttlArgument(ttlMs), fence.value, fence.orAbsent ? '1' : '0'];
      const keys = [prefix + key, prefix + fence.key] as const;
      const batchArgs = ['R', ...args, expected === undefined ? '0' : '1', expected ?? ''];
      if (expected !== undefined) args.push(expected);
      const reply = textReply(
        await run({ keys, args: batchArgs }, () =>
          evalScript(send, COMPARE_AND_SET_RELEASING, keys[0], args, [keys[1]]),
        ),
        'compareAndSetReleasing',
      );
      if (reply === 'set' || reply === 'fenced' || reply === 'changed') return reply;
      throw new Error(`redisStore: unexpected reply to compareAndSetReleasing`);
    },
  };
}

/** One operation of {@link STORE_BATCH}: its keys, its code followed by its arguments, and its own call. */
interface BatchedOperation {
  readonly keys: readonly string[];
  readonly args: readonly string[];
  readonly alone: () => Promise<unknown>;
}

/** Operation codes of {@link STORE_BATCH} that Redis has a command for: GET, SET NX, DEL. */
const PLAIN_OPERATIONS: ReadonlySet<string | undefined> = new Set(['G', 'S', 'X']);

/**
 * The store calls made in one tick of the event loop, sent at once in call order (each atomic, as alone; a
 * refused one rejects alone), at most 256 together: by one {@link STORE_BATCH} call when two or more of
 * them need a script, else each by its own command (a GET, SET NX or DEL costs Redis a few µs, a script
 * call 15–90 µs however small). One alone in its tick goes by its own command. Single node only: a
 * cluster's keys of one call span slots.
 */
function storeBatch(send: SendCommand): (operation: BatchedOperation) => Promise<unknown> {
  return tickBatch<BatchedOperation, unknown>({
    max: 256,
    alone: (operation) => operation.alone(),
    together: async (batch) => {
      if (batch.filter(({ args }) => !PLAIN_OPERATIONS.has(args[0])).length < 2) {
        // Handed to the client one after another in this turn: one connection runs them in this order.
        const settled = await Promise.allSettled(batch.map((operation) => operation.alone()));
        return settled.map((outcome) =>
          outcome.status === 'fulfilled' ? { value: outcome.value } : { error: outcome.reason },
        );
      }
      const [first, ...otherKeys] = batch.flatMap(({ keys }) => keys);
      const replies = asArray(
        await evalScript(
          send,
          STORE_BATCH,
          first ?? '',
          batch.flatMap(({ args }) => args),
          otherKeys,
        ),
      );
      return batch.map((_, index) => {
        const reply = replies[index];
        return Array.isArray(reply) && reply[0] === '!'
          ? { error: new Error(textReply(reply[1], 'redisStore') ?? 'refused') }
          : { value: reply };
      });
    },
  });
}

/** `ttlMs` as Redis's PX argument: whole ms, at least 1. */
function ttlArgument(ttlMs: number): string {
  if (!Number.isFinite(ttlMs))
    throw new RangeError(`redisStore: ttlMs must be a finite number of ms, got ${ttlMs}`);
  return String(Math.max(1, Math.ceil(ttlMs)));
}
