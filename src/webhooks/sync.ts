/**
 * Catching lost events (`sync()`, `startSync()`; docs/webhooks.md "Catching lost events"): walks
 * `GET tasks` by `updatedAt`, newest first, back to the checkpoint (`sync:checkpoint`, ms since the
 * epoch) and passes each task's status through the pipeline with `source: 'sync'`. `sync:lease` holds
 * the token of the instance running periodic syncs.
 * @module
 */
import { APIUserAbortError } from '../core/errors.js';
import type { DeliveryStore } from '../core/store.js';
import type { LevelLogger } from '../internal/logger.js';
import { MAX_TIMER_MS, optionsObject, upTo } from '../internal/option-checks.js';
import { invalidOption, readOptions } from '../internal/read-options.js';
import { isFinalStatus } from '../schemas/lifecycle.js';
import type { Drift } from '../schemas/tolerant-read.js';
import { syncEventOf, type WebhookEvent } from './event.js';
import { leaseToken, type SharedState, unrefTimer } from './shared-state.js';
import type { EventOutcome } from './stored-dedupe.js';
import { type ListTasks, tasksUpdatedSince } from './sync-walk.js';

/** Options of `handler.sync()`. */
export interface WebhookSyncOptions {
  /** Stops the walk: `sync()` rejects with `APIUserAbortError` and the checkpoint stays where it was. */
  signal?: AbortSignal;
}

/** What one `handler.sync()` did. */
export interface WebhookSyncResult {
  /** Tasks updated since the checkpoint (minus `syncSkewMs`). */
  tasks: number;
  /** Statuses no webhook had brought (or whose processing had failed), `onEvent` completed. */
  processed: number;
  /** Statuses processed already (by a webhook or an earlier sync). */
  duplicates: number;
  /** Statuses older than one processed for the task. */
  outOfOrder: number;
  /** Events whose `onEvent` failed; the checkpoint did not move past them. */
  failed: number;
  /**
   * Final statuses passed to `onEvent` that no webhook had delivered, as far as `gapsScope` tells; logged
   * when not 0.
   */
  gaps: number;
  /**
   * `'store'`: checked against the shared store; `'process'`: against this handler's memory since it was
   * created.
   */
  gapsScope: 'store' | 'process';
  /**
   * Without a store: final statuses of tasks updated before this handler existed, which it cannot tell were
   * lost.
   */
  unverified: number;
  /** The checkpoint after this walk: its start, or the previous one when an event failed. */
  checkpoint: Date | undefined;
}

/** Options of `handler.startSync()`. */
export interface WebhookStartSyncOptions {
  /**
   * From the end of one sync to the start of the next, ms. Default 60 000; 1 to 2 147 483 647; keep it under
   * the duplicate window.
   */
  intervalMs?: number;
}

export interface TaskSyncContext {
  readonly state: SharedState;
  readonly list: ListTasks | undefined;
  readonly submit: (event: WebhookEvent) => Promise<EventOutcome>;
  readonly maxInFlight: number;
  readonly skewMs: number;
  /** The duplicate window, ms: no walk goes further back. */
  readonly spanMs: number;
  readonly storeTimeoutMs: number;
  readonly report: (error: unknown) => Promise<void>;
  readonly logger: LevelLogger;
  /** Drift in the listing the walk reads (`onDrift` of the handler); default: none reported. */
  readonly reportDrift?: ((drift: Drift) => void) | undefined;
}

/** The shape of {@link WebhookStartSyncOptions}, its default applied. */
const StartSyncOptionsSchema = optionsObject(
  { intervalMs: upTo(1, MAX_TIMER_MS) },
  {
    intervalMs: 60_000,
  },
);

const OUTCOME_COUNTS = {
  processed: 'processed',
  duplicate: 'duplicates',
  outOfOrder: 'outOfOrder',
  failed: 'failed',
} as const satisfies Record<EventOutcome, keyof WebhookSyncResult>;

function parseCheckpoint(value: string | undefined): number | undefined {
  const time = value === undefined ? Number.NaN : Number(value);
  return Number.isSafeInteger(time) ? time : undefined;
}

export function syncLeaseTtlMs(intervalMs: number, storeTimeoutMs: number): number {
  return Math.ceil(1.5 * intervalMs) + 2 * storeTimeoutMs;
}

export class TaskSync {
  readonly #context: TaskSyncContext;
  /** Without a store: this process's creation, from which its memory can tell a gap. */
  readonly #tellsFrom: number | undefined;

  /** While `startSync` walks: false once its lease can have lapsed (then the walk is stopped). */
  #leaseHeld: (() => boolean) | undefined;

  constructor(context: TaskSyncContext) {
    // A walk under the sync lease passes nothing on once a stall may have let another instance take it.
    const submit = (event: WebhookEvent) =>
      this.#leaseHeld?.() === false ? Promise.resolve<EventOutcome>('failed') : context.submit(event);
    this.#context = { ...context, submit };
    this.#tellsFrom = context.state.hasStore ? undefined : Date.now();
  }

  #requireList(method: string): ListTasks {
    const list = this.#context.list;
    if (list === undefined) {
      throw invalidOption('client', `a client with tasks.list, which ${method} needs`, undefined, 'none');
    }
    return list;
  }

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
      this.#context.logger.warn(
        `Webhook sync: the last checkpoint is older than the duplicate window (${spanMs} ms)`,
      );
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
    const reportDrift = this.#context.reportDrift ?? (() => {});
    /**
     * Tasks listed without a usable id or status: nothing to pass on, so each is reported, never dropped in
     * silence.
     */
    let unusable = 0;
    for await (const { task, updatedAt } of tasksUpdatedSince(list, walkFrom, signal, reportDrift)) {
      if (signal?.aborted) break;
      result.tasks++;
      const event = syncEventOf(task, new Date());
      if (event === undefined) {
        unusable++;
        const path = typeof task.id === 'string' && task.id !== '' ? 'status' : 'id';
        reportDrift({
          path: `tasks.*.${path}`,
          expected: path,
          received: typeof task[path],
          action: 'omitted',
        });
        continue;
      }
      // Without a store, an earlier process may have processed a task updated before this one started.
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
    if (unusable > 0) {
      this.#context.logger.warn(
        `Webhook sync: ${unusable} of ${result.tasks} tasks walked were listed without a usable id or status; they cannot be passed to onEvent`,
      );
    }
    if (result.gaps > 0) {
      this.#context.logger.warn(
        `Webhook sync: ${result.gaps} final statuses found that no webhook had delivered ${result.gapsScope === 'store' ? 'to any instance' : 'since this process started'} (of ${result.tasks} tasks walked); passed to onEvent now`,
      );
    }
    if (result.failed === 0) {
      await state.use((store) => this.#moveCheckpoint(store, key, startedAt, spanMs));
      result.checkpoint = new Date(startedAt);
    }
    return result;
  }

  async #moveCheckpoint(store: DeliveryStore, key: string, to: number, ttlMs: number): Promise<void> {
    let current = await store.get(key);
    for (let round = 0; round < 8; round++) {
      const time = parseCheckpoint(current);
      if (time !== undefined && time >= to) return;
      if (await store.compareAndSet(key, current, String(to), ttlMs)) return;
      current = await store.get(key);
    }
  }

  start(options: WebhookStartSyncOptions = {}): () => Promise<void> {
    this.#requireList('startSync()');
    const { intervalMs } = readOptions(StartSyncOptionsSchema, options, 'startSync');
    const { state, storeTimeoutMs, logger } = this.#context;
    const key = state.key('sync', 'lease');
    const token = leaseToken();
    const ttlMs = syncLeaseTtlMs(intervalMs, storeTimeoutMs);
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let walk: AbortController | undefined;
    let running: Promise<void> = Promise.resolve();
    /** `performance.now()` until which the lease is surely ours: from when its last renewal was sent. */
    let validUntil = 0;

    const holdLease = async () => {
      const sentAt = performance.now();
      const held = await state.useShared(
        async (store) =>
          (await store.compareAndSet(key, token, token, ttlMs)) || store.setIfAbsent(key, token, ttlMs),
      );
      if (held === true) validUntil = Math.max(validUntil, sentAt + ttlMs);
      return held;
    };
    const tick = async (): Promise<void> => {
      let renewal: ReturnType<typeof setInterval> | undefined;
      try {
        if ((await holdLease()) !== true || stopped || performance.now() >= validUntil) return;
        const controller = new AbortController();
        walk = controller;
        // After a stall timers run before I/O: a lease this clock says expired stops the walk before it reads
        // on.
        this.#leaseHeld = () => {
          if (performance.now() < validUntil) return true;
          if (!controller.signal.aborted) {
            logger.warn(
              `Webhook sync: the sync lease (${ttlMs} ms) went unrenewed (this process stalled, or the store did not answer); this walk stops`,
            );
            controller.abort();
          }
          return false;
        };
        renewal = setInterval(
          () => {
            if (this.#leaseHeld?.() === false) return;
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
        this.#leaseHeld = undefined;
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
