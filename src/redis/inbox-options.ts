/** The options of `redisInbox` and what it returns (docs/several-instances.md "Durable intake"). @module */
import type { WebhookInbox } from '../webhooks/inbox.js';
import type { RedisWarningLogger } from './commands.js';

/** Options of `redisInbox`. */
export interface RedisInboxOptions {
  /** The stream's key; on a cluster, with a hash tag (`{dts}:events`). Default `'dts:events'`. */
  stream?: string;
  /** The consumer group. Default `'dts-workers'`. */
  group?: string;
  /**
   * Entries the stream holds at most (done ones not yet trimmed too); beyond, 503. Default 1 000 000; ≥ 1.
   */
  maxEntries?: number;
  /** How long done entries stay before they are trimmed, ms. Default 900 000 (15 min); ≥ 0. */
  retentionMs?: number;
  /**
   * How long a claimed event stays with its worker, ms; over the handler's `eventTimeoutMs`. Default 60 000;
   * ≥ 1.
   */
  visibilityTimeoutMs?: number;
  /** Claims of one event at most, then it fails. Default 5; ≥ 1. */
  maxAttempts?: number;
  /** Failed events kept at most (`MAXLEN`). Default 10 000; ≥ 1. */
  maxFailed?: number;
  /** After each write, `WAITAOF` (Redis ≥ 7.2; `true`: local, 1 000 ms), else 503. Default `false`. */
  waitAof?: boolean | { local?: 0 | 1; replicas?: number; timeoutMs?: number };
  /**
   * `true` accepts a Redis that keeps nothing on disk (`appendonly no`, `save ''`): restarted, it loses the
   * webhooks it held, answered 200 already (a reset is still reported). Default `false`: {@link
   * RedisInbox.ready}
   * refuses such a Redis (docs/several-instances.md "Redis settings").
   */
  volatile?: boolean;
  /** Where the warnings go, and the error line of a reset no handler listens to. Default `console`. */
  logger?: RedisWarningLogger;
}

/** What `redisInbox` returns: a {@link WebhookInbox} with its start-up check and its resets. */
export interface RedisInbox extends WebhookInbox {
  /**
   * Checks the Redis once, then makes the stream's epoch and consumer group; await it at boot. Every other
   * method awaits it first, so without it the first webhook or claim runs it. Resolves on every master of a
   * cluster that: has no `allkeys-*` `maxmemory-policy`; has `appendonly yes`, or RDB snapshots (`save`: one
   * warning stating what a restart loses), or any persistence with `volatile: true`. Where `CONFIG` is
   * refused (renamed, ACL, some managed Redis): one warning, and it resolves.
   * @throws {ConfigurationError} `option: 'maxmemory-policy'` or `'appendonly'` (checked again at the next
   * call).
   * @throws the client's error when Redis cannot be reached (run again at the next call).
   */
  ready(): Promise<void>;
  /**
   * Calls `listener` once per reset of the Redis seen while running (its consumer group lost, its epoch gone
   * or made again, fewer webhooks written than this process saw): restarted empty or from an older snapshot,
   * or flushed. The webhook handler counts it in `stats.resets`, logs one error and starts `sync()`. Returns
   * the listener's removal.
   */
  onReset(listener: (reset: { readonly reason: string }) => void): () => void;
}
