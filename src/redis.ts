/**
 * `delivery-task-sdk/redis`: {@link redisStore}, the {@link DeliveryStore} over Redis that several
 * instances of a service share (README "Running several instances"; design § "Turn-2 additions" →
 * "Shared state"). The main entry never loads this module.
 *
 * It takes a connected client of either common library, told apart by shape: ioredis 5 or 6 (its
 * `call(command, ...args)`) and node-redis, the `redis` package 5 or 6 (its `sendCommand(args)`). It
 * imports neither library, not even their types, so neither is installed for merchants who use the
 * other (both are optional peer dependencies).
 *
 * ```ts
 * import { DeliveryClient } from 'delivery-task-sdk';
 * import { redisStore } from 'delivery-task-sdk/redis';
 * import Redis from 'ioredis';
 *
 * const store = redisStore(new Redis(process.env.REDIS_URL), { prefix: 'dts:' });
 * const client = new DeliveryClient({ store });
 * ```
 * @module
 */
import { ConfigurationError } from './errors.js';
import type { DeliveryStore } from './store.js';

/**
 * An ioredis client (`Redis` or `Cluster`, ioredis 5 or 6), by the one method {@link redisStore}
 * uses: `call(command, ...args)`, which sends a raw command and resolves with its reply.
 */
export interface IoredisClientLike {
  call(command: string, ...args: string[]): Promise<unknown>;
}

/**
 * A node-redis client (`createClient()` of the `redis` package 5 or 6, connected), by the one method
 * {@link redisStore} uses: `sendCommand(args)`, which sends a raw command (`['GET', key]`) and
 * resolves with its reply. node-redis's cluster client has another `sendCommand` and is not accepted.
 */
export interface NodeRedisClientLike {
  sendCommand(args: readonly string[]): Promise<unknown>;
}

/** A client {@link redisStore} accepts: ioredis ({@link IoredisClientLike}) or node-redis ({@link NodeRedisClientLike}). */
export type RedisClientLike = IoredisClientLike | NodeRedisClientLike;

/** Options of {@link redisStore}. */
export interface RedisStoreOptions {
  /**
   * Text put before every key the store writes or reads, so several applications (or several
   * environments) can share one Redis database without meeting: keys become `<prefix>v1:<seller id>:…`.
   * Any string, `''` included. Default `'dts:'`.
   * @throws {ConfigurationError} from {@link redisStore} (`option: 'prefix'`) when not a string.
   */
  prefix?: string;
}

/** Sends one raw command; rejects with the library's error. */
type SendCommand = (command: string, ...args: string[]) => Promise<unknown>;

/** A Lua script, sent by its SHA-1 once Redis knows it (EVALSHA), by its text otherwise (EVAL). */
interface LuaScript {
  readonly source: string;
  /** SHA-1 of `source` in hex, computed on first use; `undefined` when Web Crypto is missing. */
  sha?: Promise<string | undefined>;
}

/**
 * Replaces the value of `KEYS[1]` with `ARGV[1]` for `ARGV[2]` ms when its value is `ARGV[3]`, or when
 * the key is absent and no `ARGV[3]` is given. Returns 1 when it replaced the value, 0 otherwise.
 */
const COMPARE_AND_SET: LuaScript = {
  source: `local current = redis.call('GET', KEYS[1])
if current ~= (ARGV[3] or false) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`,
};

/** Deletes `KEYS[1]` when its value is `ARGV[1]`. Returns the number of keys deleted (1 or 0). */
const COMPARE_AND_DELETE: LuaScript = {
  source: `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])`,
};

const DEFAULT_PREFIX = 'dts:';

/**
 * A {@link DeliveryStore} in Redis, shared by every process that uses the same Redis database and
 * `prefix`: the SDK's guarantees (one task per order, webhook deduplication, the sync checkpoint) then
 * hold across instances, not just within one. Design § "Turn-2 additions" → "Shared state".
 *
 * Each operation is one atomic Redis command: `SET key value PX ttl NX` (setIfAbsent), `GET`, and Lua
 * scripts for compareAndSet and for delete with an expected value (sent with EVALSHA, falling back to
 * EVAL when Redis answers NOSCRIPT, e.g. after a restart); an unconditional delete is `DEL`. Every
 * write sets a TTL: keys never outlive it. TTLs are whole milliseconds, at least 1 (fractions round up).
 * Each command touches a single key.
 *
 * Failures are rejections: the library's error as it comes (ioredis's copy of the command's arguments,
 * which hold the key and so the seller id, is removed first); a TTL that is not a finite number rejects
 * with a `RangeError`. The client the SDK builds around the store turns any of them, and a call
 * slower than its store timeout, into `StoreUnavailableError`. The store never closes `client`.
 *
 * Commands sent while Redis is unreachable wait in the library's offline queue by default (both
 * libraries), so they may still run after the SDK has reported `StoreUnavailableError` for them;
 * `enableOfflineQueue: false` (ioredis) or `disableOfflineQueue: true` (node-redis) makes them fail at
 * once instead.
 *
 * @param client A connected ioredis client (5 or 6) or node-redis client (`redis` 5 or 6).
 * @param options `prefix`, default `'dts:'`.
 * @throws {ConfigurationError} `option: 'client'` when `client` has neither `call` (ioredis) nor
 *   `sendCommand` (node-redis); `option: 'prefix'` when `prefix` is given and not a string.
 */
export function redisStore(client: RedisClientLike, options: RedisStoreOptions = {}): DeliveryStore {
  const send = commandSender(client);
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  if (typeof prefix !== 'string') {
    throw new ConfigurationError('prefix', `Invalid prefix of redisStore: expected a string, got ${typeof prefix}`);
  }
  return {
    setIfAbsent: async (key, value, ttlMs) =>
      textReply(await send('SET', prefix + key, value, 'PX', ttlArgument(ttlMs), 'NX'), 'SET') === 'OK',
    get: async (key) => textReply(await send('GET', prefix + key), 'GET'),
    compareAndSet: async (key, expected, value, ttlMs) => {
      const args = [value, ttlArgument(ttlMs)];
      if (expected !== undefined) args.push(expected);
      return isOne(await runScript(send, COMPARE_AND_SET, prefix + key, args));
    },
    delete: async (key, expected) =>
      isOne(
        expected === undefined
          ? await send('DEL', prefix + key)
          : await runScript(send, COMPARE_AND_DELETE, prefix + key, [expected]),
      ),
  };
}

/** The raw-command function of `client`, by shape: ioredis's `call` first (ioredis also has a `sendCommand`, of its own kind). */
function commandSender(client: unknown): SendCommand {
  if (typeof client === 'object' && client !== null) {
    const { call, sendCommand } = client as Partial<IoredisClientLike & NodeRedisClientLike>;
    if (typeof call === 'function') {
      return (command, ...args) => call.call(client, command, ...args).catch(withoutCommandArguments);
    }
    if (typeof sendCommand === 'function') return (...args) => sendCommand.call(client, args);
  }
  throw new ConfigurationError(
    'client',
    'Invalid client of redisStore: expected a connected ioredis client (with call) or node-redis client (with sendCommand)',
  );
}

/**
 * Rethrows `error` without the arguments ioredis copies onto it (`error.command.args`: the key, which
 * holds the seller id, and the value), keeping the command's name.
 */
function withoutCommandArguments(error: unknown): never {
  if (typeof error === 'object' && error !== null && 'command' in error) {
    const { command } = error as { command: unknown };
    const name = typeof command === 'object' && command !== null ? (command as { name?: unknown }).name : undefined;
    try {
      (error as { command: unknown }).command = { name };
    } catch {
      // A frozen error keeps its field; nothing else to do.
    }
  }
  throw error;
}

/** `ttlMs` as Redis's PX argument: whole ms, at least 1. */
function ttlArgument(ttlMs: number): string {
  if (!Number.isFinite(ttlMs)) throw new RangeError(`redisStore: ttlMs must be a finite number of ms, got ${ttlMs}`);
  return String(Math.max(1, Math.ceil(ttlMs)));
}

/** A bulk-string reply as text: `undefined` for nil, UTF-8 for bytes (a client mapping replies to Buffers). */
function textReply(reply: unknown, command: string): string | undefined {
  if (reply === null || reply === undefined) return undefined;
  if (typeof reply === 'string') return reply;
  if (reply instanceof Uint8Array) return new TextDecoder().decode(reply);
  throw new TypeError(`redisStore: unexpected reply to ${command} (${typeof reply})`);
}

/** True for the integer reply 1, however the client maps integers (number, bigint or text). */
const isOne = (reply: unknown): boolean => reply === 1 || reply === 1n || reply === '1';

/** Runs `script` on one key: EVALSHA, or EVAL when Redis does not know the script (NOSCRIPT) or no SHA-1 is at hand. */
async function runScript(send: SendCommand, script: LuaScript, key: string, args: readonly string[]): Promise<unknown> {
  script.sha ??= sha1Hex(script.source);
  const sha = await script.sha;
  if (sha !== undefined) {
    try {
      return await send('EVALSHA', sha, '1', key, ...args);
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) throw error;
    }
  }
  return send('EVAL', script.source, '1', key, ...args);
}

/** SHA-1 of `text` in hex, by Web Crypto (Node ≥ 19, Bun, Deno); `undefined` where it is missing. */
async function sha1Hex(text: string): Promise<string | undefined> {
  try {
    const digest = await globalThis.crypto.subtle.digest('SHA-1', new TextEncoder().encode(text));
    return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
  } catch {
    return undefined;
  }
}
