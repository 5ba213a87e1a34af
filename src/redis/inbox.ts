/**
 * `redisInbox`: a durable webhook inbox in a Redis Stream (docs/several-instances.md "Durable intake").
 * @module
 */
import { coalesced } from '../internal/coalesce.js';
import { invalidOption, readOptions } from '../internal/read-options.js';
import type { InboxAppend, InboxEntry, InboxEventSummary, InboxInspection } from '../webhooks/inbox.js';
import {
  asArray,
  commandSender,
  isClusterClient,
  numberReply,
  type RedisClientLike,
  type SendCommand,
  scalarText,
  textReply,
} from './commands.js';
import { InboxEpoch } from './inbox-epoch.js';
import type { RedisInbox, RedisInboxOptions } from './inbox-options.js';
import { RedisInboxOptionsSchema } from './option-schemas.js';
import { ACK_AND_CLOSE, APPEND_UNLESS_FULL, CLAIM, runScript } from './scripts.js';
import { settingsCheck, untilSucceeded } from './settings.js';
import { entriesOf, fieldsOf, idBefore, idParts } from './stream-entries.js';

const CLOSE_BATCH = 500;

/**
 * A durable webhook inbox in a Redis Stream for the handler's `inbox` option (README "Running several
 * instances"):
 * each task's oldest entry claimed, failed ones kept for `replay()`; `maxEntries`, then 503. Its Redis is
 * checked by {@link RedisInbox.ready} (awaited by every method): no `allkeys-*` eviction, and persistence
 * unless `volatile: true` (docs/several-instances.md "Redis settings").
 * @param client A connected ioredis (5, 6) or node-redis (5, 6) client or cluster.
 * @throws {ConfigurationError} for a client of neither library, a cluster `stream` without a hash tag, a bad
 * option.
 */
export function redisInbox(client: RedisClientLike, options: RedisInboxOptions = {}): RedisInbox {
  const owner = 'redisInbox';
  const raw = commandSender(client, owner);
  const read = readOptions(RedisInboxOptionsSchema, options);
  const { stream, group, maxEntries, retentionMs, visibilityTimeoutMs, maxAttempts, maxFailed } = read;
  const logger = read.logger ?? console;
  const checkSettings = settingsCheck(client, raw, {
    owner,
    ttlKeys: false,
    persistence: read.volatile !== true,
    logger,
  });
  const failedStream = `${stream}:failed`;
  const openSet = `${stream}:open`;
  const epoch = new InboxEpoch(raw, stream, group, logger);
  const ready = untilSucceeded(async () => {
    await checkSettings();
    await epoch.start();
  });
  const send: SendCommand = async (key, command, ...args) => {
    await ready();
    return raw(key, command, ...args);
  };
  const withGroup = async <T>(command: () => Promise<T>): Promise<T> => {
    await ready();
    return epoch.guarded(command);
  };
  if (isClusterClient(client) && !/\{[^}]+\}/.test(stream)) {
    throw invalidOption(
      'stream',
      `on a cluster, a name with a hash tag, e.g. '{${stream}}', so the stream and ${stream}:open share a slot`,
      stream,
    );
  }
  const claimedTasks = new Map<string, string>();
  const closeMany = coalesced<string>(async (ids) => {
    await withGroup(() => runScript(send, ACK_AND_CLOSE, stream, [group, ...ids], [openSet]));
  }, CLOSE_BATCH);
  const close = (id: string, taskId: string | undefined): Promise<void> => {
    claimedTasks.delete(id);
    return closeMany(taskId === undefined ? id : `${id}\n${taskId}`);
  };
  const aof =
    read.waitAof === undefined || read.waitAof === false
      ? undefined
      : read.waitAof === true
        ? { local: 1, replicas: 0, timeoutMs: 1000 }
        : {
            local: read.waitAof.local ?? 1,
            replicas: read.waitAof.replicas ?? 0,
            timeoutMs: read.waitAof.timeoutMs ?? 1000,
          };
  let aofMissing = false;
  /**
   * Appends `fields` unless the stream holds `bound` entries; an epoch the reply tells reset is repaired
   * aside.
   */
  const appendEntry = async (bound: number, fields: readonly string[]): Promise<unknown> => {
    await ready();
    const mark = epoch.mark();
    const [id, epochId, written] = asArray(
      await runScript(send, APPEND_UNLESS_FULL, stream, [String(bound), ...fields], [openSet, epoch.key]),
    );
    // The webhook is stored either way: its answer does not wait for the repair (retried by the next
    // command).
    void epoch.observe(mark, epochId, written).catch(() => {});
    return id;
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
    ready,
    onReset: (listener) => epoch.onReset(listener),
    append: async (entry: InboxAppend) => {
      const id = await appendEntry(maxEntries, [
        entry.taskId,
        entry.kind,
        String(entry.receivedAt),
        entry.body,
      ]);
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
          logger.warn(
            'redisInbox: this Redis has no WAITAOF (Redis ≥ 7.2); writes are answered once XADD returned',
          );
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
    claim: async (consumer, max) => {
      await ready();
      return epoch.guarded(async (mark) => {
        const [epochId, written, rows] = asArray(
          await runScript(
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
              epoch.id,
            ],
            [openSet, failedStream, epoch.key],
          ),
        );
        await epoch.observe(mark, epochId, written);
        const claimed: InboxEntry[] = [];
        for (const row of asArray(rows)) {
          if (!Array.isArray(row)) continue;
          const id = textReply(row[0], 'inbox claim');
          if (id === undefined) continue;
          const fields = fieldsOf(row[1]);
          if (fields.t !== undefined) claimedTasks.set(id, fields.t);
          claimed.push(toEntry(id, fields, numberReply(row[2])));
        }
        return claimed;
      });
    },
    complete: (id) => close(id, claimedTasks.get(id)),
    release: (id) =>
      withGroup(async () => {
        const [row] = asArray(await send(stream, 'XPENDING', stream, group, id, id, '1'));
        if (!Array.isArray(row)) return;
        const count = Math.max(0, numberReply(row[3]) - 1);
        // Idle for the visibility timeout: claimable at once, its delivery count unchanged.
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
        // Two waves of commands sent together (one pipeline each over a single-node ioredis): the counts
        // and the pending ids, then each listed event's fields and the failed events that fit.
        const [summary, failedCount, rows, groups] = await Promise.all([
          send(stream, 'XPENDING', stream, group),
          send(failedStream, 'XLEN', failedStream),
          send(stream, 'XPENDING', stream, group, '-', '+', String(limit)),
          send(stream, 'XINFO', 'GROUPS', stream),
        ]);
        const pending = Array.isArray(summary) ? numberReply(summary[0]) : 0;
        const failed = numberReply(failedCount);
        const listed = (Array.isArray(rows) ? rows : []).flatMap((row) => {
          if (!Array.isArray(row)) return [];
          const id = textReply(row[0], 'XPENDING');
          return id === undefined ? [] : [{ id, attempts: numberReply(row[3]) }];
        });
        const room = limit - listed.length;
        const [entries, failedEntries] = await Promise.all([
          Promise.all(listed.map(({ id }) => send(stream, 'XRANGE', stream, id, id))),
          room > 0
            ? send(failedStream, 'XRANGE', failedStream, '-', '+', 'COUNT', String(room))
            : Promise.resolve([]),
        ]);
        const events: InboxEventSummary[] = listed.map(({ id, attempts }, index) => {
          const [entry] = entriesOf(entries[index]);
          return {
            id,
            taskId: entry?.fields.t ?? '',
            kind: entry?.fields.k ?? '',
            receivedAt: Number(entry?.fields.r ?? 0),
            state: 'pending',
            attempts,
          };
        });
        for (const { id, fields } of entriesOf(failedEntries)) {
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
        // Entries not delivered yet (the group's lag, Redis ≥ 7) wait too.
        let lag = 0;
        for (const info of asArray(groups)) {
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
          await appendEntry(Number.MAX_SAFE_INTEGER, [
            fields.t ?? '',
            fields.k ?? '',
            fields.r ?? '0',
            fields.b ?? '',
          ]);
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
          Array.isArray(summary) && numberReply(summary[0]) > 0
            ? textReply(summary[1], 'XPENDING')
            : undefined;
        const [ms, seq] = idParts(lastDelivered);
        let keepFrom = oldestPending ?? `${ms}-${seq + 1n}`;
        const cutoff = `${Math.max(0, Date.now() - retentionMs)}-0`;
        if (idBefore(cutoff, keepFrom)) keepFrom = cutoff;
        await send(stream, 'XTRIM', stream, 'MINID', keepFrom);
      }),
  };
}
