/**
 * A world of the create path (CONTRIBUTING.md "Model tests"): 1–4 processes creating a few orders through
 * one service, each process with its own memory store or all sharing one (faulty) store. Each create is a
 * caller's job: it retries what the docs say to retry (an unknown outcome after `retryAfterMs`, a store or
 * connection failure) and, when its process dies, is run again by the process's next incarnation.
 */
import {
  DeliveryClient,
  type DeliveryStore,
  DuplicateTaskError,
  memoryStore,
  StoreUnavailableError,
  TaskCreationOutcomeUnknownError,
} from '../../src/index.js';
import type { TaskWithId } from '../../src/schemas.js';
import { CLIENT_LISTING_DELAY_MS } from './model-arbitraries.js';
import { FaultyStore, newWorld, ProcessGate, type StallPoint, storeOfProcess } from './model-processes.js';
import { isReplaying, type Timeline, timelineLogger } from './model-run.js';
import { type ServiceBehaviour, ServiceFront } from './model-service.js';
import { orderParams } from './order-params.js';

export interface CreateWorldConfig {
  /** 1–4. */
  readonly processes: number;
  /** One store shared by every process (as `redisStore`), else each its own memory (the default). */
  readonly sharedStore: boolean;
  readonly service: ServiceBehaviour;
  /** The shared store's round trip, ms. */
  readonly storeLatencyMs: number;
}

/** Each POST's own timeout, ms (a `delay` fault answers after it). */
export const ATTEMPT_TIMEOUT_MS = 2_000;
/** Attempts of one create job that ended in an error (a death does not count). */
const MAX_ATTEMPTS = 6;

/** One `tasks.create` of a job: by which incarnation, when, and how it ended. */
export interface CreateAttempt {
  readonly process: string;
  readonly start: number;
  end?: number;
  outcome?: string;
}

/** A warning or error line a client logged, with its fields. */
export interface LoggedReport {
  readonly level: 'warn' | 'error';
  readonly message: string;
  readonly fields: Record<string, unknown> | undefined;
}

/** A caller's create of one order, with its retries. */
export interface CreateJob {
  readonly id: number;
  readonly process: number;
  readonly orderNumber: string;
  readonly repeat: boolean;
  readonly totalTimeout: number | undefined;
  readonly attempts: CreateAttempt[];
  result?: { task: TaskWithId } | { error: unknown };
  /** Errors of every attempt, for the report. */
  readonly errors: unknown[];
}

interface Incarnation {
  readonly gate: ProcessGate;
  readonly client: DeliveryClient;
}

class ProcessSlot {
  readonly incarnations: Incarnation[] = [];
  current: Incarnation | undefined;
  readonly #waiting: Array<(incarnation: Incarnation) => void> = [];

  live(): Promise<Incarnation> {
    const current = this.current;
    if (current !== undefined && !current.gate.dead) return Promise.resolve(current);
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  start(incarnation: Incarnation): void {
    this.incarnations.push(incarnation);
    this.current = incarnation;
    for (const resume of this.#waiting.splice(0)) resume(incarnation);
  }
}

const errorName = (error: unknown) => (error instanceof Error ? error.name : typeof error);

export class CreateWorld {
  readonly config: CreateWorldConfig;
  readonly service: ServiceFront;
  readonly store: FaultyStore | undefined;
  readonly jobs: CreateJob[] = [];
  /** When every process was frozen (a blocked event loop), ms since the epoch. */
  readonly freezes: { from: number; to: number }[] = [];
  readonly timeline: Timeline;
  /** The warnings and errors every incarnation's client logged (late-commit reports among them). */
  readonly reports: LoggedReport[] = [];
  readonly #slots: ProcessSlot[];
  readonly #running = new Set<Promise<void>>();

  constructor(config: CreateWorldConfig, timeline: Timeline) {
    newWorld();
    this.config = config;
    this.timeline = timeline;
    this.service = new ServiceFront(config.service);
    this.store = config.sharedStore ? new FaultyStore(() => memoryStore(), config.storeLatencyMs) : undefined;
    this.#slots = Array.from({ length: config.processes }, (_, index) => {
      const slot = new ProcessSlot();
      slot.start(this.#incarnation(index + 1, 1));
      return slot;
    });
  }

  #incarnation(process: number, incarnation: number): Incarnation {
    const gate = new ProcessGate(process, incarnation);
    const { mock } = this.service;
    const store: DeliveryStore | undefined =
      this.store === undefined ? undefined : storeOfProcess(this.store, gate);
    const client = new DeliveryClient({
      apiKey: mock.apiKey,
      sellerId: mock.sellerId,
      baseUrl: this.service.baseUrlOf(gate),
      fetch: this.service.fetchOf(gate),
      logger: this.#logger(gate.name),
      logLevel: isReplaying() ? 'debug' : 'warn',
      timeout: ATTEMPT_TIMEOUT_MS,
      listingDelayMs: CLIENT_LISTING_DELAY_MS,
      ...(store === undefined ? {} : { store }),
    });
    return { gate, client };
  }

  /** The timeline's logger of one incarnation, its warnings and errors kept in {@link reports}. */
  #logger(source: string) {
    const timeline = timelineLogger(this.timeline, source);
    const kept = (level: LoggedReport['level']) => (message: string, fields?: Record<string, unknown>) => {
      this.reports.push({ level, message, fields });
      timeline[level](message);
    };
    return { ...timeline, warn: kept('warn'), error: kept('error') };
  }

  slot(process: number): ProcessSlot {
    const slot = this.#slots[(process - 1) % this.#slots.length];
    if (slot === undefined) throw new Error(`no process ${process}`);
    return slot;
  }

  /** Every incarnation that ever ran, by gate name. */
  get incarnations(): readonly Incarnation[] {
    return this.#slots.flatMap((slot) => slot.incarnations);
  }

  /** Kills the process's incarnation; its next one starts after `downMs`. */
  restart(process: number, downMs: number): void {
    const slot = this.slot(process);
    const old = slot.current;
    if (old === undefined || old.gate.dead) return;
    old.gate.kill();
    this.timeline.note(`${old.gate.name} killed`);
    setTimeout(() => {
      const next = this.#incarnation(((process - 1) % this.#slots.length) + 1, slot.incarnations.length + 1);
      slot.start(next);
      this.timeline.note(`${next.gate.name} started`);
    }, downMs);
  }

  stall(process: number, ms: number, point: StallPoint): void {
    const gate = this.slot(process).current?.gate;
    if (gate === undefined || gate.dead) return;
    gate.stall(ms, point);
    this.timeline.note(`${gate.name} stalls for ${ms} ms ${point === 'now' ? 'now' : point}`);
  }

  /** Starts a caller's create job. */
  create(process: number, order: number, repeat: boolean, totalTimeout: number | undefined): void {
    const job: CreateJob = {
      id: this.jobs.length + 1,
      process: ((process - 1) % this.#slots.length) + 1,
      orderNumber: `ORD-${order}`,
      repeat,
      totalTimeout,
      attempts: [],
      errors: [],
    };
    this.jobs.push(job);
    const running = this.#run(job);
    this.#running.add(running);
    void running.finally(() => this.#running.delete(running));
  }

  get settled(): boolean {
    return this.jobs.every((job) => job.result !== undefined);
  }

  async #run(job: CreateJob): Promise<void> {
    const slot = this.slot(job.process);
    // Which job's POST made a task: the task carries it back.
    const params = { ...orderParams(job.orderNumber), specialNotes: `job ${job.id}` };
    const options = {
      ...(job.repeat ? { repeatDelivery: true } : {}),
      ...(job.totalTimeout === undefined ? {} : { totalTimeout: job.totalTimeout }),
    };
    for (let failures = 0; ; ) {
      const incarnation = await slot.live();
      const attempt: CreateAttempt = { process: incarnation.gate.name, start: Date.now() };
      job.attempts.push(attempt);
      const label = `job ${job.id} (${job.orderNumber}${job.repeat ? ', repeat' : ''}) on ${incarnation.gate.name}`;
      this.timeline.note(`${label}: create`);
      const outcome = await Promise.race([
        incarnation.client.tasks.create(params, options).then(
          (task) => ({ task }),
          (error: unknown) => ({ error }),
        ),
        incarnation.gate.death().then(() => 'died' as const),
      ]);
      attempt.end = Date.now();
      if (outcome === 'died') {
        attempt.outcome = 'its process died';
        continue;
      }
      if ('task' in outcome) {
        attempt.outcome = `task ${outcome.task.id}`;
        this.timeline.note(`${label}: resolved with task ${outcome.task.id}`);
        job.result = outcome;
        return;
      }
      const { error } = outcome;
      job.errors.push(error);
      attempt.outcome = `${errorName(error)}: ${error instanceof Error ? error.message : String(error)}`;
      this.timeline.note(`${label}: ${attempt.outcome}`);
      const waitMs = this.#retryAfter(job, error, failures);
      if (waitMs === undefined || ++failures >= MAX_ATTEMPTS) {
        job.result = outcome;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }

  /** How long the docs tell a caller to wait before creating again, or `undefined`: do not. */
  #retryAfter(job: CreateJob, error: unknown, failures: number): number | undefined {
    const backoff = 500 * 2 ** failures;
    if (error instanceof DuplicateTaskError) return undefined;
    if (error instanceof TaskCreationOutcomeUnknownError)
      return job.repeat ? undefined : Math.max(backoff, error.retryAfterMs ?? 0);
    if (error instanceof StoreUnavailableError) return backoff;
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number' && status < 500) return undefined;
    return job.repeat ? undefined : backoff;
  }
}
