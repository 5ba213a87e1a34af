/**
 * `delivery-task-sdk/redis`: {@link redisStore}, the {@link DeliveryStore} over Redis that several
 * instances of a service share (README "Running several instances"). The main entry never loads this module.
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
 * @module delivery-task-sdk/redis
 */
import { ConfigurationError } from './core/errors.js';
import type { DeliveryStore } from './core/store.js';
import { coalesced } from './internal/coalesce.js';
import type { InboxAppend, InboxEntry, InboxEventSummary, InboxInspection, WebhookInbox } from './webhooks/inbox.js';

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
 * resolves with its reply.
 */
export interface NodeRedisClientLike {
  sendCommand(args: readonly string[]): Promise<unknown>;
}

/**
 * A node-redis cluster client (`createCluster()` of the `redis` package 5 or 6, connected), by what
 * {@link redisStore} uses: its `masters` (which tells it from a single-node client) and
 * `sendCommand(firstKey, isReadonly, args)`, which routes a raw command to the node owning `firstKey`.
 */
export interface NodeRedisClusterLike {
  readonly masters: readonly unknown[];
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: readonly string[]): Promise<unknown>;
}

/**
 * A client {@link redisStore} and {@link redisInbox} accept: ioredis `Redis` or `Cluster`
 * ({@link IoredisClientLike}), node-redis `createClient()` ({@link NodeRedisClientLike}) or
 * `createCluster()` ({@link NodeRedisClusterLike}).
 */
export type RedisClientLike = IoredisClientLike | NodeRedisClientLike | NodeRedisClusterLike;

/** Where the store and the inbox write their one warning (an eviction policy that cannot be read). */
export interface RedisWarningLogger {
  warn(message: string): void;
}

/** Options of {@link redisStore}. */
export interface RedisStoreOptions {
  /**
   * Text put before every key the store writes or reads, so several applications (or several
   * environments) can share one Redis database without meeting: keys become `<prefix>v2:<base URL>:<seller id>:…`.
   * Any string, `''` included. Default `'dts:'`.
   * @throws {ConfigurationError} from {@link redisStore} (`option: 'prefix'`) when not a string.
   */
  prefix?: string;
  /** Where the one warning about an unreadable or `volatile-*` eviction policy goes. Default `console`. */
  logger?: RedisWarningLogger;
}

/**
 * Sends one raw command about `key` (routed to the node owning it on a cluster; `undefined` for a
 * command about no key); rejects with the library's error.
 */
type SendCommand = (key: string | undefined, command: string, ...args: string[]) => Promise<unknown>;

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
 * hold across instances, not just within one. README "Running several instances".
 *
 * Each operation is one atomic Redis command: `SET key value PX ttl NX` (setIfAbsent), `GET`, and Lua
 * scripts for compareAndSet and for delete with an expected value (sent with EVALSHA, falling back to
 * EVAL when Redis answers NOSCRIPT, e.g. after a restart); an unconditional delete is `DEL`. Every
 * write sets a TTL: keys never outlive it. TTLs are whole milliseconds, at least 1 (fractions round up).
 * Each command touches a single key, one round trip per call (the eviction policy is read once, before
 * the first). How durable a write is stays Redis's own setting (`appendfsync`): `durable` is ignored.
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
  };
}

/**
 * `send`, checking the server's `maxmemory-policy` before the first command: an `allkeys-*` policy
 * (Redis may evict any key, a lease or a stored webhook included, under memory pressure) makes every
 * call reject with a {@link ConfigurationError} (`option: 'maxmemory-policy'`); a policy that cannot be
 * read (`CONFIG` disabled, as on some managed Redis) is warned about once and the commands go on. For the
 * store (`ttlKeys`), whose every key has a TTL, a `volatile-*` policy is warned about once too.
 */
function guardedAgainstEviction(
  send: SendCommand,
  owner: string,
  ttlKeys: boolean,
  logger: RedisWarningLogger,
): SendCommand {
  let checked: Promise<void> | undefined;
  const check = async (): Promise<void> => {
    let policy: string | undefined;
    try {
      const reply = await send(undefined, 'CONFIG', 'GET', 'maxmemory-policy');
      policy = policyOf(reply);
    } catch (error) {
      logger.warn(
        `${owner}: could not read the Redis setting maxmemory-policy (${(error as Error)?.message ?? String(error)}); make sure it is noeviction (README "Running several instances")`,
      );
      return;
    }
    if (policy === undefined) {
      logger.warn(`${owner}: could not read the Redis setting maxmemory-policy; make sure it is noeviction`);
    } else if (policy.startsWith('allkeys-')) {
      throw new ConfigurationError(
        'maxmemory-policy',
        `${owner} refuses a Redis whose maxmemory-policy is ${policy}: under memory pressure it evicts any key, leases and records included, which lets an order be created twice or a webhook be lost. Set maxmemory-policy to noeviction (README "Running several instances")`,
      );
    } else if (ttlKeys && policy.startsWith('volatile-')) {
      logger.warn(
        `${owner}: the Redis setting maxmemory-policy is ${policy}, which may evict the store's keys (they all have a TTL) under memory pressure; noeviction is safe`,
      );
    }
  };
  return async (key, command, ...args) => {
    checked ??= check();
    await checked;
    return send(key, command, ...args);
  };
}

/** The policy in a `CONFIG GET maxmemory-policy` reply: `[name, value]` (RESP2) or `{ name: value }` (RESP3). */
function policyOf(reply: unknown): string | undefined {
  if (Array.isArray(reply)) {
    const value: unknown = reply[1];
    return typeof value === 'string'
      ? value
      : value instanceof Uint8Array
        ? new TextDecoder().decode(value)
        : undefined;
  }
  if (reply instanceof Map) {
    const value: unknown = reply.get('maxmemory-policy');
    return typeof value === 'string' ? value : undefined;
  }
  if (typeof reply === 'object' && reply !== null) {
    const value = (reply as Record<string, unknown>)['maxmemory-policy'];
    return typeof value === 'string' ? value : undefined;
  }
  return undefined;
}

/**
 * The raw-command function of `client`, by shape: ioredis's `call` first (ioredis also has a
 * `sendCommand`, of its own kind), then node-redis's cluster (`masters` and a three-argument
 * `sendCommand`, given the key to route by), then node-redis's single-node `sendCommand`.
 */
function commandSender(client: unknown, owner: string): SendCommand {
  if (typeof client === 'object' && client !== null) {
    const { call, sendCommand } = client as Partial<IoredisClientLike & NodeRedisClientLike>;
    if (typeof call === 'function') {
      return (_key, command, ...args) => call.call(client, command, ...args).catch(withoutCommandArguments);
    }
    if (typeof sendCommand === 'function' && 'masters' in client) {
      const clusterSend = sendCommand as unknown as NodeRedisClusterLike['sendCommand'];
      return (key, command, ...args) => clusterSend.call(client, key, false, [command, ...args]);
    }
    if (typeof sendCommand === 'function') return (_key, ...args) => sendCommand.call(client, args);
  }
  throw new ConfigurationError(
    'client',
    `Invalid client of ${owner}: expected a connected ioredis client or cluster (with call), or a node-redis client or cluster (with sendCommand)`,
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

/**
 * Runs `script` on `key` (and `otherKeys`, which must share its hash slot on a cluster): EVALSHA, or EVAL
 * when Redis does not know the script (NOSCRIPT) or no SHA-1 is at hand.
 */
async function runScript(
  send: SendCommand,
  script: LuaScript,
  key: string,
  args: readonly string[],
  otherKeys: readonly string[] = [],
): Promise<unknown> {
  script.sha ??= sha1Hex(script.source);
  const sha = await script.sha;
  const keys = [String(1 + otherKeys.length), key, ...otherKeys];
  if (sha !== undefined) {
    try {
      return await send(key, 'EVALSHA', sha, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) throw error;
    }
  }
  return send(key, 'EVAL', script.source, ...keys, ...args);
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

/** Options of {@link redisInbox}. */
export interface RedisInboxOptions {
  /**
   * The stream's key. On a cluster, failed events go to `<stream>:failed`; name it with a hash tag
   * (`{dts}:events`) to keep both on one node. Default `'dts:events'`.
   */
  stream?: string;
  /** The consumer group the workers read with. Default `'dts-workers'`. */
  group?: string;
  /**
   * Entries the stream holds at most (pending, and done ones not yet trimmed); a webhook beyond is not
   * written and is answered 503. Default 1 000 000; an integer ≥ 1.
   */
  maxEntries?: number;
  /** How long done entries stay in the stream before they are trimmed, ms. Default 900 000 (15 min); an integer ≥ 0. */
  retentionMs?: number;
  /**
   * How long a claimed event stays with its worker, ms; past it, another worker claims it. Must be longer
   * than the handler's `eventTimeoutMs`. Default 60 000; an integer ≥ 1.
   */
  visibilityTimeoutMs?: number;
  /** Claims of one event at most; the next one moves it to the failed events (a poison event). Default 5; an integer ≥ 1. */
  maxAttempts?: number;
  /** Failed events kept at most; beyond, the oldest are dropped (`XADD … MAXLEN`). Default 10 000; an integer ≥ 1. */
  maxFailed?: number;
  /**
   * After each write, wait until the append-only file holds it (`WAITAOF`, Redis ≥ 7.2 with
   * `appendonly yes`): `true` for this server's file within 1 000 ms, or how many local files
   * (0 or 1) and replicas must hold it within `timeoutMs`. A write not confirmed in time is answered 503.
   * On a server without `WAITAOF` one warning is logged and writes are answered once `XADD` returned.
   * Default `false` (the write is in Redis's memory, and on disk per its `appendfsync` setting).
   */
  waitAof?: boolean | { local?: 0 | 1; replicas?: number; timeoutMs?: number };
  /** Where the one warning (eviction policy unreadable, no `WAITAOF`) goes. Default `console`. */
  logger?: RedisWarningLogger;
}

/**
 * Lua helpers of the inbox's scripts: `field(fields, name)`, and `member(task, id)`, an open entry's member
 * in the open set: `<task id>\n<ms, 15 digits>-<seq, 20 digits>`, in id order per task.
 */
const LUA_OPEN_MEMBER = `local function member(task, id)
  local ms, seq = string.match(id, '(%d+)-(%d+)')
  return task .. '\\n' .. string.rep('0', 15 - #ms) .. ms .. '-' .. string.rep('0', 20 - #seq) .. seq
end
local function field(fields, name)
  for i = 1, #fields, 2 do if fields[i] == name then return fields[i + 1] end end
end`;

/** XLEN below the bound, then XADD; nil when full. */
const APPEND_UNLESS_FULL: LuaScript = {
  source: `if redis.call('XLEN', KEYS[1]) >= tonumber(ARGV[1]) then return false end
local id = redis.call('XADD', KEYS[1], '*', 't', ARGV[2], 'k', ARGV[3], 'r', ARGV[4], 'b', ARGV[5])
local ms, seq = string.match(id, '(%d+)-(%d+)')
redis.call('ZADD', KEYS[2], 0, ARGV[2] .. '\\n' .. string.rep('0', 15 - #ms) .. ms .. '-' .. string.rep('0', 20 - #seq) .. seq)
return id`,
};

/**
 * Marks entries done: acknowledges the ids `ARGV[2..]` in group `ARGV[1]` of stream `KEYS[1]` (one `XACK`)
 * and closes each one's member of its task in the open set `KEYS[2]`. Each argument is `<id>` or
 * `<id>\n<task id>`; without the task id the script reads it from the entry.
 */
const ACK_AND_CLOSE: LuaScript = {
  source: `${LUA_OPEN_MEMBER}
local ids, members = {}, {}
for i = 2, #ARGV do
  local id, task = string.match(ARGV[i], '^([^\\n]+)\\n(.*)$')
  if id == nil then
    id = ARGV[i]
    local entry = redis.call('XRANGE', KEYS[1], id, id)[1]
    if entry then task = field(entry[2], 't') end
  end
  ids[#ids + 1] = id
  if task then members[#members + 1] = member(task, id) end
end
if #members > 0 then redis.call('ZREM', KEYS[2], unpack(members)) end
return redis.call('XACK', KEYS[1], ARGV[1], unpack(ids))`,
};

/**
 * Claims up to `ARGV[3]` entries of stream `KEYS[1]` for consumer `ARGV[2]` of group `ARGV[1]`, each only
 * once it is its task's oldest open entry in `KEYS[2]` (the open set): first entries idle past `ARGV[4]` ms
 * (`XPENDING … IDLE`, then `XCLAIM`: their worker died, or they waited for their task's previous event),
 * then new ones (`XREADGROUP … COUNT`). A new entry whose task has an older open entry is left pending and
 * idle, so it is claimed once it is next without counting as an attempt. An idle entry delivered
 * `ARGV[5]` times already moves to the failed stream `KEYS[3]` (`MAXLEN ~ ARGV[6]`, error `ARGV[7]`).
 * Returns `[id, fields, attempts]` per claimed entry, oldest first within each part.
 */
const CLAIM: LuaScript = {
  source: `${LUA_OPEN_MEMBER}
local stream, open, failed = KEYS[1], KEYS[2], KEYS[3]
local group, consumer, max, idle, maxAttempts = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5])
local function isNext(task, id)
  local first = redis.call('ZRANGEBYLEX', open, '[' .. task .. '\\n', '[' .. task .. '\\n~', 'LIMIT', 0, 1)[1]
  return not first or first == member(task, id)
end
local out = {}
for _, row in ipairs(redis.call('XPENDING', stream, group, 'IDLE', idle, '-', '+', 4 * max)) do
  if #out >= max then break end
  local id = row[1]
  local entry = redis.call('XRANGE', stream, id, id)[1]
  if not entry then
    redis.call('XACK', stream, group, id)
  else
    local task = field(entry[2], 't')
    if isNext(task or '', id) then
      local attempts = row[4] + 1
      if attempts > maxAttempts then
        redis.call('XADD', failed, 'MAXLEN', '~', ARGV[6], '*', 'id', id, 't', task or '', 'k', field(entry[2], 'k') or '',
          'r', field(entry[2], 'r') or '0', 'b', field(entry[2], 'b') or '', 'e', ARGV[7], 'a', tostring(row[4]))
        if task then redis.call('ZREM', open, member(task, id)) end
        redis.call('XACK', stream, group, id)
      else
        redis.call('XCLAIM', stream, group, consumer, idle, id)
        out[#out + 1] = { id, entry[2], attempts }
      end
    end
  end
end
if #out < max then
  local read = redis.call('XREADGROUP', 'GROUP', group, consumer, 'COUNT', max - #out, 'STREAMS', stream, '>')
  for _, reply in ipairs(read or {}) do
    for _, entry in ipairs(reply[2]) do
      local id = entry[1]
      if isNext(field(entry[2], 't') or '', id) then
        out[#out + 1] = { id, entry[2], 1 }
      else
        redis.call('XCLAIM', stream, group, consumer, 0, id, 'IDLE', idle, 'JUSTID')
      end
    end
  end
end
return out`,
};

/** Entries marked done by one script at most. */
const CLOSE_BATCH = 500;

/** A positive integer option of `owner`, or `fallback`. */
function countOption(owner: string, name: string, value: number | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min) {
    throw new ConfigurationError(
      name,
      `Invalid ${name} of ${owner}: expected an integer ≥ ${min}, got ${String(value)}`,
    );
  }
  return value;
}

/** A stream entry's fields (`[name, value, …]`) as an object of text. */
function fieldsOf(raw: unknown): Record<string, string> {
  const fields: Record<string, string> = {};
  if (!Array.isArray(raw)) return fields;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = scalarText(raw[index]);
    const value = scalarText(raw[index + 1]);
    if (name !== undefined && value !== undefined) fields[name] = value;
  }
  return fields;
}

/** Stream entries `[[id, fields], …]` (nil entries, deleted meanwhile, skipped). */
function entriesOf(raw: unknown): { id: string; fields: Record<string, string> }[] {
  if (!Array.isArray(raw)) return [];
  const entries: { id: string; fields: Record<string, string> }[] = [];
  for (const item of raw) {
    if (!Array.isArray(item)) continue;
    const id = textReply(item[0], 'XRANGE');
    if (id !== undefined && item[1] !== null && item[1] !== undefined) entries.push({ id, fields: fieldsOf(item[1]) });
  }
  return entries;
}

/** A stream id as `[ms, seq]` for ordering. */
function idParts(id: string): [bigint, bigint] {
  const [ms = '0', seq = '0'] = id.split('-');
  return [BigInt(ms), BigInt(seq)];
}

function idBefore(a: string, b: string): boolean {
  const [am, as] = idParts(a);
  const [bm, bs] = idParts(b);
  return am < bm || (am === bm && as < bs);
}

/** A number from an integer reply, whatever the client maps it to. */
function numberReply(reply: unknown): number {
  if (typeof reply === 'number') return reply;
  if (typeof reply === 'bigint') return Number(reply);
  return Number(textReply(reply, 'reply') ?? 0);
}

/**
 * A durable webhook inbox in a Redis Stream, for the webhook handler's `inbox` option (README "Running
 * several instances"; docs/several-instances.md "Durable intake"):
 *
 * - **Writing** (the receiver, before answering 200): one Lua script checks the bound (`XLEN` below
 *   `maxEntries`) and appends (`XADD`); with `waitAof`, `WAITAOF` then waits for the append-only file.
 * - **Claiming** (the workers), one Lua script per claim: a consumer group (`XGROUP CREATE … 0 MKSTREAM`
 *   on first use, again if Redis lost it); entries idle past `visibilityTimeoutMs` are found with
 *   `XPENDING … IDLE` and taken over with `XCLAIM` (what `XAUTOCLAIM` does, with the delivery counts), then
 *   new ones are read with `XREADGROUP … COUNT n >`; each only once it is its task's oldest open entry. An
 *   entry delivered `maxAttempts` times goes to the failed events.
 * - **Done** is `XACK`, one script for the events marked while the previous one was sent (500 at most);
 *   done entries are trimmed (`XTRIM … MINID`) once older than `retentionMs` and
 *   behind every pending entry. **Failed** events move to the stream `<stream>:failed` (at most
 *   `maxFailed`), listed by `inspect()` and put back by `replay()`.
 *
 * Bounds: `maxEntries` entries in the stream (default 1 000 000; an entry is the body, about 1–2 KB for a
 * webhook, plus ~100 bytes); beyond, webhooks are answered 503 (and caught later by `sync()`).
 *
 * Like {@link redisStore}, it takes either library's client, single node or cluster, and checks the
 * server's `maxmemory-policy` before its first command: `allkeys-*` rejects with `ConfigurationError`.
 * A stream has no TTL, so `volatile-*` policies never evict it.
 *
 * @param client A connected ioredis client or cluster (5 or 6), or node-redis client or cluster (5 or 6).
 * @param options See {@link RedisInboxOptions}.
 * @throws {ConfigurationError} for a client of neither library (`option: 'client'`) or an option out of range.
 */
export function redisInbox(client: RedisClientLike, options: RedisInboxOptions = {}): WebhookInbox {
  const owner = 'redisInbox';
  const logger = options.logger ?? console;
  const send = guardedAgainstEviction(commandSender(client, owner), owner, false, logger);
  const stream = options.stream ?? 'dts:events';
  if (typeof stream !== 'string' || stream === '') {
    throw new ConfigurationError('stream', 'Invalid stream of redisInbox: expected a non-empty string');
  }
  const group = options.group ?? 'dts-workers';
  if (typeof group !== 'string' || group === '') {
    throw new ConfigurationError('group', 'Invalid group of redisInbox: expected a non-empty string');
  }
  const failedStream = `${stream}:failed`;
  // Entries not yet done, per task in id order: a worker takes an entry only once it is its task's oldest.
  const openSet = `${stream}:open`;
  if (isClusterClient(client) && !/\{[^}]+\}/.test(stream)) {
    throw new ConfigurationError(
      'stream',
      `Invalid stream of redisInbox on a cluster: name it with a hash tag, e.g. '{${stream}}', so the stream and ${stream}:open share a slot`,
    );
  }
  /** Task ids of the entries this process claimed, until marked (saves a read of the entry). */
  const claimedTasks = new Map<string, string>();
  /** Marks entries done, many in one script: the ids given while one batch is sent go in the next. */
  const closeMany = coalesced<string>(async (ids) => {
    await withGroup(() => runScript(send, ACK_AND_CLOSE, stream, [group, ...ids], [openSet]));
  }, CLOSE_BATCH);
  const close = (id: string, taskId: string | undefined): Promise<void> => {
    claimedTasks.delete(id);
    return closeMany(taskId === undefined ? id : `${id}\n${taskId}`);
  };
  const maxEntries = countOption(owner, 'maxEntries', options.maxEntries, 1_000_000);
  const retentionMs = countOption(owner, 'retentionMs', options.retentionMs, 900_000, 0);
  const visibilityTimeoutMs = countOption(owner, 'visibilityTimeoutMs', options.visibilityTimeoutMs, 60_000);
  const maxAttempts = countOption(owner, 'maxAttempts', options.maxAttempts, 5);
  const maxFailed = countOption(owner, 'maxFailed', options.maxFailed, 10_000);
  const aof =
    options.waitAof === undefined || options.waitAof === false
      ? undefined
      : options.waitAof === true
        ? { local: 1, replicas: 0, timeoutMs: 1000 }
        : {
            local: options.waitAof.local ?? 1,
            replicas: options.waitAof.replicas ?? 0,
            timeoutMs: options.waitAof.timeoutMs ?? 1000,
          };
  let aofMissing = false;

  let groupReady: Promise<void> | undefined;
  const ensureGroup = (): Promise<void> => {
    groupReady ??= send(stream, 'XGROUP', 'CREATE', stream, group, '0', 'MKSTREAM').then(
      () => {},
      (error: unknown) => {
        if (error instanceof Error && error.message.includes('BUSYGROUP')) return;
        groupReady = undefined;
        throw error;
      },
    );
    return groupReady;
  };
  /** Runs `command` with the group there, creating it again once if Redis lost it (restarted empty). */
  const withGroup = async <T>(command: () => Promise<T>): Promise<T> => {
    await ensureGroup();
    try {
      return await command();
    } catch (error) {
      if (!(error instanceof Error && error.message.includes('NOGROUP'))) throw error;
      groupReady = undefined;
      await ensureGroup();
      return command();
    }
  };

  const toEntry = (id: string, fields: Record<string, string>, attempts: number): InboxEntry => ({
    id,
    body: fields.b ?? '',
    receivedAt: Number(fields.r ?? 0),
    attempts,
  });

  const moveToFailed = async (id: string, error: string, attempts?: number): Promise<void> => {
    const [entry] = entriesOf(await send(stream, 'XRANGE', stream, id, id));
    if (entry !== undefined) {
      await send(
        failedStream,
        'XADD',
        failedStream,
        'MAXLEN',
        '~',
        String(maxFailed),
        '*',
        'id',
        id,
        't',
        entry.fields.t ?? '',
        'k',
        entry.fields.k ?? '',
        'r',
        entry.fields.r ?? '0',
        'b',
        entry.fields.b ?? '',
        'e',
        error.slice(0, 1000),
        'a',
        String(attempts ?? 0),
      );
    }
    await close(id, entry?.fields.t);
  };

  return {
    visibilityTimeoutMs,
    append: async (entry: InboxAppend) => {
      const id = await runScript(
        send,
        APPEND_UNLESS_FULL,
        stream,
        [String(maxEntries), entry.taskId, entry.kind, String(entry.receivedAt), entry.body],
        [openSet],
      );
      if (id === null || id === undefined) {
        throw new Error(`the inbox holds ${maxEntries} entries (maxEntries)`);
      }
      if (aof === undefined || aofMissing) return;
      let reply: unknown;
      try {
        reply = await send(stream, 'WAITAOF', String(aof.local), String(aof.replicas), String(aof.timeoutMs));
      } catch (error) {
        if (error instanceof Error && /unknown command/i.test(error.message)) {
          aofMissing = true;
          logger.warn('redisInbox: this Redis has no WAITAOF (Redis ≥ 7.2); writes are answered once XADD returned');
          return;
        }
        throw error;
      }
      const [local = 0, replicas = 0] = Array.isArray(reply) ? reply.map(numberReply) : [];
      if (local < aof.local || replicas < aof.replicas) {
        throw new Error(
          `WAITAOF: the write reached ${local} local and ${replicas} replica files within ${aof.timeoutMs} ms`,
        );
      }
    },
    claim: (consumer, max) =>
      withGroup(async () => {
        const reply = await runScript(
          send,
          CLAIM,
          stream,
          [
            group,
            consumer,
            String(max),
            String(visibilityTimeoutMs),
            String(maxAttempts),
            String(maxFailed),
            `claimed ${maxAttempts} times without being marked done (a worker died each time)`,
          ],
          [openSet, failedStream],
        );
        const claimed: InboxEntry[] = [];
        for (const row of asArray(reply)) {
          if (!Array.isArray(row)) continue;
          const id = textReply(row[0], 'inbox claim');
          if (id === undefined) continue;
          const fields = fieldsOf(row[1]);
          if (fields.t !== undefined) claimedTasks.set(id, fields.t);
          claimed.push(toEntry(id, fields, numberReply(row[2])));
        }
        return claimed;
      }),
    complete: (id) => close(id, claimedTasks.get(id)),
    release: (id) =>
      withGroup(async () => {
        const [row] = asArray(await send(stream, 'XPENDING', stream, group, id, id, '1'));
        if (!Array.isArray(row)) return;
        const count = Math.max(0, numberReply(row[3]) - 1);
        // Idle as long as the visibility timeout: claimable at once, its delivery count as before this claim.
        await send(
          stream,
          'XCLAIM',
          stream,
          group,
          scalarText(row[1]) ?? 'released',
          '0',
          id,
          'IDLE',
          String(visibilityTimeoutMs),
          'RETRYCOUNT',
          String(count),
          'JUSTID',
        );
      }),
    fail: (id, error) => withGroup(() => moveToFailed(id, error)),
    inspect: ({ limit = 100 } = {}) =>
      withGroup(async (): Promise<InboxInspection> => {
        const summary = await send(stream, 'XPENDING', stream, group);
        const pending = Array.isArray(summary) ? numberReply(summary[0]) : 0;
        const failed = numberReply(await send(failedStream, 'XLEN', failedStream));
        const events: InboxEventSummary[] = [];
        const rows = await send(stream, 'XPENDING', stream, group, '-', '+', String(limit));
        for (const row of Array.isArray(rows) ? rows : []) {
          if (!Array.isArray(row)) continue;
          const id = textReply(row[0], 'XPENDING');
          if (id === undefined) continue;
          const [entry] = entriesOf(await send(stream, 'XRANGE', stream, id, id));
          events.push({
            id,
            taskId: entry?.fields.t ?? '',
            kind: entry?.fields.k ?? '',
            receivedAt: Number(entry?.fields.r ?? 0),
            state: 'pending',
            attempts: numberReply(row[3]),
          });
        }
        if (events.length < limit) {
          const failedEntries = entriesOf(
            await send(failedStream, 'XRANGE', failedStream, '-', '+', 'COUNT', String(limit - events.length)),
          );
          for (const { id, fields } of failedEntries) {
            events.push({
              id,
              taskId: fields.t ?? '',
              kind: fields.k ?? '',
              receivedAt: Number(fields.r ?? 0),
              state: 'failed',
              attempts: Number(fields.a ?? 0),
              error: fields.e ?? '',
            });
          }
        }
        // Entries not delivered to any worker yet (the group's lag, Redis ≥ 7) are waiting too.
        let lag = 0;
        for (const info of asArray(await send(stream, 'XINFO', 'GROUPS', stream))) {
          const fields = info instanceof Map ? Object.fromEntries(info) : fieldsOf(info);
          if (fields.name === group) lag = Number(fields.lag ?? 0) || 0;
        }
        return { pending: pending + lag, failed, events };
      }),
    replay: async (ids) => {
      let replayed = 0;
      let start = '-';
      for (;;) {
        const page = entriesOf(await send(failedStream, 'XRANGE', failedStream, start, '+', 'COUNT', '100'));
        if (page.length === 0) return replayed;
        for (const { id, fields } of page) {
          if (ids !== undefined && !ids.includes(id)) continue;
          await runScript(
            send,
            APPEND_UNLESS_FULL,
            stream,
            [String(Number.MAX_SAFE_INTEGER), fields.t ?? '', fields.k ?? '', fields.r ?? '0', fields.b ?? ''],
            [openSet],
          );
          await send(failedStream, 'XDEL', failedStream, id);
          replayed++;
        }
        const last = page[page.length - 1]?.id ?? '0-0';
        start = `(${last}`;
      }
    },
    maintain: () =>
      withGroup(async () => {
        const groups = await send(stream, 'XINFO', 'GROUPS', stream);
        let lastDelivered: string | undefined;
        for (const info of Array.isArray(groups) ? groups : []) {
          const fields = info instanceof Map ? Object.fromEntries(info) : fieldsOf(info);
          if (fields.name === group) lastDelivered = fields['last-delivered-id'];
        }
        if (lastDelivered === undefined) return;
        const summary = await send(stream, 'XPENDING', stream, group);
        const oldestPending =
          Array.isArray(summary) && numberReply(summary[0]) > 0 ? textReply(summary[1], 'XPENDING') : undefined;
        const [ms, seq] = idParts(lastDelivered);
        // Everything up to the last delivered id is done unless pending: keep from the oldest pending one.
        let keepFrom = oldestPending ?? `${ms}-${seq + 1n}`;
        const cutoff = `${Math.max(0, Date.now() - retentionMs)}-0`;
        if (idBefore(cutoff, keepFrom)) keepFrom = cutoff;
        await send(stream, 'XTRIM', stream, 'MINID', keepFrom);
      }),
  };
}

/** A scalar reply as text (numbers too); `undefined` for nil and nested replies. */
function scalarText(reply: unknown): string | undefined {
  if (typeof reply === 'number' || typeof reply === 'bigint') return String(reply);
  if (typeof reply === 'string' || reply instanceof Uint8Array) return textReply(reply, 'reply');
  return undefined;
}

/** True for a cluster client: ioredis `Cluster` (`isCluster`) or node-redis `createCluster()` (`masters`). */
function isClusterClient(client: unknown): boolean {
  if (typeof client !== 'object' || client === null) return false;
  return (client as { isCluster?: unknown }).isCluster === true || 'masters' in client;
}

/** `reply` when it is an array, else none. */
function asArray(reply: unknown): unknown[] {
  return Array.isArray(reply) ? reply : [];
}
