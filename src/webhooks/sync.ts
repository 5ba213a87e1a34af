/**
 * Catching lost events (the handler's `sync()` and `startSync()`): the service sends each webhook once
 * and never retries (OpenAPI webhook `taskStatusChanged`–6), so a receiver that was down, full or slow misses
 * status changes for good. A sync walks `GET tasks` by `updatedAt`, newest first, back to a checkpoint
 * kept in the store, and passes each task's current status through the handler's pipeline as an event
 * with `source: 'sync'`; the duplicate filter drops what a webhook already brought.
 *
 * Keys (`SharedState.key`): `sync:checkpoint` holds the time the last complete walk started (ms since the
 * epoch, as text); `sync:lease` holds the token of the instance running periodic syncs.
 * @module
 */
import { APIUserAbortError, ConfigurationError } from '../core/errors.js';
import type { DeliveryStore } from '../core/store.js';
import type { LevelLogger } from '../internal/logger.js';
import { integerOption, MAX_TIMER_MS } from '../internal/options.js';
import type { TaskListOptions } from '../resources/tasks.js';
import { isFinalStatus } from '../schemas/lifecycle.js';
import type { Task } from '../schemas/task.js';
import type { TaskListParams } from '../schemas/task-list.js';
import { syncEventOf, type WebhookEvent } from './event.js';
import { leaseToken, type SharedState, unrefTimer } from './shared-state.js';
import type { EventOutcome } from './stored-dedupe.js';

/** Options of `handler.sync()`. */
export interface WebhookSyncOptions {
  /** Stops the walk: `sync()` rejects with `APIUserAbortError` and the checkpoint stays where it was. */
  signal?: AbortSignal;
}

/** What one `handler.sync()` did. */
export interface WebhookSyncResult {
  /** Tasks read from `GET tasks` that were updated since the checkpoint (minus `syncSkewMs`). */
  tasks: number;
  /** Events whose `onEvent` completed: statuses no webhook had brought (or whose processing had failed). */
  processed: number;
  /** Statuses dropped because they had been processed already (by a webhook or an earlier sync). */
  duplicates: number;
  /** Statuses dropped because a later one had been processed for the task. */
  outOfOrder: number;
  /** Events whose `onEvent` failed (passed to `onError`); the checkpoint did not move past them. */
  failed: number;
  /**
   * Final statuses (delivered, cancelled, rejected, failed) this walk passed to `onEvent` that no webhook
   * had delivered, as far as {@link gapsScope} can tell: the lost-event rate, as `gaps / tasks`. Logged
   * as a warning when not 0. Those it cannot tell were lost are in {@link unverified} instead.
   */
  gaps: number;
  /**
   * What `gaps` was checked against. `'store'`: the handler's `store`, shared by the instances and kept
   * across restarts (`dedupe.storeTtlMs`): a gap is a final status no instance had processed.
   * `'process'` (no store): this handler's memory since it was created, so only tasks updated after that
   * (their `updatedAt` against this machine's clock) can count as gaps.
   */
  gapsScope: 'store' | 'process';
  /**
   * Final statuses this walk passed to `onEvent` that it cannot tell were lost, not counted in `gaps`
   * (always 0 with a `store`): without one, those of tasks updated before this handler was created, or
   * without a readable `updatedAt`; an earlier process may have processed them (after a restart, most
   * were). Not logged: a restart is not a loss.
   */
  unverified: number;
  /** The checkpoint after this walk: when it started, or the previous one when an event failed. */
  checkpoint: Date | undefined;
}

/** Options of `handler.startSync()`. */
export interface WebhookStartSyncOptions {
  /**
   * Time from the end of one sync to the start of the next, ms. Default 60 000 (1 min); an integer from
   * 1 to 2 147 483 647, else `ConfigurationError`. Keep it well under the duplicate window (`dedupe.windowMs`
   * without a store, `dedupe.storeTtlMs` with one).
   */
  intervalMs?: number;
}

/** `client.tasks.list` as far as a sync needs it. */
export type ListTasks = (params: TaskListParams, options: TaskListOptions) => AsyncIterable<Task>;

/** What a {@link TaskSync} needs of its handler. */
export interface TaskSyncContext {
  readonly state: SharedState;
  /** `client.tasks.list`, or `undefined` when the client has none. */
  readonly list: ListTasks | undefined;
  /** Passes an event through the handler's queue and pipeline; resolves with its outcome, never rejects. */
  readonly submit: (event: WebhookEvent) => Promise<EventOutcome>;
  /** Events of one sync in the queue at once at most. */
  readonly maxInFlight: number;
  /** How far before the checkpoint a walk goes, ms (clock skew, updates in flight). */
  readonly skewMs: number;
  /** How far back the duplicate filter remembers, ms: no walk goes further back, and no checkpoint lives longer. */
  readonly spanMs: number;
  /** Deadline of one store call, ms (a lease must outlive the renewals). */
  readonly storeTimeoutMs: number;
  readonly report: (error: unknown) => Promise<void>;
  readonly logger: LevelLogger;
}

const DEFAULT_INTERVAL_MS = 60_000;

/** The counter of {@link WebhookSyncResult} each outcome adds to. */
const OUTCOME_COUNTS = {
  processed: 'processed',
  duplicate: 'duplicates',
  outOfOrder: 'outOfOrder',
  failed: 'failed',
} as const satisfies Record<EventOutcome, keyof WebhookSyncResult>;

/** Reads a checkpoint written by {@link TaskSync}: ms since the epoch, or `undefined`. */
function parseCheckpoint(value: string | undefined): number | undefined {
  const time = value === undefined ? Number.NaN : Number(value);
  return Number.isSafeInteger(time) ? time : undefined;
}

/** The lease of periodic syncs lasts this long: a little over one interval and the renewals' deadlines. */
export function syncLeaseTtlMs(intervalMs: number, storeTimeoutMs: number): number {
  return Math.ceil(1.5 * intervalMs) + 2 * storeTimeoutMs;
}

/** The sync of one handler. */
export class TaskSync {
  readonly #context: TaskSyncContext;
  /**
   * Without a store: the `updatedAt` (ms epoch) from which this process's memory can tell a final status
   * was never delivered (its creation); `undefined` with a store, which can always tell.
   */
  readonly #tellsFrom: number | undefined;

  constructor(context: TaskSyncContext) {
    this.#context = context;
    this.#tellsFrom = context.state.hasStore ? undefined : Date.now();
  }

  #requireList(method: string): ListTasks {
    const list = this.#context.list;
    if (list === undefined) {
      throw new ConfigurationError(
        'client',
        `${method} needs a client with tasks.list: createWebhookHandler({ client, onEvent, … })`,
      );
    }
    return list;
  }

  /** One walk since the checkpoint; see `WebhookHandler.sync`. */
  async sync(options: WebhookSyncOptions = {}): Promise<WebhookSyncResult> {
    const list = this.#requireList('sync()');
    const { state, skewMs, spanMs } = this.#context;
    const signal = options.signal;
    const startedAt = Date.now();
    const key = state.key('sync', 'checkpoint');
    const saved = parseCheckpoint(await state.use((store) => store.get(key)));
    const oldest = startedAt - spanMs;
    const walkFrom = saved === undefined ? oldest : Math.max(saved - skewMs, oldest);
    if (saved !== undefined && saved - skewMs < oldest) {
      this.#context.logger.warn(`Webhook sync: the last checkpoint is older than the duplicate window (${spanMs} ms)`);
    }
    const result: WebhookSyncResult = {
      tasks: 0,
      processed: 0,
      duplicates: 0,
      outOfOrder: 0,
      failed: 0,
      gaps: 0,
      gapsScope: this.#tellsFrom === undefined ? 'store' : 'process',
      unverified: 0,
      checkpoint: saved === undefined ? undefined : new Date(saved),
    };
    const inFlight = new Set<Promise<void>>();
    const listOptions: TaskListOptions = signal === undefined ? {} : { signal };
    for await (const task of list({ sortBy: 'updatedAt', sortOrder: -1 }, listOptions)) {
      if (signal?.aborted) break;
      const updatedAt = typeof task.updatedAt === 'string' ? Date.parse(task.updatedAt) : Number.NaN;
      // Newest first: the first task updated before the walk's start ends it. A task without a readable
      // updatedAt is passed on and does not end it.
      if (updatedAt < walkFrom) break;
      result.tasks++;
      const event = syncEventOf(task, new Date());
      if (event === undefined) continue;
      // Without a store, a task updated before this process could see its webhooks may have been
      // processed by an earlier one (NaN, an unreadable updatedAt, cannot tell either).
      const tells = this.#tellsFrom === undefined || updatedAt >= this.#tellsFrom;
      const pending = this.#context.submit(event).then((outcome) => {
        result[OUTCOME_COUNTS[outcome]]++;
        if (outcome === 'processed' && isFinalStatus(event.status)) {
          if (tells) result.gaps++;
          else result.unverified++;
        }
        inFlight.delete(pending);
      });
      inFlight.add(pending);
      if (inFlight.size >= this.#context.maxInFlight) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    if (signal?.aborted) {
      throw new APIUserAbortError({ method: 'GET', url: 'tasks', cause: signal.reason });
    }
    if (result.gaps > 0) {
      this.#context.logger.warn(
        `Webhook sync: ${result.gaps} final statuses found that no webhook had delivered ${result.gapsScope === 'store' ? 'to any instance' : 'since this process started'} (of ${result.tasks} tasks walked); passed to onEvent now`,
      );
    }
    // A failed event keeps the checkpoint where it was, so the next sync tries it again.
    if (result.failed === 0) {
      await state.use((store) => this.#moveCheckpoint(store, key, startedAt, spanMs));
      result.checkpoint = new Date(startedAt);
    }
    return result;
  }

  /** Moves the checkpoint to `to` unless another sync has moved it further. */
  async #moveCheckpoint(store: DeliveryStore, key: string, to: number, ttlMs: number): Promise<void> {
    let current = await store.get(key);
    for (let round = 0; round < 8; round++) {
      const time = parseCheckpoint(current);
      if (time !== undefined && time >= to) return;
      if (await store.compareAndSet(key, current, String(to), ttlMs)) return;
      current = await store.get(key);
    }
  }

  /** Periodic syncs on one instance at a time; see `WebhookHandler.startSync`. */
  start(options: WebhookStartSyncOptions = {}): () => Promise<void> {
    this.#requireList('startSync()');
    const intervalMs = integerOption('startSync.intervalMs', options?.intervalMs, DEFAULT_INTERVAL_MS, 1, MAX_TIMER_MS);
    const { state, storeTimeoutMs, logger } = this.#context;
    const key = state.key('sync', 'lease');
    const token = leaseToken();
    const ttlMs = syncLeaseTtlMs(intervalMs, storeTimeoutMs);
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let walk: AbortController | undefined;
    let running: Promise<void> = Promise.resolve();

    // Keeps the lease (renewed by compare-and-set) or takes it when free; during an outage, no sync runs.
    const holdLease = () =>
      state.useShared(
        async (store) => (await store.compareAndSet(key, token, token, ttlMs)) || store.setIfAbsent(key, token, ttlMs),
      );
    const tick = async (): Promise<void> => {
      let renewal: ReturnType<typeof setInterval> | undefined;
      try {
        if ((await holdLease()) !== true || stopped) return;
        const controller = new AbortController();
        walk = controller;
        renewal = setInterval(
          () => {
            void holdLease().then(
              (held) => {
                if (held === false) {
                  logger.warn('Webhook sync: another instance took the sync lease; this walk stops');
                  controller.abort();
                }
              },
              () => {},
            );
          },
          Math.max(1, Math.floor(ttlMs / 3)),
        );
        unrefTimer(renewal);
        await this.sync({ signal: controller.signal });
      } catch (error) {
        if (!(stopped || walk?.signal.aborted)) await this.#context.report(error);
      } finally {
        clearInterval(renewal);
        walk = undefined;
        if (!stopped) {
          timer = setTimeout(() => {
            running = tick();
          }, intervalMs);
          unrefTimer(timer);
        }
      }
    };
    timer = setTimeout(() => {
      running = tick();
    }, 0);
    unrefTimer(timer);

    return async () => {
      if (stopped) return running;
      stopped = true;
      clearTimeout(timer);
      walk?.abort();
      await running;
      await state.useShared((store) => store.delete(key, token)).catch(() => {});
    };
  }
}
