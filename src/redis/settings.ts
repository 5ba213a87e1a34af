/**
 * The Redis settings the store and the inbox rely on, read with `CONFIG GET` on every server before their
 * first command (docs/several-instances.md "Redis settings").
 * @module
 */
import { ConfigurationError } from '../core/errors.js';
import {
  commandSender,
  isClusterClient,
  type RedisWarningLogger,
  type SendCommand,
  scalarText,
} from './commands.js';

/** What {@link settingsCheck} checks, for whom. */
export interface SettingsCheck {
  readonly owner: 'redisStore' | 'redisInbox';
  /** Every key of the owner has a TTL, so a `volatile-*` policy may evict them (one warning). */
  readonly ttlKeys: boolean;
  /** Refuse a server that keeps nothing on disk (`appendonly no` and `save ''`); warn about RDB alone. */
  readonly persistence: boolean;
  readonly logger: RedisWarningLogger;
}

/**
 * Runs `step` until it succeeds, one run at a time; a run that succeeded is kept (later calls resolve at
 * once).
 */
export function untilSucceeded(step: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => {
    running ??= step().catch((error: unknown) => {
      running = undefined;
      throw error;
    });
    return running;
  };
}

/**
 * A reply that says the server refuses the command itself (renamed, ACL, a managed Redis), not that it is
 * down.
 */
function isRefusal(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /^NOPERM|^ERR.*\b(unknown|unsupported|disabled|permission|not (allowed|available|supported|permitted))\b/i.test(
    message,
  );
}

/** The value of `name` in a `CONFIG GET` reply: `[name, value]` (RESP2) or a map (RESP3, ioredis objects). */
export function settingOf(reply: unknown, name: string): string | undefined {
  if (Array.isArray(reply)) return reply.length >= 2 ? scalarText(reply[1]) : undefined;
  if (reply instanceof Map) return scalarText(reply.get(name));
  if (typeof reply === 'object' && reply !== null)
    return scalarText((reply as Record<string, unknown>)[name]);
  return undefined;
}

/** One sender per server: each master of a cluster that lists them, else `send` (the client's own node). */
function serverSenders(client: unknown, send: SendCommand, owner: string): SendCommand[] {
  if (typeof client !== 'object' || client === null || !isClusterClient(client)) return [send];
  const { nodes, masters, nodeClient } = client as {
    nodes?: (role: string) => unknown;
    masters?: unknown;
    nodeClient?: (node: unknown) => unknown;
  };
  if (typeof nodes === 'function') {
    const listed = nodes.call(client, 'master');
    if (Array.isArray(listed) && listed.length > 0) return listed.map((node) => commandSender(node, owner));
  }
  if (Array.isArray(masters) && masters.length > 0 && typeof nodeClient === 'function') {
    return masters.map((master) => async (_key, ...args) => {
      const node = (await nodeClient.call(client, master)) as {
        sendCommand(args: readonly string[]): Promise<unknown>;
      };
      return node.sendCommand(args);
    });
  }
  return [send];
}

/**
 * The rule of a `save` setting that bounds the loss: the one needing the fewest changes (then the shortest).
 */
export function snapshotRule(save: string): { seconds: number; changes: number } | undefined {
  const numbers = save.trim().split(/\s+/).map(Number);
  let rule: { seconds: number; changes: number } | undefined;
  for (let index = 0; index + 1 < numbers.length; index += 2) {
    const seconds = numbers[index] ?? Number.NaN;
    const changes = numbers[index + 1] ?? Number.NaN;
    if (!Number.isFinite(seconds) || !Number.isFinite(changes)) continue;
    if (
      rule === undefined ||
      changes < rule.changes ||
      (changes === rule.changes && seconds < rule.seconds)
    ) {
      rule = { seconds, changes };
    }
  }
  return rule;
}

/** What a restart of a server saving RDB snapshots alone loses, in words. */
function snapshotWindow(save: string): string {
  const rule = snapshotRule(save);
  if (rule === undefined) return 'the webhooks stored since its last snapshot';
  const { seconds, changes } = rule;
  const more = changes > 1 ? `; fewer than ${changes} changes wait for more` : '';
  return `the webhooks stored since its last snapshot, up to ${seconds} s of them (a snapshot follows ${changes} change${changes === 1 ? '' : 's'} within ${seconds} s${more})`;
}

/**
 * The check of `check.owner`'s settings on the servers `client` reaches, run until it succeeds: an
 * `allkeys-*` eviction policy (and, with `persistence`, a server keeping nothing on disk) rejects with
 * `ConfigurationError` (checked again at the next call, so a fixed setting is taken); a server that
 * refuses `CONFIG` gets one warning and passes; a server that cannot be reached rejects with its error.
 */
export function settingsCheck(client: unknown, send: SendCommand, check: SettingsCheck): () => Promise<void> {
  const { owner, logger } = check;
  const names = check.persistence ? ['maxmemory-policy', 'appendonly', 'save'] : ['maxmemory-policy'];
  const warned = new Set<string>();
  const warnOnce = (topic: string, message: string): void => {
    if (warned.has(topic)) return;
    warned.add(topic);
    logger.warn(message);
  };
  const list = names.length === 1 ? 'maxmemory-policy' : 'maxmemory-policy, appendonly and save';
  return untilSucceeded(async () => {
    let readings: Map<string, string | undefined>[];
    try {
      readings = await Promise.all(
        serverSenders(client, send, owner).map(
          async (server) =>
            new Map(
              await Promise.all(
                names.map(
                  async (name) =>
                    [name, settingOf(await server(undefined, 'CONFIG', 'GET', name), name)] as const,
                ),
              ),
            ),
        ),
      );
    } catch (error) {
      if (!isRefusal(error)) throw error;
      warnOnce(
        'refused',
        `${owner}: could not read the Redis setting${names.length === 1 ? '' : 's'} ${list} (${(error as Error)?.message ?? String(error)}): the check did not run; make sure maxmemory-policy is noeviction${check.persistence ? ' and appendonly is yes' : ''} (docs/several-instances.md "Redis settings")`,
      );
      return;
    }
    const snapshots: string[] = [];
    for (const reading of readings) {
      const policy = reading.get('maxmemory-policy');
      if (policy === undefined) {
        warnOnce(
          'policy',
          `${owner}: could not read the Redis setting maxmemory-policy; make sure it is noeviction`,
        );
      } else if (policy.startsWith('allkeys-')) {
        throw new ConfigurationError(
          'maxmemory-policy',
          `${owner} refuses a Redis whose maxmemory-policy is ${policy}: under memory pressure it evicts any key, leases and records included, which lets an order be created twice or a webhook be lost. Set maxmemory-policy to noeviction (README "Running several instances")`,
        );
      } else if (check.ttlKeys && policy.startsWith('volatile-')) {
        warnOnce(
          'volatile',
          `${owner}: the Redis setting maxmemory-policy is ${policy}, which may evict the store's keys (they all have a TTL) under memory pressure; noeviction is safe`,
        );
      }
      if (!check.persistence || reading.get('appendonly') === 'yes') continue;
      const save = reading.get('save');
      if (reading.get('appendonly') === undefined || save === undefined) {
        warnOnce(
          'persistence',
          `${owner}: could not read the Redis settings appendonly and save; make sure appendonly is yes`,
        );
      } else if (save.trim() === '') {
        throw new ConfigurationError(
          'appendonly',
          `${owner} refuses a Redis that keeps nothing on disk (appendonly no, save ""): restarted, it comes back empty and the webhooks it held, each answered 200 already, are lost. Set appendonly yes (CONFIG SET appendonly yes, and appendonly yes in redis.conf so that a restart keeps it), or give ${owner} the option volatile: true to accept that loss (docs/several-instances.md "Redis settings")`,
        );
      } else {
        snapshots.push(save);
      }
    }
    const [save] = snapshots;
    if (save !== undefined) {
      warnOnce(
        'snapshots',
        `${owner}: this Redis keeps the webhooks in RDB snapshots only (save "${save}", appendonly no): restarted, it comes back as its last snapshot and loses ${snapshotWindow(save)}, each answered 200 already. appendonly yes keeps every one (CONFIG SET appendonly yes, and in redis.conf)`,
      );
    }
  });
}
