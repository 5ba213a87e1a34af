/**
 * The options, counters and interface of the webhook handler (README "Receiving webhooks"; docs/webhooks.md).
 * @module
 */
import type { Logger, LogLevel, SchemaDrift, ValidationMode } from '../core/options.js';
import type { DeliveryStore } from '../core/store.js';
import type { TaskListOptions } from '../resources/tasks.js';
import type { Task } from '../schemas/task.js';
import type { TaskListParams } from '../schemas/task-list.js';
import type { WebhookEventKind } from '../schemas/webhook.js';
import type { WebhookEvent } from './event.js';
import type { WebhookInbox } from './inbox.js';
import type { WebhookNodeRequest, WebhookNodeResponse } from './node.js';
import type { WebhookStartSyncOptions, WebhookSyncOptions, WebhookSyncResult } from './sync.js';

/** What the handler needs of a `DeliveryClient`: `tasks.retrieve` to confirm, `tasks.list` for `sync()`. */
export interface WebhookClient {
  readonly tasks: {
    /** `client.tasks.retrieve`, or any function returning a promise of the task. */
    retrieve(id: string): PromiseLike<Task>;
    /**
     * `client.tasks.list`, or any async iterable of the listed tasks. Needed by `sync()` and `startSync()`.
     */
    list?(params: TaskListParams, options: TaskListOptions): AsyncIterable<Task>;
  };
}

/** Bounds of the duplicate and order memory (see {@link WebhookHandlerOptions.dedupe}). */
export interface WebhookDedupeOptions {
  /** How long a (task id, status) is remembered in this process, ms. Default 600 000 (10 min). */
  windowMs?: number;
  /** Tasks remembered in this process at most, least recently used forgotten first. Default 10 000. */
  maxTasks?: number;
  /**
   * With a `store`: how long a task's record is kept after its last event, ms. Default 86 400 000 (1 day); ≥
   * 1.
   */
  storeTtlMs?: number;
}

/** Options of {@link createWebhookHandler}. Integers out of range throw `ConfigurationError`. */
export interface WebhookHandlerOptions {
  /**
   * Called per accepted event after the answer (and per status `sync()` finds); awaited; a task's events in
   * order.
   */
  onEvent: (event: WebhookEvent) => unknown;
  /**
   * `'tolerant'` (default): 400 only without a task id or `status`; `'strict'`: any drift (README "Schema
   * drift").
   */
  validation?: ValidationMode;
  /**
   * Called per drifted field (`operation: 'webhook'`, path, type names, never the value), and by `sync()` for
   * its
   * listing (`operation: 'tasks.list'`: times without a zone, pages out of order); logged at `warn` once per
   * path.
   */
  onDrift?: (drift: SchemaDrift) => void;
  /**
   * A `DeliveryClient` (or `tasks.retrieve`, `tasks.list`) for `confirm` and `sync()`; its seller id scopes
   * `store` keys.
   */
  client?: WebhookClient;
  /**
   * `GET tasks/{id}` before `onEvent` (`true`, or the kinds; docs/webhooks.md "Why and how to confirm").
   * Default: the final statuses with a client, else `false`. @throws {ConfigurationError} without a client.
   */
  confirm?: boolean | readonly WebhookEventKind[];
  /** Drop duplicates and stale statuses (docs/webhooks.md "Duplicates and ordering"). Default `true`. */
  dedupe?: boolean | WebhookDedupeOptions;
  /**
   * A {@link DeliveryStore} shared by the instances; memory stands in while it fails (README "Running several
   * instances").
   */
  store?: DeliveryStore;
  /** Deadline of one `store` call, ms. Default 1 000 (`DEFAULT_STORE_TIMEOUT_MS`); 1 to 2 147 483 647. */
  storeTimeoutMs?: number;
  /**
   * How far before the checkpoint `sync()` walks, ms (clock skew, updates in flight). Default 300 000 (5
   * min); ≥ 0.
   */
  syncSkewMs?: number;
  /** Largest body accepted, bytes; larger ones get 413. Default 1 048 576 (1 MiB). */
  maxBodyBytes?: number;
  /**
   * Deadline for the whole body, ms, then 408; keep it under the service's 5 s. Default 2 000; 1 to 2 147 483
   * 647.
   */
  bodyTimeoutMs?: number;
  /**
   * Gets failures of `onEvent` and confirming (with the event), and of `startSync`; awaited. Default:
   * `logger.error`.
   */
  onError?: (error: unknown, event: WebhookEvent | undefined) => unknown;
  /**
   * Events in `onEvent` at once at most. Up to 2 × `concurrency` more are filtered and confirmed ahead of a
   * free place (with a `store`, each holds its task's lease), and one whose `onEvent` returned records its
   * status (a `store` write) without holding its place; its task's next event waits for that record.
   * Events started and not ended: 4 × `concurrency` at most. Default 8; 1 to 10 000.
   */
  concurrency?: number;
  /**
   * Deadline of one `onEvent` call, ms: then `onError` gets `WebhookEventTimeoutError` and the slot is freed.
   * Default 30 000.
   */
  eventTimeoutMs?: number;
  /**
   * Events waiting for a place in `onEvent` at most (queued, or filtered ahead of one); beyond, 503
   * (`sync()` catches them); with an `inbox`, bounds the claims. Default 10 000; ≥ 1.
   */
  maxQueue?: number;
  /**
   * Body bytes held by waiting and running events at most; beyond, 503. Default 64 MiB, or `maxBodyBytes`
   * when larger.
   */
  maxQueueBytes?: number;
  /**
   * A durable {@link WebhookInbox}: 200 once stored, else 503 (docs/several-instances.md "Durable intake").
   * @throws {ConfigurationError} for a non-inbox, or `visibilityTimeoutMs` not over `eventTimeoutMs`.
   */
  inbox?: WebhookInbox;
  /** Deadline of one inbox call (write, claim, mark), ms. Default 2 000; 1 to 2 147 483 647. */
  inboxTimeoutMs?: number;
  /**
   * With an `inbox`: run workers in this process. `false` for a process that only receives. Default `true`.
   */
  inboxWorkers?: boolean;
  /** With an `inbox`: pause after a claim that found nothing, ms. Default 100; 1 to 2 147 483 647. */
  inboxPollMs?: number;
  /** Where log lines go (never a body; secrets redacted). Default: the client's `logger`, else `console`. */
  logger?: Logger;
  /** Least severe level written. Default: the client's `logLevel`, else env `DELIVERY_LOG`, else `'warn'`. */
  logLevel?: LogLevel;
}

/** Counters of a {@link WebhookHandler} since it was created. */
export interface WebhookHandlerStats {
  received: number;
  processed: number;
  /** Events dropped as duplicates of (task id, status). */
  duplicates: number;
  /** Events dropped because the task had moved past them (or ended). */
  outOfOrder: number;
  rejected: number;
  /** Events whose confirmation or `onEvent` failed. */
  failed: number;
  stored: number;
  claimed: number;
  /**
   * Events whose task's lease lapsed while `onEvent` ran (a stall past its TTL): maybe processed twice; each
   * logged.
   */
  leaseLapsed: number;
  /** Resets of the inbox's server seen (its webhooks lost; each logged once and followed by a `sync()`). */
  resets: number;
}

/** The platform context of a Web request, for runtimes that stop work after the response. */
export interface WebhookFetchContext {
  /**
   * Keeps the runtime alive until the promise settles (Cloudflare `ctx.waitUntil`, Vercel `waitUntil`,
   * Next.js `after`).
   */
  waitUntil(promise: Promise<unknown>): void;
}

/** Options of {@link WebhookHandler.node}. */
export interface WebhookNodeOptions {
  /**
   * The body a framework already read (Fastify's `request.body`): JSON, text or bytes. Default: `req.body`,
   * else the stream.
   */
  body?: unknown;
}

/** A webhook receiver with a Web and a Node adapter, both bound. */
export interface WebhookHandler {
  /**
   * Web adapter: 200 `{"received":true}` once queued, else 4xx/5xx (docs/webhooks.md "Mounting"). Never
   * rejects.
   */
  fetch(request: Request, context?: WebhookFetchContext): Promise<Response>;
  /**
   * Node adapter (node:http, Express, Fastify after `reply.hijack()`), answering as {@link
   * WebhookHandler.fetch | fetch}. Never rejects.
   */
  node(req: WebhookNodeRequest, res: WebhookNodeResponse, options?: WebhookNodeOptions): Promise<void>;
  /**
   * Resolves once every event accepted so far is processed, dropped or failed (with an `inbox`: this
   * process's, and a claim finds none).
   */
  idle(): Promise<void>;
  /**
   * Stops this process's inbox workers and resolves once their claimed events are marked; webhooks are still
   * answered.
   */
  close(): Promise<void>;
  /**
   * Walks `client.tasks.list` since the checkpoint, passing each status on (docs/webhooks.md "Catching lost
   * events").
   * @returns the counts; `gaps`: final statuses no webhook brought.
   * @throws {ConfigurationError} without `tasks.list`; its errors; `APIUserAbortError` on `options.signal`.
   */
  sync(options?: WebhookSyncOptions): Promise<WebhookSyncResult>;
  /**
   * Runs {@link sync} now and every `intervalMs` on one instance per `store`; returns `stop()`.
   * @throws {ConfigurationError} without `tasks.list`, or `intervalMs` out of range.
   */
  startSync(options?: WebhookStartSyncOptions): () => Promise<void>;
  /** A snapshot of the counters. */
  readonly stats: Readonly<WebhookHandlerStats>;
}

export function baseUrlOf(client: unknown): string | undefined {
  const baseUrl =
    typeof client === 'object' && client !== null ? (client as { baseUrl?: unknown }).baseUrl : undefined;
  return typeof baseUrl === 'string' ? baseUrl : undefined;
}
