/**
 * `createWebhookHandler`: receives the service's status webhooks, answers at once and processes them
 * afterwards; OpenAPI webhook `taskStatusChanged` (items 5–8) and README "What the spec leaves open, and what we chose" (5 s answer, no retries). With a `store`, the
 * duplicate and order filter holds across instances (`stored-dedupe.ts`); `sync()` catches lost events
 * (`sync.ts`).
 * @module
 */
import {
  ConfigurationError,
  DeliveryError,
  isStoreUnavailableError,
  isWebhookPayloadError,
  WebhookEventTimeoutError,
} from '../core/errors.js';
import type { Logger, LogLevel, SchemaDrift, ValidationMode } from '../core/options.js';
import { DEFAULT_STORE_TIMEOUT_MS, type DeliveryStore } from '../core/store.js';
import { driftReporter } from '../internal/drift-report.js';
import { LevelLogger, resolveLogLevel } from '../internal/logger.js';
import { checkValidation, integerOption, MAX_TIMER_MS } from '../internal/options.js';
import { Redactor } from '../internal/redact.js';
import { loggingOf, redactorOf, sellerIdOf } from '../internal/seller.js';
import { assertTaskId } from '../internal/task-identity.js';
import { recordFailure, SpanKind, startSpan } from '../internal/tracing.js';
import type { TaskListOptions } from '../resources/tasks.js';
import { FINAL_STATUSES } from '../schemas/lifecycle.js';
import type { Task } from '../schemas/task.js';
import type { TaskListParams } from '../schemas/task-list.js';
import type { WebhookEventKind } from '../schemas/webhook.js';
import { type BodyRead, bodyTimedOut, precheck, RECEIVED, rejection, tooLarge, type WebhookAnswer } from './answer.js';
import { TaskConfirmations } from './confirmation.js';
import { TaskEventMemory } from './dedupe.js';
import { parseWebhookEventAt, type WebhookEvent, type WebhookReading } from './event.js';
import { type InboxEntry, InboxWorker, isWebhookInbox, type WebhookInbox, withDeadline } from './inbox.js';
import { readNodeBody, type WebhookNodeRequest, type WebhookNodeResponse, writeNodeAnswer } from './node.js';
import { TaskEventQueue } from './queue.js';
import { SharedState } from './shared-state.js';
import { type EventOutcome, isLeaseBusy, StoredTaskEvents } from './stored-dedupe.js';
import { TaskSync, type WebhookStartSyncOptions, type WebhookSyncOptions, type WebhookSyncResult } from './sync.js';
import { readRequestBody, toResponse } from './web.js';

/**
 * What the handler needs of a `DeliveryClient`: `tasks.retrieve` to confirm events, `tasks.list` for
 * `sync()` and `startSync()`. A `DeliveryClient` has both.
 */
export interface WebhookClient {
  readonly tasks: {
    /** `client.tasks.retrieve`: any function returning a promise of the task will do (a plain `Promise` too). */
    retrieve(id: string): PromiseLike<Task>;
    /** `client.tasks.list`: any async iterable of every listed task will do. Needed by `sync()` and `startSync()`. */
    list?(params: TaskListParams, options: TaskListOptions): AsyncIterable<Task>;
  };
}

/** Bounds of the duplicate and order memory (see {@link WebhookHandlerOptions.dedupe}). */
export interface WebhookDedupeOptions {
  /** How long a (task id, status) is remembered in this process, ms. Default 600 000 (10 min). */
  windowMs?: number;
  /** Tasks remembered in this process at most; the least recently used is forgotten first. Default 10 000. */
  maxTasks?: number;
  /**
   * With a `store`: how long a task's record there (the statuses processed, how far along it is, whether
   * it ended) is kept after its last processed event, ms; the duplicate window across instances. Default
   * 86 400 000 (1 day); an integer ≥ 1, else `ConfigurationError`. Without a store, `windowMs` applies.
   */
  storeTtlMs?: number;
}

/** Options of {@link createWebhookHandler}. */
export interface WebhookHandlerOptions {
  /**
   * Called once per accepted event, after the answer has been sent (never delays it), and for each status
   * a `sync()` finds that was not processed yet (`event.source` says which); a returned promise is
   * awaited. At most `concurrency` calls run at once, and the events of one task run one at a time in
   * arrival order (with a `store`, one at a time across the instances sharing it). A throw or rejection
   * goes to `onError`, never to the sender.
   */
  onEvent: (event: WebhookEvent) => unknown;
  /**
   * How bodies are read (README "Schema drift"). `'tolerant'` (default): a documented field of the wrong
   * type is coerced when unambiguous (`"true"` → `true`, `1.5` → `"1.5"`, `"29.1"` → `29.1`) or left out,
   * and reported, so a drifted field never costs an event (the service does not resend); only a body
   * without a usable task id or `status` is answered 400. `'strict'`: any documented field of the wrong type
   * is answered 400. `'warn'` and `'off'` are deprecated aliases of `'tolerant'`.
   */
  validation?: ValidationMode;
  /**
   * Called once for each drifted field of a body read tolerantly, with `operation: 'webhook'`, its path and
   * the documented and received type names (never the value). Drift is also logged at `warn`, once per path.
   */
  onDrift?: (drift: SchemaDrift) => void;
  /**
   * A `DeliveryClient` (or anything with `tasks.retrieve`), used to confirm events (see `confirm`), and
   * with `tasks.list`, by `sync()` and `startSync()`. Required with `confirm: true` or a list; given
   * alone, the final statuses are confirmed. Its seller id scopes the keys in `store`.
   */
  client?: WebhookClient;
  /**
   * Confirm events with `GET tasks/{id}` (`client.tasks.retrieve`) before `onEvent`, as the spec advises
   * (OpenAPI webhook `taskStatusChanged`: webhooks are not signed): `true` for every kind, or the kinds to confirm, e.g.
   * `['delivered', 'cancelled']`. With a client, the final statuses (delivered, cancelled, rejected,
   * failed) are always confirmed too, so a forged one cannot end a task: `['delivered', 'cancelled']`
   * confirms rejected and failed as well. The GET wins over the body: `onEvent` gets `confirmed: true`,
   * the task read back and its status. When the GET fails (or reads another task, or one without an id:
   * a `ResponseValidationError` on `id`; or the task has no status), `onError` gets the
   * error and `onEvent` is not called for that event. `false` confirms nothing, even with a client.
   * One GET is shared by the events of a task waiting on it, and a 404 is remembered for 10 000 ms (events
   * of that task then fail without a GET): docs/webhooks.md "Deadlines and bounds".
   * Default: the final statuses with a client, else `false`.
   * @throws {ConfigurationError} for `true` or a list without a client, or a value of another type.
   */
  confirm?: boolean | readonly WebhookEventKind[];
  /**
   * Drop duplicates of (task id, status) within a window, and statuses older along the delivery path
   * (pending < requested < accepted < inprogress < pickup_location_reached < pickedup < enroute <
   * delivered) than one already processed for the task; after a final status (delivered, cancelled,
   * rejected, failed) nothing more is processed for it. Unknown kinds are never older. Dropped events are
   * still answered 200 and counted in `stats`. `false` passes every valid webhook to `onEvent`. Default
   * `true` (10 min, 10 000 tasks).
   *
   * A webhook body can be forged (OpenAPI webhook `taskStatusChanged`), so when events are confirmed only what
   * `GET tasks/{id}` read back moves a task along or ends it (and a status read back is itself dropped as
   * a duplicate or as older, so a stale read never moves a task backwards); an unconfirmed event is dropped only as a
   * duplicate of (task id, kind) or as older than a confirmed status, and never hides a later one.
   * Without confirmation the body is all there is: bodies set the order, and a final status from a body
   * drops later statuses that are not final, while another final status still reaches `onEvent` (two
   * cannot both be real, and a body cannot tell which one is).
   */
  dedupe?: boolean | WebhookDedupeOptions;
  /**
   * A store shared by every instance receiving webhooks (`memoryStore()` shares within one process;
   * `redisStore(…)` from `delivery-task-sdk/redis`, or your own {@link DeliveryStore}). With it, the
   * duplicate and order filter of `dedupe` lives in the store: behind a load balancer each (task id,
   * status) is processed once whichever instance each webhook reaches, and one instance at a time
   * processes a task's events (a lease per task, held while `onEvent` runs), so an older status never
   * reaches `onEvent` after a newer one. A status is recorded once its `onEvent` completed: after a
   * failure (or a crash) a resend or a sync is processed. It also keeps the sync checkpoint and the lease
   * of `startSync`. Keys are `v2:<base URL>:<seller id>:webhook:…` (the base URL and seller id of `client`, else `default`); each
   * has a TTL (`dedupe.storeTtlMs` for a task's record, `eventTimeoutMs` plus four store timeouts plus 1 s
   * for a task's lease).
   *
   * The answer to a webhook never waits on the store (the store is used after it, while processing). When
   * the store fails or does not answer within `storeTimeoutMs`, processing goes on with this process's
   * memory (duplicates and order within this instance only) and one warning is logged; the store is
   * probed every 5 × `storeTimeoutMs` and an info line is logged when it answers again. Neither line names
   * a key. Default: none (this process's memory; `dedupe` as described there).
   */
  store?: DeliveryStore;
  /**
   * Deadline of one call to `store`, ms; a slower call counts as a failure of the store (see `store`).
   * Default 1 000 (`DEFAULT_STORE_TIMEOUT_MS`); an integer from 1 to 2 147 483 647, else `ConfigurationError`.
   */
  storeTimeoutMs?: number;
  /**
   * How far before the checkpoint `sync()` walks, ms: covers clock skew between the service and this
   * machine and updates in flight when the last walk started. Default 300 000 (5 min); an integer ≥ 0,
   * else `ConfigurationError`.
   */
  syncSkewMs?: number;
  /** Largest body accepted, bytes; larger ones get 413 (early when `Content-Length` says so). Default 1 048 576 (1 MiB). */
  maxBodyBytes?: number;
  /**
   * Deadline for receiving the whole body, ms, counted from the start of the read: a sender that has not
   * sent all of it by then (one dribbling bytes, or declaring a `Content-Length` larger than what it
   * sends) is answered 408 with `connection: close`, the body stream is cancelled and the socket freed.
   * Bytes arriving slowly do not extend it. Keep it well under the 5 s the service waits for an answer
   * (OpenAPI webhook `taskStatusChanged`; README "What the spec leaves open, and what we chose"). Applies where the handler reads the body itself (the stream, or
   * a Web `Request`); a body a framework already parsed is governed by the framework's own timeouts.
   * Default 2 000 (2 s); an integer from 1 to 2 147 483 647, else `ConfigurationError`.
   */
  bodyTimeoutMs?: number;
  /**
   * Called with failures of `onEvent`, of confirmation (with the event), of the handler itself (500,
   * without an event) and of the syncs `startSync` runs (without an event); a returned promise is awaited. Default: `logger.error` with the task id, kind and
   * error (never the body). Its own failures are logged.
   */
  onError?: (error: unknown, event: WebhookEvent | undefined) => unknown;
  /** Events processed at once at most. Default 8; an integer from 1 to 10 000. */
  concurrency?: number;
  /**
   * Deadline for one `onEvent` call, ms. When a call has not settled by then its processing slot is
   * freed, so the events behind it (those of the same task too, still in arrival order) go on;
   * `onError` gets a `WebhookEventTimeoutError` (`taskId`, `kind`, `timeoutMs`) with the event, and it
   * counts as `failed`. The call itself cannot be stopped: whatever it does later is ignored. Without a
   * deadline, `concurrency` calls that never settle would stop all processing. Default 30 000 (30 s);
   * an integer from 1 to 2 147 483 647, else `ConfigurationError`.
   */
  eventTimeoutMs?: number;
  /**
   * Events waiting for processing at most; beyond, webhooks are answered 503 (the service does not
   * retry: such events are caught by `sync()`). With an `inbox`, the bound of what this process's
   * workers claim, never a reason to answer 503. Default 10 000; an integer ≥ 1.
   */
  maxQueue?: number;
  /**
   * Bytes of webhook bodies held by the events waiting and running at most, counted as received (the
   * bytes read, or the JSON length of a body a framework already parsed); a webhook that would go
   * beyond is answered 503, and an event's bytes are given back when its processing ends. Bounds the
   * memory a flood of large webhooks with a slow `onEvent` can take (OpenAPI webhook `taskStatusChanged`: the service sends
   * the full task). Default 67 108 864 (64 MiB), or `maxBodyBytes` when that is larger; an integer from
   * `maxBodyBytes` up, else `ConfigurationError`.
   */
  maxQueueBytes?: number;
  /**
   * A durable inbox (`redisInbox(…)` from `delivery-task-sdk/redis`, `postgresInbox(…)` from
   * `delivery-task-sdk/postgres`, or your own {@link WebhookInbox}). With it, a webhook is answered 200
   * only once the inbox has stored it, and 503 at once when the inbox cannot (down, slower than
   * `inboxTimeoutMs`, or full: beyond its stated bound), with one warning line; the local queue being full
   * no longer matters to the answer, as the event waits in the inbox. Workers in this process (see
   * `inboxWorkers`) claim events from the inbox while the local queue has room, process them through the
   * same pipeline (confirmation, duplicate and order filter, `onEvent`) and mark them done, or failed
   * (kept for `inbox.replay()`) when confirmation or `onEvent` failed. An event whose worker died is
   * claimed by another worker after the inbox's visibility timeout, so every event answered 200 reaches
   * the pipeline. Give a `store` too, so duplicates and order hold across the processes sharing the
   * inbox; then nothing is processed on this process's memory when the store fails: claimed events wait
   * (unmarked, no new claims) and go on at the first store call that succeeds. README "Running several instances"; docs/several-instances.md "Durable intake".
   * @throws {ConfigurationError} (`option: 'inbox'`) for a value that is not a {@link WebhookInbox}, or one
   * whose `visibilityTimeoutMs` is not longer than `eventTimeoutMs`.
   */
  inbox?: WebhookInbox;
  /**
   * Deadline of one inbox call (writing a webhook, claiming, marking), ms: a webhook not stored by then
   * is answered 503. Default 2 000 (well under the 5 s the service waits); an integer from 1 to
   * 2 147 483 647, else `ConfigurationError`.
   */
  inboxTimeoutMs?: number;
  /**
   * With an `inbox`: run workers in this process (claiming events whenever the local queue has room,
   * every `inboxPollMs` when the inbox is empty). `false` for a process that only receives. Default `true`.
   */
  inboxWorkers?: boolean;
  /** With an `inbox`: pause between two claims that found nothing, ms. Default 100; an integer from 1 to 2 147 483 647. */
  inboxPollMs?: number;
  /**
   * Where log lines go. Default: the `logger` of `client` when it is a `DeliveryClient`, else `console`
   * (docs/configuration.md "Logging and secrets"). Lines carry task ids and kinds, never a body; the
   * client's secrets are redacted from them.
   */
  logger?: Logger;
  /**
   * Least severe level written. Default: the `logLevel` of `client` when it is a `DeliveryClient` (a
   * client at `'off'` keeps the handler silent too), else env `DELIVERY_LOG`, else `'warn'`. Rejected
   * webhooks are logged at `warn`, duplicates and out-of-order events at `debug`.
   */
  logLevel?: LogLevel;
}

/** Counters of a {@link WebhookHandler}, since it was created. */
export interface WebhookHandlerStats {
  /** Requests that reached an adapter. */
  received: number;
  /** Events whose `onEvent` completed without error. */
  processed: number;
  /** Events dropped as duplicates of (task id, status). */
  duplicates: number;
  /** Events dropped because the task had already moved past them (or ended). */
  outOfOrder: number;
  /** Requests answered with an error status (4xx, 5xx). */
  rejected: number;
  /** Events whose confirmation or `onEvent` failed (passed to `onError`). */
  failed: number;
  /** Webhooks written to the `inbox` (answered 200). */
  stored: number;
  /** Events this process's workers claimed from the `inbox`. */
  claimed: number;
}

/** The platform context of a Web request, for runtimes that stop work after the response (workers). */
export interface WebhookFetchContext {
  /** Keeps the runtime alive until the promise settles (Cloudflare `ctx.waitUntil`, Vercel `waitUntil`, Next.js `after`). */
  waitUntil(promise: Promise<unknown>): void;
}

/** Options of {@link WebhookHandler.node}. */
export interface WebhookNodeOptions {
  /**
   * The body, when a framework has already read the stream (Fastify's `request.body`): parsed JSON, JSON
   * text or bytes. Default: `req.body` when a middleware set it (Express's `express.json()`), else the
   * stream is read.
   */
  body?: unknown;
}

/** A webhook receiver with a Web and a Node adapter. Both are bound: pass them around freely. */
export interface WebhookHandler {
  /**
   * Web adapter, `Request → Response` (Hono, Next.js route handlers, Bun, Deno, workers). Answers 200
   * `{"received":true}` as soon as the event is queued; 405 (with `Allow: POST`) for another method, 415
   * for a content type that is not JSON, 413 over `maxBodyBytes`, 408 (with `connection: close`) for a
   * body not received within `bodyTimeoutMs`, 400 for a body that is not JSON or not a webhook (including
   * a bad task id), 503 when the queue is full (with an `inbox`: when the inbox did not store the webhook
   * within `inboxTimeoutMs`; the answer then waits for the inbox write), 500 on an internal failure. Never rejects. With
   * `context`, `context.waitUntil` gets a promise that settles when the event is processed.
   */
  fetch(request: Request, context?: WebhookFetchContext): Promise<Response>;
  /**
   * Node adapter for node:http, Express and Fastify (`reply.hijack()` first); answers as {@link WebhookHandler.fetch | fetch}.
   * Uses `options.body`, else `req.body` (set by `express.json()`), else reads the stream. Never rejects.
   */
  node(req: WebhookNodeRequest, res: WebhookNodeResponse, options?: WebhookNodeOptions): Promise<void>;
  /**
   * Resolves once every event accepted so far has been processed (or dropped, or failed). With an
   * `inbox`: once this process's queue is empty and a claim finds nothing more in the inbox (events
   * claimed by other processes are theirs).
   */
  idle(): Promise<void>;
  /**
   * Stops this process's inbox workers (no claim after it) and resolves once the events they claimed
   * have been processed and marked. Without an `inbox`, resolves once the queue is idle. The handler
   * still answers webhooks afterwards (writing them to the inbox for other workers).
   */
  close(): Promise<void>;
  /**
   * Catches lost events (the service never resends a webhook; OpenAPI webhook `taskStatusChanged`): walks
   * `client.tasks.list({ sortBy: 'updatedAt', sortOrder: -1 })` back to the checkpoint minus
   * `syncSkewMs` and passes each task's current status through the same queue, duplicate and order filter
   * as a webhook, as a confirmed event with `source: 'sync'` (a listed task is the service's own answer,
   * so it is not read again). A status a webhook already brought is dropped as a duplicate, on any instance
   * sharing the `store`. Then the checkpoint (in the `store`, else in this process) moves to the time the
   * walk started, unless an event failed: the next sync tries it again. The first sync, and any walk,
   * goes back at most the duplicate window (`dedupe.storeTtlMs` with a store, else `dedupe.windowMs`):
   * beyond it the filter could not tell what was already processed.
   * @returns the counts of the walk, once every event it found has been processed; `gaps` counts the final
   * statuses no webhook had delivered as far as the handler can tell (`gapsScope`; without a store, those
   * it cannot tell go to `unverified`): docs/webhooks.md "Catching lost events".
   * @throws {ConfigurationError} when `client` has no `tasks.list`; the errors of `tasks.list`
   * (`APIError`, `APIConnectionError`, …); {@link APIUserAbortError} when `options.signal` aborts.
   */
  sync(options?: WebhookSyncOptions): Promise<WebhookSyncResult>;
  /**
   * Runs {@link sync} now and then every `intervalMs` after each one ends, on one instance at a time of
   * those sharing the `store`: a lease in the store (taken when free, renewed by compare-and-set at each
   * run and every third of its TTL while one runs; TTL 1.5 × `intervalMs` plus two store timeouts). When
   * its holder stops or dies, another instance takes over once the lease is released or has expired.
   * During a store outage no sync runs. Failures go to `onError` (without an event); timers do not keep
   * the process alive.
   * @returns `stop()`: no sync starts after it; the running one is aborted and the lease released; its
   * promise resolves once that is done.
   * @throws {ConfigurationError} when `client` has no `tasks.list`, or for an `intervalMs` out of range.
   */
  startSync(options?: WebhookStartSyncOptions): () => Promise<void>;
  /** A snapshot of the counters. */
  readonly stats: Readonly<WebhookHandlerStats>;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const DEFAULT_BODY_TIMEOUT_MS = 2_000;
const DEFAULT_CONCURRENCY = 8;
const DEFAULT_EVENT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_QUEUE = 10_000;
const DEFAULT_MAX_QUEUE_BYTES = 64 * 1024 * 1024;
const DEFAULT_WINDOW_MS = 10 * 60 * 1000;
const DEFAULT_MAX_TASKS = 10_000;
const DEFAULT_STORE_TTL_MS = 24 * 60 * 60 * 1000;
const DEFAULT_SYNC_SKEW_MS = 5 * 60 * 1000;
const DEFAULT_INBOX_TIMEOUT_MS = 2_000;
const DEFAULT_INBOX_POLL_MS = 100;
/** Pauses before a claimed event is tried again while the store does not answer, ms (doubling). */
const FIRST_STORE_WAIT_MS = 50;
const LAST_STORE_WAIT_MS = 1_000;

/** True for an object with the four operations of a {@link DeliveryStore}. */
function isDeliveryStore(value: unknown): value is DeliveryStore {
  if (typeof value !== 'object' || value === null) return false;
  const store = value as Record<keyof DeliveryStore, unknown>;
  return [store.setIfAbsent, store.get, store.compareAndSet, store.delete].every(
    (member) => typeof member === 'function',
  );
}

/** The base URL of a `DeliveryClient` (its `baseUrl`), for store keys; `undefined` for another client. */
function baseUrlOf(client: unknown): string | undefined {
  const baseUrl = typeof client === 'object' && client !== null ? (client as { baseUrl?: unknown }).baseUrl : undefined;
  return typeof baseUrl === 'string' ? baseUrl : undefined;
}

function describeError(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return String(error);
}

class WebhookReceiver implements WebhookHandler {
  readonly #onEvent: WebhookHandlerOptions['onEvent'];
  readonly #onError: NonNullable<WebhookHandlerOptions['onError']>;
  readonly #client: WebhookClient | undefined;
  /** The confirming GETs, shared by the events of one task waiting on them (see `confirmation.ts`). */
  #confirmations: TaskConfirmations | undefined;
  /** True for the kinds confirmed by `GET tasks/{id}` before `onEvent`. */
  readonly #confirms: (kind: string) => boolean;
  /** Some kinds are confirmed: only what the GET reads back moves the order (see `dedupe`). */
  readonly #confirming: boolean;
  /** The duplicate and order filter in this process (without a `store`). */
  readonly #memory: TaskEventMemory | undefined;
  /** The duplicate and order filter in the `store`. */
  readonly #stored: StoredTaskEvents | undefined;
  readonly #queue: TaskEventQueue;
  readonly #sync: TaskSync;
  readonly #maxBodyBytes: number;
  readonly #bodyTimeoutMs: number;
  readonly #eventTimeoutMs: number;
  readonly #logger: LevelLogger;
  /** How bodies are read: the validation mode and the drift report. */
  readonly #reading: WebhookReading;
  readonly #stats: WebhookHandlerStats = {
    received: 0,
    processed: 0,
    duplicates: 0,
    outOfOrder: 0,
    rejected: 0,
    failed: 0,
    stored: 0,
    claimed: 0,
  };
  readonly #inbox: WebhookInbox | undefined;
  readonly #inboxTimeoutMs: number;
  readonly #worker: InboxWorker | undefined;
  readonly #maxQueue: number;

  constructor(options: WebhookHandlerOptions) {
    if (typeof options?.onEvent !== 'function') {
      throw new ConfigurationError('onEvent', 'Missing onEvent: createWebhookHandler({ onEvent: (event) => … })');
    }
    this.#onEvent = options.onEvent;
    // The client's logger and level (a `DeliveryClient`'s), unless the handler is given its own.
    const clientLogging = loggingOf(options.client);
    this.#logger = new LevelLogger(
      options.logger ?? clientLogging?.logger ?? console,
      options.logLevel === undefined && clientLogging !== undefined
        ? clientLogging.level
        : resolveLogLevel(options.logLevel),
      redactorOf(options.client) ?? new Redactor([]),
    );
    this.#onError =
      options.onError ??
      ((error, event) =>
        this.#logger.error(
          event === undefined
            ? 'Webhook handler failed'
            : `Webhook processing failed for task ${event.taskId} (${event.kind})`,
          { error: describeError(error) },
        ));
    this.#client = options.client;
    if (options.onDrift !== undefined && typeof options.onDrift !== 'function') {
      throw new ConfigurationError('onDrift', `Invalid onDrift: expected a function, got ${typeof options.onDrift}`);
    }
    const reportDrift = driftReporter(this.#logger, options.onDrift);
    this.#reading = {
      validation: checkValidation(options.validation),
      onDrift: (drift) => reportDrift('webhook', [drift], undefined),
    };
    // With a client, the final statuses are confirmed whatever the list says: a forged final status
    // would otherwise end the task and hide the genuine one (the service sends each webhook once).
    const confirm = options.confirm ?? (options.client !== undefined ? FINAL_STATUSES : false);
    if (confirm !== false && confirm !== true && !Array.isArray(confirm)) {
      throw new ConfigurationError('confirm', 'Invalid confirm: expected true, false or an array of event kinds');
    }
    if (confirm !== false && typeof options.client?.tasks?.retrieve !== 'function') {
      throw new ConfigurationError('client', 'confirm needs a client: createWebhookHandler({ client, confirm, … })');
    }
    const confirmedKinds = new Set<string>(Array.isArray(confirm) ? [...confirm, ...FINAL_STATUSES] : []);
    this.#confirms = confirm === true ? () => true : (kind) => confirmedKinds.has(kind);
    this.#confirming = confirm !== false;
    const dedupe = options.dedupe ?? true;
    const bounds = typeof dedupe === 'object' && dedupe !== null ? dedupe : {};
    const windowMs = integerOption('dedupe.windowMs', bounds.windowMs, DEFAULT_WINDOW_MS, 1, MAX_TIMER_MS);
    const maxTasks = integerOption('dedupe.maxTasks', bounds.maxTasks, DEFAULT_MAX_TASKS, 1, 10_000_000);
    const storeTtlMs = integerOption(
      'dedupe.storeTtlMs',
      bounds.storeTtlMs,
      DEFAULT_STORE_TTL_MS,
      1,
      Number.MAX_SAFE_INTEGER,
    );
    const store = options.store;
    if (store !== undefined && !isDeliveryStore(store)) {
      throw new ConfigurationError('store', 'Invalid store: expected a DeliveryStore, e.g. memoryStore()');
    }
    const storeTimeoutMs = integerOption(
      'storeTimeoutMs',
      options.storeTimeoutMs,
      DEFAULT_STORE_TIMEOUT_MS,
      1,
      MAX_TIMER_MS,
    );
    this.#maxBodyBytes = integerOption('maxBodyBytes', options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES, 1, 2 ** 31 - 1);
    this.#eventTimeoutMs = integerOption(
      'eventTimeoutMs',
      options.eventTimeoutMs,
      DEFAULT_EVENT_TIMEOUT_MS,
      1,
      MAX_TIMER_MS,
    );
    this.#bodyTimeoutMs = integerOption(
      'bodyTimeoutMs',
      options.bodyTimeoutMs,
      DEFAULT_BODY_TIMEOUT_MS,
      1,
      MAX_TIMER_MS,
    );
    const concurrency = integerOption('concurrency', options.concurrency, DEFAULT_CONCURRENCY, 1, 10_000);
    const state = new SharedState({
      store,
      storeTimeoutMs,
      scope: {
        baseUrl: baseUrlOf(options.client) ?? 'default',
        sellerId: sellerIdOf(options.client) ?? 'default',
      },
      maxLocalKeys: 2 * maxTasks + 16,
      logger: this.#logger,
    });
    if (dedupe !== false && store !== undefined) {
      // A lease outlives the longest processing: onEvent, and the store calls around it.
      const leaseTtlMs = this.#eventTimeoutMs + 4 * storeTimeoutMs + 1000;
      this.#stored = new StoredTaskEvents(state, storeTtlMs, leaseTtlMs);
    } else if (dedupe !== false) {
      this.#memory = new TaskEventMemory(windowMs, maxTasks);
    }
    const list = options.client?.tasks?.list;
    const client = options.client;
    this.#sync = new TaskSync({
      state,
      list:
        typeof list === 'function' && client !== undefined
          ? (params, opts) => list.call(client.tasks, params, opts)
          : undefined,
      submit: (event) => this.#submit(event),
      maxInFlight: 2 * concurrency,
      skewMs: integerOption('syncSkewMs', options.syncSkewMs, DEFAULT_SYNC_SKEW_MS, 0, Number.MAX_SAFE_INTEGER),
      spanMs: this.#stored !== undefined ? storeTtlMs : windowMs,
      storeTimeoutMs,
      report: (error) => this.#report(error, undefined),
      logger: this.#logger,
    });
    this.#maxQueue = integerOption('maxQueue', options.maxQueue, DEFAULT_MAX_QUEUE, 1, 10_000_000);
    this.#queue = new TaskEventQueue(
      concurrency,
      this.#maxQueue,
      integerOption(
        'maxQueueBytes',
        options.maxQueueBytes,
        Math.max(DEFAULT_MAX_QUEUE_BYTES, this.#maxBodyBytes),
        this.#maxBodyBytes,
        Number.MAX_SAFE_INTEGER,
      ),
    );
    const inbox = options.inbox;
    if (inbox !== undefined) {
      if (!isWebhookInbox(inbox)) {
        throw new ConfigurationError('inbox', 'Invalid inbox: expected a WebhookInbox, e.g. redisInbox(redis)');
      }
      if (!(inbox.visibilityTimeoutMs > this.#eventTimeoutMs)) {
        throw new ConfigurationError(
          'inbox',
          `Invalid inbox: its visibilityTimeoutMs (${inbox.visibilityTimeoutMs}) must be longer than eventTimeoutMs (${this.#eventTimeoutMs})`,
        );
      }
    }
    this.#inbox = inbox;
    this.#inboxTimeoutMs = integerOption(
      'inboxTimeoutMs',
      options.inboxTimeoutMs,
      DEFAULT_INBOX_TIMEOUT_MS,
      1,
      MAX_TIMER_MS,
    );
    this.#worker = this.#startInbox(options, concurrency);
  }

  #startInbox(options: WebhookHandlerOptions, concurrency: number): InboxWorker | undefined {
    const inbox = this.#inbox;
    if (inbox === undefined) return undefined;
    // Events can wait in the inbox: none is processed on this process's memory during a store outage.
    // A lease held elsewhere is waited for in steps well inside the claim (see #processWaiting).
    this.#stored?.holdDuringOutages(inbox.visibilityTimeoutMs, Math.ceil(inbox.visibilityTimeoutMs / 4));
    if (options.inboxWorkers === false) return undefined;
    const worker = new InboxWorker({
      inbox,
      // Only what can start now: a claim waiting in the local queue would age towards its visibility
      // timeout, and be claimed again (counted as an attempt) by another worker while this one is alive.
      // Marks not answered yet count beyond `concurrency`: claimed and not marked stays within 2 × concurrency.
      room: () =>
        Math.min(
          this.#maxQueue - this.#queue.waiting,
          concurrency - this.#queue.running - this.#queue.waiting,
          2 * concurrency - this.#queue.running - this.#queue.waiting - this.#marks.size,
        ),
      paused: () => this.#waitingOnStore > 0,
      dispatch: (entry) => this.#dispatch(inbox, entry),
      timeoutMs: this.#inboxTimeoutMs,
      pollMs: integerOption('inboxPollMs', options.inboxPollMs, DEFAULT_INBOX_POLL_MS, 1, MAX_TIMER_MS),
      batch: 2 * concurrency,
      logger: this.#logger,
    });
    worker.start();
    return worker;
  }

  /** Claimed events of this process waiting for the store to answer; no claim meanwhile. */
  #waitingOnStore = 0;

  /** Passes a claimed event through the queue and pipeline, then marks it done or failed in the inbox. */
  async #dispatch(inbox: WebhookInbox, entry: InboxEntry): Promise<void> {
    this.#stats.claimed++;
    let event: WebhookEvent;
    try {
      event = parseWebhookEventAt(entry.body, new Date(entry.receivedAt));
    } catch (error) {
      await this.#mark(inbox.fail(entry.id, `unreadable entry: ${(error as Error)?.message ?? String(error)}`));
      return;
    }
    await this.#queue.push(
      event.taskId,
      async () => {
        const stored = this.#stored;
        const outcome =
          stored === undefined
            ? await this.#process(event)
            : await this.#processWaiting(stored, event, inbox, entry.id);
        // Not processed (the store did not answer): left in the inbox, claimed again after its visibility timeout.
        if (outcome === undefined) return;
        // Not waited for in the queue: the task's next event is claimed only once this one is marked, and
        // marked once the task's lease is released (so whoever claims it next finds the lease free).
        this.#marking(
          (async () => {
            await stored?.released(event.taskId);
            await (outcome === 'failed'
              ? inbox.fail(
                  entry.id,
                  `confirmation or onEvent failed for task ${event.taskId} (${event.kind}); see onError`,
                )
              : inbox.complete(entry.id));
          })(),
        );
      },
      entry.body.length,
    );
    this.#worker?.wake();
  }

  /**
   * {@link #processStored} for a claimed event: while the store does not answer (no claims meanwhile) or
   * the task's lease stays taken, nothing runs and the event waits, tried again after 50 ms doubling to
   * 1 s; the first store call that succeeds ends the wait. `undefined` after half the inbox's visibility
   * timeout: the event is given back (`inbox.release`, not counted as an attempt) or left unmarked.
   */
  async #processWaiting(
    stored: StoredTaskEvents,
    event: WebhookEvent,
    inbox: WebhookInbox,
    id: string,
  ): Promise<EventOutcome | undefined> {
    // Given back before its claim expires, so the wait does not count as an attempt.
    const holdMs = Math.ceil(inbox.visibilityTimeoutMs / 2);
    const giveUpAt = Date.now() + holdMs;
    let waiting = false;
    try {
      for (let pause = FIRST_STORE_WAIT_MS; ; pause = Math.min(2 * pause, LAST_STORE_WAIT_MS)) {
        try {
          return await this.#processStored(stored, event);
        } catch (error) {
          if (!isStoreUnavailableError(error) && !isLeaseBusy(error)) {
            this.#stats.failed++;
            await this.#report(error, event);
            return 'failed';
          }
          if (Date.now() + pause > giveUpAt) {
            this.#logger.warn(
              `Task ${event.taskId} (${event.kind}) given back to the inbox: not started within ${holdMs} ms`,
            );
            if (inbox.release !== undefined) await this.#mark(inbox.release(id));
            return undefined;
          }
          // A store that does not answer stops claims; a busy lease is one task's matter.
          if (!waiting && isStoreUnavailableError(error)) {
            waiting = true;
            this.#waitingOnStore++;
          }
          await new Promise((resolve) => setTimeout(resolve, pause));
        }
      }
    } finally {
      if (waiting) this.#waitingOnStore--;
    }
  }

  /** Marks sent by the workers and not answered yet: at most 2 × `concurrency` (see the worker's `room`). */
  readonly #marks = new Set<Promise<void>>();

  /** {@link #mark}, tracked in {@link #marks} until answered. */
  #marking(marking: Promise<void>): void {
    const mark = this.#mark(marking);
    this.#marks.add(mark);
    void mark.finally(() => {
      this.#marks.delete(mark);
      this.#worker?.wake();
    });
  }

  /** Resolves once the marks and lease releases sent so far have been answered. */
  async #settled(): Promise<void> {
    while (this.#marks.size > 0) await Promise.all(this.#marks);
    await this.#stored?.settled();
  }

  /** Waits for one marking call; a failure is logged (the event is claimed again after the visibility timeout). */
  async #mark(marking: Promise<void>): Promise<void> {
    try {
      await withDeadline(marking, this.#inboxTimeoutMs, 'inbox mark');
    } catch (error) {
      this.#logger.warn(
        `Could not mark an inbox event (${(error as Error)?.message ?? String(error)}); it is processed again`,
      );
    }
  }

  get stats(): Readonly<WebhookHandlerStats> {
    return Object.freeze({ ...this.#stats });
  }

  idle = async (): Promise<void> => {
    for (;;) {
      await this.#queue.idle();
      await this.#settled();
      const worker = this.#worker;
      if (worker === undefined) return;
      const claimed = await worker.claimAfterRunning();
      if (claimed === 0 && this.#queue.waiting === 0 && this.#queue.running === 0 && this.#marks.size === 0) return;
    }
  };

  close = async (): Promise<void> => {
    this.#worker?.stop();
    await this.#queue.idle();
    await this.#settled();
  };

  sync = (options?: WebhookSyncOptions): Promise<WebhookSyncResult> => this.#sync.sync(options);

  startSync = (options?: WebhookStartSyncOptions): (() => Promise<void>) => this.#sync.start(options);

  /** Queues an event found by a sync (no room check: a sync bounds what it has in flight). */
  #submit(event: WebhookEvent): Promise<EventOutcome> {
    let outcome: EventOutcome = 'failed';
    return this.#queue
      .push(event.taskId, async () => {
        outcome = await this.#process(event);
      })
      .then(() => outcome);
  }

  fetch = async (request: Request, context?: WebhookFetchContext): Promise<Response> => {
    this.#stats.received++;
    try {
      const receivedAt = new Date();
      const early = precheck(
        request.method,
        request.headers.get('content-type'),
        request.headers.get('content-length'),
        this.#maxBodyBytes,
      );
      if (early !== undefined) return toResponse(this.#reject(early));
      const body = await readRequestBody(request, this.#maxBodyBytes, this.#bodyTimeoutMs);
      const { answer, done } = await this.#admit(body, receivedAt);
      if (done !== undefined && context !== undefined) {
        try {
          context.waitUntil(done);
        } catch (error) {
          // The event is queued all the same: the sender still gets its 200.
          void this.#report(error, undefined);
        }
      }
      return toResponse(answer);
    } catch (error) {
      return toResponse(this.#internalFailure(error));
    }
  };

  node = async (req: WebhookNodeRequest, res: WebhookNodeResponse, options?: WebhookNodeOptions): Promise<void> => {
    this.#stats.received++;
    try {
      const receivedAt = new Date();
      const early = precheck(
        req.method,
        req.headers['content-type'],
        req.headers['content-length'],
        this.#maxBodyBytes,
      );
      if (early !== undefined) {
        writeNodeAnswer(req, res, this.#reject(early));
        return;
      }
      // Express passes `next` (a function) as the third argument: only an object is options.
      const given = typeof options === 'object' && options !== null ? options.body : undefined;
      const parsed = given ?? req.body;
      const body: BodyRead | { ok: true; value: unknown } =
        parsed !== undefined
          ? { ok: true, value: parsed }
          : await readNodeBody(req, this.#maxBodyBytes, this.#bodyTimeoutMs);
      writeNodeAnswer(req, res, (await this.#admit(body, receivedAt)).answer);
    } catch (error) {
      writeNodeAnswer(req, res, this.#internalFailure(error));
    }
  };

  #reject(answer: WebhookAnswer): WebhookAnswer {
    this.#stats.rejected++;
    this.#logger.warn(`Webhook rejected with ${answer.status}`, { answer: answer.body });
    return answer;
  }

  #internalFailure(error: unknown): WebhookAnswer {
    this.#stats.rejected++;
    this.#report(error, undefined);
    return rejection(500, 'the webhook could not be received');
  }

  /**
   * Parses, drops duplicates, queues (or, with an inbox, stores): the answer, and when queued, a promise
   * of the end of processing.
   */
  async #admit(
    body: BodyRead | { ok: true; value: unknown },
    receivedAt: Date,
  ): Promise<{ answer: WebhookAnswer; done?: Promise<void> }> {
    if (!body.ok) {
      if (body.reason === 'too_large') return { answer: this.#reject(tooLarge(this.#maxBodyBytes)) };
      if (body.reason === 'timeout') return { answer: this.#reject(bodyTimedOut(this.#bodyTimeoutMs)) };
      return { answer: this.#reject(rejection(400, 'the body could not be read')) };
    }
    let event: WebhookEvent & { confirmed: false; source: 'webhook' };
    try {
      event = parseWebhookEventAt('value' in body ? body.value : body.bytes, receivedAt, this.#reading);
    } catch (error) {
      if (!isWebhookPayloadError(error)) throw error;
      return { answer: this.#reject(rejection(400, error.message)) };
    }
    const now = receivedAt.getTime();
    if (this.#memory?.isDuplicate(event.taskId, event.kind, now)) {
      this.#dropDuplicate(event);
      return { answer: RECEIVED };
    }
    if (this.#inbox !== undefined) return { answer: await this.#store(this.#inbox, event, now) };
    if (this.#queue.isFull()) {
      return { answer: this.#reject(rejection(503, 'too many webhooks waiting to be processed')) };
    }
    const size = this.#sizeOf(body);
    if (!this.#queue.hasRoomFor(size)) {
      return { answer: this.#reject(rejection(503, 'the webhooks being processed hold too many bytes')) };
    }
    // A kind to confirm is marked once the GET agrees (in #process): marked now, a forged one would hide
    // a genuine one arriving while its GET is in flight.
    if (!this.#confirms(event.kind)) this.#memory?.mark(event.taskId, event.kind, now);
    const job = async (): Promise<void> => {
      await this.#process(event);
    };
    return { answer: RECEIVED, done: this.#queue.push(event.taskId, job, size) };
  }

  /** Writes a parsed webhook to the inbox: 200 once stored, 503 (one warning line) when it could not be. */
  async #store(inbox: WebhookInbox, event: WebhookEvent, now: number): Promise<WebhookAnswer> {
    const { taskId, kind } = event;
    try {
      const body = JSON.stringify(event.payload);
      await withDeadline(inbox.append({ taskId, kind, body, receivedAt: now }), this.#inboxTimeoutMs, 'inbox write');
    } catch (error) {
      this.#stats.rejected++;
      this.#logger.warn(
        `Webhook for task ${taskId} (${kind}) answered 503: the inbox did not store it (${(error as Error)?.message ?? String(error)})`,
      );
      return rejection(503, 'the webhook could not be stored');
    }
    this.#stats.stored++;
    if (!this.#confirms(kind)) this.#memory?.mark(taskId, kind, now);
    this.#worker?.wake();
    return RECEIVED;
  }

  /**
   * The size of a received body, bytes: the bytes read, else the length of the text or bytes given, else
   * the JSON length of a parsed body (`maxBodyBytes` if it cannot be serialised).
   */
  #sizeOf(body: { ok: true; bytes: Uint8Array } | { ok: true; value: unknown }): number {
    const value = 'value' in body ? body.value : body.bytes;
    if (typeof value === 'string') return value.length;
    if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return value.byteLength;
    try {
      return JSON.stringify(value)?.length ?? 0;
    } catch {
      return this.#maxBodyBytes;
    }
  }

  /**
   * Processes one event (a webhook, or a sync's event, already confirmed): order check, confirmation,
   * `onEvent`, with the filter in the store when there is one. Never throws.
   */
  async #process(received: WebhookEvent): Promise<EventOutcome> {
    const { taskId, kind } = received;
    const memory = this.#memory;
    let event: WebhookEvent = received;
    try {
      if (this.#stored !== undefined) return await this.#processStored(this.#stored, received);
      // A sync finds mostly what webhooks brought: counted as duplicates rather than as late.
      if (received.source === 'sync' && memory?.isDuplicate(taskId, kind, Date.now())) {
        return this.#dropDuplicate(received);
      }
      if (memory?.isOutOfOrder(taskId, kind, Date.now())) return this.#dropOutOfOrder(received);
      if (received.confirmed || this.#confirms(kind)) {
        // Checked here, in the task's order, for a webhook admitted while one of the same kind was
        // being confirmed: it is a duplicate only if that GET agreed.
        if (memory?.isDuplicate(taskId, kind, Date.now())) return this.#dropDuplicate(received);
        const confirmed = received.confirmed ? received : await this.#confirmEvent(received);
        if (confirmed === undefined) return 'failed';
        event = confirmed;
        // The status read back passes the same filter as the store's (a stale read must not move the
        // task backwards, nor pass a status again).
        if (event.status !== kind) {
          if (memory?.isDuplicate(taskId, event.status, Date.now())) return this.#dropDuplicate(event);
          if (memory?.isOutOfOrder(taskId, event.status, Date.now())) return this.#dropOutOfOrder(event);
        }
        // The GET wins: the status read back is what is passed on (a webhook for it later is a
        // duplicate) and what moves the task; a kind it did not confirm may still come, genuinely.
        memory?.mark(taskId, event.status, Date.now());
        memory?.advance(taskId, event.status, Date.now(), true);
      } else if (!this.#confirming) {
        // No confirmation: the body is all there is, so it sets the order (a final status from a body
        // does not hide another final status: see TaskEventMemory.isOutOfOrder).
        memory?.advance(taskId, kind, Date.now(), false);
      }
      // An unconfirmed event next to confirmed ones moves nothing: it could be forged.
      await this.#runOnEvent(event);
      this.#stats.processed++;
      return 'processed';
    } catch (error) {
      this.#stats.failed++;
      await this.#report(error, event);
      return 'failed';
    }
  }

  /**
   * {@link #process} with the filter in the store: before a confirming GET, a look at the task's record (a
   * drop found there is final), then, under the task's lease, the filter on the effective status,
   * `onEvent`, and the record. The rules are those of the memory (see `dedupe`); the status read back by a
   * GET is filtered too, so a webhook and a sync bringing one change process it once.
   * Never throws but what reading the record throws (without an inbox, not a store failure: the memory
   * stands in). With an inbox (the store holding), a store failure or a busy lease met before `onEvent`
   * ran is thrown: nothing ran, and the event waits ({@link #processWaiting}).
   */
  async #processStored(stored: StoredTaskEvents, received: WebhookEvent): Promise<EventOutcome> {
    const { taskId, kind } = received;
    let event: WebhookEvent | undefined = received;
    if (!received.confirmed && this.#confirms(kind)) {
      // Only before a GET: without one, the filter under the lease is the first look (one store call less).
      const early = await stored.precheck(taskId, kind);
      if (early === 'duplicate') return this.#dropDuplicate(received);
      if (early === 'outOfOrder') return this.#dropOutOfOrder(received);
      event = await this.#confirmEvent(received);
      if (event === undefined) return 'failed';
    }
    const effect = { advances: event.confirmed || !this.#confirming, confirmed: event.confirmed };
    let outcome: Awaited<ReturnType<StoredTaskEvents['process']>>;
    let ran = false;
    try {
      outcome = await stored.process(taskId, event.status, effect, () => {
        ran = true;
        return this.#runOnEvent(event);
      });
    } catch (error) {
      if (!ran && stored.holding && (isStoreUnavailableError(error) || isLeaseBusy(error))) throw error;
      this.#stats.failed++;
      await this.#report(error, event);
      return 'failed';
    }
    if (outcome === 'duplicate') return this.#dropDuplicate(event);
    if (outcome === 'outOfOrder') return this.#dropOutOfOrder(event);
    this.#stats.processed++;
    return outcome;
  }

  /**
   * Calls `onEvent` and waits for it, at most `eventTimeoutMs`.
   * @throws what `onEvent` throws or rejects with, or {@link WebhookEventTimeoutError} at the deadline
   * (a later outcome of the call is ignored).
   */
  async #runOnEvent(event: WebhookEvent): Promise<void> {
    // A CONSUMER span around `onEvent` when a tracer provider is registered (docs/configuration.md "Response metadata and tracing").
    const span = startSpan('webhook.process', SpanKind.CONSUMER, () => ({
      'messaging.operation.type': 'process',
      'messaging.system': 'delivery-task-service',
      'delivery.event_kind': event.kind,
      'delivery.task_id': event.taskId,
    }));
    if (span === undefined) return this.#callOnEvent(event);
    try {
      await this.#callOnEvent(event);
    } catch (error) {
      span.setAttribute('error.type', error instanceof Error ? error.name : 'Error');
      recordFailure(span, error);
      throw error;
    } finally {
      span.end();
    }
  }

  /** {@link #runOnEvent} without the span. */
  async #callOnEvent(event: WebhookEvent): Promise<void> {
    const timeoutMs = this.#eventTimeoutMs;
    const running = Promise.resolve(this.#onEvent(event));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new WebhookEventTimeoutError({ taskId: event.taskId, kind: event.kind, timeoutMs })),
        timeoutMs,
      );
    });
    try {
      await Promise.race([running, deadline]);
    } finally {
      clearTimeout(timer);
      running.catch(() => {});
    }
  }

  /**
   * The event confirmed by `GET tasks/{id}`, or `undefined` (reported) when that failed. The GET is shared
   * by the events of the task waiting on it, and a 404 remembered for 10 s (`confirmation.ts`).
   */
  async #confirmEvent(received: WebhookEvent): Promise<WebhookEvent | undefined> {
    try {
      if (this.#confirmations === undefined) {
        const client = this.#client as WebhookClient;
        const redactor = redactorOf(client);
        this.#confirmations = new TaskConfirmations(async (taskId) => {
          const task = await client.tasks.retrieve(taskId);
          // A read of another task, or of one without an id, confirms nothing (a `DeliveryClient`
          // refuses it itself; any other client is held to the same rule here).
          const answer = { method: 'GET', url: `tasks/${encodeURIComponent(taskId)}`, status: 200, body: task };
          return assertTaskId(taskId, Object(task) as Task, answer, redactor);
        });
      }
      const task = await this.#confirmations.confirm(received.taskId, received.kind, received.receivedAt.getTime());
      const status = task.status;
      if (typeof status !== 'string' || status === '') {
        throw new DeliveryError(`Could not confirm task ${received.taskId}: GET tasks/{id} returned no status`);
      }
      return { ...received, confirmed: true, status, task };
    } catch (error) {
      this.#stats.failed++;
      await this.#report(error, received);
      return undefined;
    }
  }

  #dropDuplicate(event: WebhookEvent): 'duplicate' {
    this.#stats.duplicates++;
    this.#logger.debug(`Duplicate ${event.source} event dropped: task ${event.taskId} (${event.kind})`);
    return 'duplicate';
  }

  #dropOutOfOrder(event: WebhookEvent): 'outOfOrder' {
    this.#stats.outOfOrder++;
    this.#logger.debug(`Out-of-order ${event.source} event dropped: task ${event.taskId} (${event.status})`);
    return 'outOfOrder';
  }

  async #report(error: unknown, event: WebhookEvent | undefined): Promise<void> {
    try {
      await this.#onError(error, event);
    } catch (failure) {
      this.#logger.error('onError failed', { error: describeError(failure) });
    }
  }
}

/**
 * Creates a webhook receiver (OpenAPI webhook `taskStatusChanged`): mount `handler.fetch` (Web) or `handler.node` (Node) at
 * the URL registered with the service. Each webhook is parsed with `parseWebhookEvent`, answered 200 at
 * once (the service waits 5 s at most and never retries) and processed afterwards by `onEvent`, with
 * bounded concurrency and queue, duplicate and order filtering (across instances with a `store`), and
 * optional confirmation by `GET tasks/{id}`; `sync()` catches the webhooks that never arrived. See
 * {@link WebhookHandlerOptions} and {@link WebhookHandler} for the details.
 *
 * ```ts
 * const handler = createWebhookHandler({
 *   client,
 *   confirm: ['delivered', 'cancelled'],
 *   onEvent: async (event) => orders.updateStatus(event.taskId, event.status),
 * });
 * http.createServer((req, res) => handler.node(req, res)).listen(8080);
 * ```
 *
 * @throws {ConfigurationError} without `onEvent`, with `confirm` but no `client` (or a `client` without
 * `tasks.retrieve`), with a `store` that is not a {@link DeliveryStore}, or for an option out of
 * range (`maxBodyBytes` ≥ 1, `bodyTimeoutMs` ≥ 1, `concurrency` 1…10 000, `eventTimeoutMs` ≥ 1,
 * `maxQueue` ≥ 1, `maxQueueBytes` ≥ `maxBodyBytes`, `dedupe.windowMs` ≥ 1, `dedupe.maxTasks` ≥ 1,
 * `dedupe.storeTtlMs` ≥ 1, `storeTimeoutMs` ≥ 1, `syncSkewMs` ≥ 0, `inboxTimeoutMs` ≥ 1, `inboxPollMs` ≥ 1,
 * all integers; a known `logLevel`), or an `inbox` that is not a {@link WebhookInbox} or whose
 * `visibilityTimeoutMs` is not longer than `eventTimeoutMs`.
 */
export function createWebhookHandler(options: WebhookHandlerOptions): WebhookHandler {
  return new WebhookReceiver(options);
}
