/** The Lua scripts of the Redis store and inbox, sent by EVALSHA, else EVAL. @module */
import type { SendCommand } from './commands.js';

export interface LuaScript {
  readonly source: string;
  /** Computed on first use; `undefined` without Web Crypto. */
  sha?: Promise<string | undefined>;
}

/**
 * Sets `KEYS[1]` to `ARGV[1]` for `ARGV[2]` ms when it holds `ARGV[3]` (or is absent, without `ARGV[3]`): 1,
 * else 0.
 */
export const COMPARE_AND_SET: LuaScript = {
  source: `local current = redis.call('GET', KEYS[1])
if current ~= (ARGV[3] or false) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`,
};

/** Deletes `KEYS[1]` when it holds `ARGV[1]`: 1, else 0. */
export const COMPARE_AND_DELETE: LuaScript = {
  source: `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])`,
};

/**
 * SET `KEYS[1]` to `ARGV[1]` for `ARGV[2]` ms unless it exists, then GET `KEYS[2]`: `{1, value}`, else `{0}`.
 */
export const SET_IF_ABSENT_THEN_GET: LuaScript = {
  source: `if not redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return {0} end
return {1, redis.call('GET', KEYS[2])}`,
};

/**
 * When `KEYS[2]` holds `ARGV[3]` (or nothing, with `ARGV[4]` = '1') and `KEYS[1]` holds `ARGV[5]` (absent
 * without it): SET `KEYS[1]` to `ARGV[1]` for `ARGV[2]` ms, DEL `KEYS[2]`, 'set'; else 'fenced' or 'changed'.
 */
export const COMPARE_AND_SET_RELEASING: LuaScript = {
  source: `local fence = redis.call('GET', KEYS[2])
if fence ~= ARGV[3] and not (fence == false and ARGV[4] == '1') then return 'fenced' end
if redis.call('GET', KEYS[1]) ~= (ARGV[5] or false) then return 'changed' end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if fence then redis.call('DEL', KEYS[2]) end
return 'set'`,
};

/**
 * Store operations in order, each atomic, one script for the calls of a tick: per operation `ARGV` holds its
 * code then its arguments, `KEYS` its keys. `L`: {@link SET_IF_ABSENT_THEN_GET} (2 keys; value, TTL);
 * `R`: {@link COMPARE_AND_SET_RELEASING} (2 keys; value, TTL, fence value, or-absent, has-expected,
 * expected); `D`: {@link COMPARE_AND_DELETE} (1 key; expected); `G`: GET (1 key); `S`: SET NX (1 key;
 * value, TTL), 1 or 0; `C`: {@link COMPARE_AND_SET} (1 key; value, TTL, has-expected, expected); `X`: DEL
 * (1 key). One reply per operation, `{'!', message}` where Redis refused it.
 */
export const STORE_BATCH: LuaScript = {
  source: `local out, k, a = {}, 1, 1
local function run(op)
  if op == 'L' then
    if not redis.call('SET', KEYS[k], ARGV[a + 1], 'PX', ARGV[a + 2], 'NX') then return {0} end
    return {1, redis.call('GET', KEYS[k + 1])}
  elseif op == 'R' then
    local fence = redis.call('GET', KEYS[k + 1])
    if fence ~= ARGV[a + 3] and not (fence == false and ARGV[a + 4] == '1') then return 'fenced' end
    if redis.call('GET', KEYS[k]) ~= (ARGV[a + 5] == '1' and ARGV[a + 6]) then return 'changed' end
    redis.call('SET', KEYS[k], ARGV[a + 1], 'PX', ARGV[a + 2])
    if fence then redis.call('DEL', KEYS[k + 1]) end
    return 'set'
  elseif op == 'G' then
    return redis.call('GET', KEYS[k])
  elseif op == 'S' then
    if redis.call('SET', KEYS[k], ARGV[a + 1], 'PX', ARGV[a + 2], 'NX') then return 1 end
    return 0
  elseif op == 'C' then
    if redis.call('GET', KEYS[k]) ~= (ARGV[a + 3] == '1' and ARGV[a + 4]) then return 0 end
    redis.call('SET', KEYS[k], ARGV[a + 1], 'PX', ARGV[a + 2])
    return 1
  elseif op == 'X' then
    return redis.call('DEL', KEYS[k])
  end
  if redis.call('GET', KEYS[k]) ~= ARGV[a + 1] then return 0 end
  return redis.call('DEL', KEYS[k])
end
local sizes = {L = {2, 3}, R = {2, 7}, D = {1, 2}, G = {1, 1}, S = {1, 3}, C = {1, 5}, X = {1, 1}}
while a <= #ARGV do
  local op = ARGV[a]
  local ok, reply = pcall(run, op)
  if not ok then reply = {'!', type(reply) == 'table' and reply.err or tostring(reply)} end
  out[#out + 1] = reply
  k, a = k + sizes[op][1], a + sizes[op][2]
end
return out`,
};

/** Runs `script` on `key` and `otherKeys` (one hash slot on a cluster) through `send`: its reply. */
export type ScriptRunner = (
  send: SendCommand,
  script: LuaScript,
  key: string,
  args: readonly string[],
  otherKeys?: readonly string[],
) => Promise<unknown>;

/** EVALSHA, or EVAL on NOSCRIPT (the inbox's scripts). */
export const runScript: ScriptRunner = async (send, script, key, args, otherKeys = []) => {
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
};

/**
 * EVAL, the script's text sent each time (the store's scripts): handed to `send` at once, and never sent
 * again after Redis lost its scripts (a restart, a failover, `SCRIPT FLUSH`), so calls run in the order
 * they were made. Redis compiles a script once and finds it by the text's SHA-1 after.
 */
export const evalScript: ScriptRunner = (send, script, key, args, otherKeys = []) =>
  send(key, 'EVAL', script.source, String(1 + otherKeys.length), key, ...otherKeys, ...args);

async function sha1Hex(text: string): Promise<string | undefined> {
  try {
    const digest = await globalThis.crypto.subtle.digest('SHA-1', new TextEncoder().encode(text));
    return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
  } catch {
    return undefined;
  }
}

/**
 * `member(task, id)`: `<task id>\n<ms, 15 digits>-<seq, 20 digits>`, in id order per task;
 * `field(fields, name)`.
 */
const LUA_OPEN_MEMBER = `local function member(task, id)
  local ms, seq = string.match(id, '(%d+)-(%d+)')
  return task .. '\\n' .. string.rep('0', 15 - #ms) .. ms .. '-' .. string.rep('0', 20 - #seq) .. seq
end
local function field(fields, name)
  for i = 1, #fields, 2 do if fields[i] == name then return fields[i + 1] end end
end`;

/** The epoch hash `KEYS[1]` (`id`, `written`), made with id `ARGV[1]` unless it exists: `{id, written}`. */
export const TAKE_EPOCH: LuaScript = {
  source: `if redis.call('HSETNX', KEYS[1], 'id', ARGV[1]) == 1 then redis.call('HSET', KEYS[1], 'written', 0) end
return redis.call('HMGET', KEYS[1], 'id', 'written')`,
};

/**
 * XLEN below the bound, then XADD, counted in the epoch hash `KEYS[3]` when it exists:
 * `{id or nil, epoch id, written}`.
 */
export const APPEND_UNLESS_FULL: LuaScript = {
  source: `local epoch = redis.call('HMGET', KEYS[3], 'id', 'written')
if redis.call('XLEN', KEYS[1]) >= tonumber(ARGV[1]) then return {false, epoch[1], epoch[2]} end
local id = redis.call('XADD', KEYS[1], '*', 't', ARGV[2], 'k', ARGV[3], 'r', ARGV[4], 'b', ARGV[5])
local ms, seq = string.match(id, '(%d+)-(%d+)')
redis.call('ZADD', KEYS[2], 0, ARGV[2] .. '\\n' .. string.rep('0', 15 - #ms) .. ms .. '-' .. string.rep('0', 20 - #seq) .. seq)
if epoch[1] then epoch[2] = redis.call('HINCRBY', KEYS[3], 'written', 1) end
return {id, epoch[1], epoch[2]}`,
};

/**
 * XACKs `ARGV[2..]` (`<id>` or `<id>\n<task id>`) in group `ARGV[1]` and closes their members in the open set
 * `KEYS[2]`.
 */
export const ACK_AND_CLOSE: LuaScript = {
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
 * Claims up to `ARGV[3]` entries, each once its task's oldest open one: idle past `ARGV[4]` ms first (past
 * `ARGV[5]` deliveries: to `KEYS[3]`), then new; a new entry not yet next stays pending, uncounted.
 * `{epoch id, written, claimed}`; nothing claimed when the epoch hash `KEYS[4]` has not id `ARGV[8]`.
 */
export const CLAIM: LuaScript = {
  source: `${LUA_OPEN_MEMBER}
local stream, open, failed = KEYS[1], KEYS[2], KEYS[3]
local group, consumer, max, idle, maxAttempts = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5])
local epoch = redis.call('HMGET', KEYS[4], 'id', 'written')
if epoch[1] ~= ARGV[8] then return {epoch[1], epoch[2], {}} end
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
return {epoch[1], epoch[2], out}`,
};
