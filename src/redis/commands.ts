/** Raw Redis commands for the store and inbox: either library's client, the eviction-policy check. @module */
import { ConfigurationError } from '../core/errors.js';

/** An ioredis `Redis` or `Cluster` (5 or 6), by `call(command, ...args)`, which sends a raw command. */
export interface IoredisClientLike {
  call(command: string, ...args: string[]): Promise<unknown>;
}

/** A connected node-redis `createClient()` (`redis` 5 or 6), by `sendCommand(args)`, e.g. `['GET', key]`. */
export interface NodeRedisClientLike {
  sendCommand(args: readonly string[]): Promise<unknown>;
}

/** A connected node-redis `createCluster()` (`redis` 5 or 6), by `masters` and `sendCommand(firstKey, isReadonly, args)`. */
export interface NodeRedisClusterLike {
  readonly masters: readonly unknown[];
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: readonly string[]): Promise<unknown>;
}

/** A client `redisStore` and `redisInbox` accept: ioredis, node-redis, single node or cluster. */
export type RedisClientLike = IoredisClientLike | NodeRedisClientLike | NodeRedisClusterLike;

/** Where the store and the inbox write their one warning (an eviction policy that cannot be read). */
export interface RedisWarningLogger {
  warn(message: string): void;
}

export type SendCommand = (key: string | undefined, command: string, ...args: string[]) => Promise<unknown>;

/** `send`, but every call rejects (`ConfigurationError`) under an `allkeys-*` `maxmemory-policy`: it may evict. */
export function guardedAgainstEviction(
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

/** ioredis's `call` first (it has a `sendCommand` of its own kind), then node-redis cluster, then single node. */
export function commandSender(client: unknown, owner: string): SendCommand {
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

/** Rethrows `error` without ioredis's copy of the arguments (`command.args`: the key holds the seller id). */
function withoutCommandArguments(error: unknown): never {
  if (typeof error === 'object' && error !== null && 'command' in error) {
    const { command } = error as { command: unknown };
    const name = typeof command === 'object' && command !== null ? (command as { name?: unknown }).name : undefined;
    try {
      (error as { command: unknown }).command = { name };
    } catch {}
  }
  throw error;
}

export function isClusterClient(client: unknown): boolean {
  if (typeof client !== 'object' || client === null) return false;
  return (client as { isCluster?: unknown }).isCluster === true || 'masters' in client;
}

/** A bulk-string reply as text: `undefined` for nil, UTF-8 for bytes. */
export function textReply(reply: unknown, command: string): string | undefined {
  if (reply === null || reply === undefined) return undefined;
  if (typeof reply === 'string') return reply;
  if (reply instanceof Uint8Array) return new TextDecoder().decode(reply);
  throw new TypeError(`redisStore: unexpected reply to ${command} (${typeof reply})`);
}

export const isOne = (reply: unknown): boolean => reply === 1 || reply === 1n || reply === '1';

export function numberReply(reply: unknown): number {
  if (typeof reply === 'number') return reply;
  if (typeof reply === 'bigint') return Number(reply);
  return Number(textReply(reply, 'reply') ?? 0);
}

export function scalarText(reply: unknown): string | undefined {
  if (typeof reply === 'number' || typeof reply === 'bigint') return String(reply);
  if (typeof reply === 'string' || reply instanceof Uint8Array) return textReply(reply, 'reply');
  return undefined;
}

export function asArray(reply: unknown): unknown[] {
  return Array.isArray(reply) ? reply : [];
}
