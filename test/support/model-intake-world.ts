/**
 * A world of the webhook intake (CONTRIBUTING.md "Model tests"): tasks moved along on the mock, each
 * change sent as webhooks (lost, duplicated, delayed so that they arrive out of order) to 1–3 receiving
 * processes: a plain handler (its own memory), handlers sharing a store, or sharing a store and a
 * durable inbox. The world records what each receiver answered, what reached `onEvent` and `onError`.
 */
import { DEFAULT_STORE_TIMEOUT_MS } from '../../src/core/store.js';
import { DeliveryClient, memoryStore, type SchemaDrift } from '../../src/index.js';
import { webhookFormOf } from '../../src/testing/webhook-form.js';
import { observersOf } from '../../src/testing.js';
import {
  createWebhookHandler,
  type WebhookEvent,
  type WebhookHandler,
  type WebhookSyncResult,
} from '../../src/webhooks/index.js';
import { CLIENT_LISTING_DELAY_MS } from './model-arbitraries.js';
import { inboxOfProcess, MemoryInbox } from './model-inbox.js';
import { FaultyStore, newWorld, ProcessGate, type StallPoint, storeOfProcess } from './model-processes.js';
import { isReplaying, jump, type Timeline, timelineLogger } from './model-run.js';
import { type ServiceBehaviour, ServiceFront } from './model-service.js';
import { orderParams } from './order-params.js';

export type IntakeMode = 'plain' | 'shared' | 'inbox';

export interface IntakeWorldConfig {
  readonly mode: IntakeMode;
  /** 1–3 (a plain handler: 1, its memory is its own). */
  readonly processes: number;
  readonly service: ServiceBehaviour;
  /** Tasks on the service, 1–3. */
  readonly tasks: number;
  /** Older tasks updated long before (40 min), so that a walk over `updatedAt` has pages to stop at. */
  readonly fillers: number;
  readonly storeLatencyMs: number;
  /** How long each `onEvent` takes, ms. */
  readonly onEventMs: number;
  /** `finals`: the handler's default with a client (final statuses read back first); `none`: `confirm: false`. */
  readonly confirm: 'finals' | 'none';
}

/** The handler's `eventTimeoutMs` in these worlds, ms. */
export const EVENT_TIMEOUT_MS = 10_000;
/** The service's wait for a webhook's answer (spec § Events: 5 s, never retried), ms. */
export const SERVICE_WAIT_MS = 5_000;

/** One call of `onEvent`: by which incarnation, for what, when, and whether it completed. */
export interface OnEventCall {
  readonly process: string;
  readonly taskId: string;
  readonly kind: string;
  readonly status: string;
  readonly source: 'webhook' | 'sync';
  /** Read back from the service (a confirmed webhook, or a sync's listing). */
  readonly confirmed: boolean;
  /** When the handler called `onEvent` (its `eventTimeoutMs` runs from here). */
  readonly invokedAt: number;
  /** When `onEvent` did its work (later than `invokedAt` when the process stalled in between). */
  readonly start: number;
  end?: number;
  /** It threw (an injected failure). */
  failed: boolean;
}

/** One copy of a webhook the service sent. */
export interface WebhookCopy {
  readonly taskId: string;
  readonly kind: string;
  readonly to: string;
  readonly sentAt: number;
  /** What the service saw: the status within its 5 s wait, `refused` (no process), or `timeout`. */
  seen?: number | 'refused' | 'timeout';
  /** What the receiver answered, whenever it did. */
  answered?: number;
}

interface Receiver {
  readonly gate: ProcessGate;
  readonly handler: WebhookHandler;
  failNext: boolean;
  readonly syncs: WebhookSyncResult[];
}

class ReceiverSlot {
  readonly incarnations: Receiver[] = [];
  current: Receiver | undefined;
}

export class IntakeWorld {
  readonly config: IntakeWorldConfig;
  readonly service: ServiceFront;
  readonly store: FaultyStore | undefined;
  readonly inbox: MemoryInbox | undefined;
  readonly timeline: Timeline;
  readonly taskIds: string[] = [];
  readonly calls: OnEventCall[] = [];
  readonly errors: { process: string; taskId?: string; kind?: string; error: string }[] = [];
  readonly copies: WebhookCopy[] = [];
  /** Drift the clients reported (`onDrift`). */
  readonly drifts: (SchemaDrift & { process: string })[] = [];
  /** Store faults injected so far (with a shared store). */
  storeFaults = 0;
  /**
   * When the handlers may be standing in with their memory for the store: each store fault's and each
   * process stall's span, plus the `storeTimeoutMs` before an outage is seen and the probes (every
   * 5 × `storeTimeoutMs`) that end it.
   */
  readonly outages: { from: number; to: number }[] = [];
  /** When the store restarted without persistence (emptied). */
  readonly wipes: number[] = [];
  readonly #slots: ReceiverSlot[];
  #sending = 0;

  constructor(config: IntakeWorldConfig, timeline: Timeline) {
    newWorld();
    this.config = config;
    this.timeline = timeline;
    this.service = new ServiceFront(config.service);
    this.store =
      config.mode === 'plain' ? undefined : new FaultyStore(() => memoryStore(), config.storeLatencyMs);
    const store = this.store;
    this.inbox =
      config.mode === 'inbox' && store !== undefined
        ? new MemoryInbox({ visibilityTimeoutMs: 3 * EVENT_TIMEOUT_MS }, (work) => store.serve(work))
        : undefined;
    this.#slots = Array.from({ length: config.processes }, () => new ReceiverSlot());
  }

  /** Seeds the older tasks, 40 min later the world's own ones, then starts the receiving processes. */
  async start(): Promise<void> {
    const observers = observersOf(this.service.mock);
    for (let index = 1; index <= this.config.fillers; index++) {
      const task = await this.service.seed(orderParams(`OLD-${index}`));
      if (index % 3 === 0 && observers !== undefined) await this.service.mock.advance(task.id ?? '');
    }
    if (this.config.fillers > 0) jump(40 * 60_000);
    for (let index = 1; index <= this.config.tasks; index++) {
      const task = await this.service.seed(orderParams(`ORD-${index}`));
      this.taskIds.push(task.id ?? '');
    }
    for (const [index, slot] of this.#slots.entries()) this.#start(slot, index + 1);
  }

  #start(slot: ReceiverSlot, process: number): void {
    const gate = new ProcessGate(process, slot.incarnations.length + 1);
    // A stall past `storeTimeoutMs` is an outage as the handler sees it: its store calls time out.
    gate.onStall = (from, until) => this.outages.push({ from, to: until + 7 * DEFAULT_STORE_TIMEOUT_MS });
    const { mock } = this.service;
    const client = new DeliveryClient({
      apiKey: mock.apiKey,
      sellerId: mock.sellerId,
      baseUrl: this.service.baseUrlOf(gate),
      fetch: this.service.fetchOf(gate),
      logger: timelineLogger(this.timeline, `${gate.name} client`),
      logLevel: isReplaying() ? 'debug' : 'off',
      listingDelayMs: CLIENT_LISTING_DELAY_MS,
      onDrift: (drift) => void this.drifts.push({ process: gate.name, ...drift }),
    });
    const receiver: Receiver = {
      gate,
      failNext: false,
      syncs: [],
      handler: createWebhookHandler({
        client,
        logger: timelineLogger(this.timeline, gate.name),
        logLevel: isReplaying() ? 'debug' : 'off',
        eventTimeoutMs: EVENT_TIMEOUT_MS,
        onDrift: (drift) => void this.drifts.push({ process: gate.name, ...drift }),
        ...(this.config.confirm === 'none' ? { confirm: false } : {}),
        onEvent: (event) => this.#onEvent(receiver, event),
        onError: (error, event) => {
          this.timeline.note(
            `${gate.name}: onError(${error instanceof Error ? error.name : typeof error}${event === undefined ? '' : `, ${event.kind} of ${event.taskId}`})`,
          );
          this.errors.push({
            process: gate.name,
            ...(event === undefined ? {} : { taskId: event.taskId, kind: event.kind }),
            error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
          });
        },
        ...(this.store === undefined ? {} : { store: storeOfProcess(this.store, gate) }),
        ...(this.inbox === undefined ? {} : { inbox: inboxOfProcess(this.inbox, gate), inboxPollMs: 250 }),
      }),
    };
    slot.incarnations.push(receiver);
    slot.current = receiver;
  }

  /** `onEvent`: its work done once the process runs; it ends, as the handler sees it, once the process runs again. */
  async #onEvent(receiver: Receiver, event: WebhookEvent): Promise<void> {
    const invokedAt = Date.now();
    let call: OnEventCall | undefined;
    try {
      await receiver.gate.cross('onEvent', async () => {
        call = {
          process: receiver.gate.name,
          taskId: event.taskId,
          kind: event.kind,
          status: event.status,
          source: event.source,
          confirmed: event.confirmed,
          invokedAt,
          start: Date.now(),
          failed: receiver.failNext,
        };
        this.calls.push(call);
        receiver.failNext = false;
        this.timeline.note(
          `${call.process}: onEvent(${event.source} ${event.kind}${event.status === event.kind ? '' : ` → ${event.status}`}) of ${event.taskId}${call.failed ? ' (will throw)' : ''}`,
        );
        await new Promise((resolve) => setTimeout(resolve, this.config.onEventMs));
        if (call.failed) throw new Error('onEvent failed (injected)');
      });
    } finally {
      if (call !== undefined) call.end = Date.now();
    }
  }

  slot(process: number): ReceiverSlot {
    const slot = this.#slots[(process - 1) % this.#slots.length];
    if (slot === undefined) throw new Error(`no process ${process}`);
    return slot;
  }

  get receivers(): readonly Receiver[] {
    return this.#slots.flatMap((slot) => slot.incarnations);
  }

  /** The receivers running now. */
  get live(): readonly Receiver[] {
    return this.#slots.flatMap((slot) =>
      slot.current === undefined || slot.current.gate.dead ? [] : [slot.current],
    );
  }

  get sending(): boolean {
    return this.#sending > 0;
  }

  /**
   * Moves task `task` one step (`choice` 0), or off its path when it can (`cancelled`, …), and sends the
   * change's webhook as `copies` (to a process, after a delay each; none: the service lost it).
   */
  async move(
    task: number,
    choice: number,
    copies: readonly { process: number; delayMs: number }[],
  ): Promise<void> {
    const taskId = this.taskIds[(task - 1) % this.taskIds.length] ?? '';
    const observers = observersOf(this.service.mock);
    const record = observers?.record(taskId);
    if (record === undefined || observers === undefined) return;
    const moves = nextMoves(record.task.status ?? 'pending', record.events.at(-1)?.status);
    const target = moves[choice % Math.max(1, moves.length)];
    if (target === undefined) return;
    await this.service.mock.advance(taskId, target);
    const body = webhookFormOf(record, target);
    this.timeline.note(
      `task ${task} → ${target}: ${copies.length === 0 ? 'webhook lost' : copies.map((c) => `to p${c.process} after ${c.delayMs} ms`).join(', ')}`,
    );
    for (const copy of copies) {
      this.#sending++;
      setTimeout(() => {
        void this.#deliver(taskId, target, body, copy.process).finally(() => this.#sending--);
      }, copy.delayMs);
    }
  }

  async #deliver(taskId: string, kind: string, body: object, process: number): Promise<void> {
    const receiver = this.slot(process).current;
    const copy: WebhookCopy = {
      taskId,
      kind,
      to: receiver?.gate.name ?? `p${process} (down)`,
      sentAt: Date.now(),
    };
    this.copies.push(copy);
    if (receiver === undefined || receiver.gate.dead) {
      copy.seen = 'refused';
      return;
    }
    const request = new Request('https://merchant.test/webhooks/delivery', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'delivery-task-service' },
      body: JSON.stringify(body),
    });
    const answer = receiver.gate
      .cross('webhook', () => receiver.handler.fetch(request))
      .then((response) => {
        copy.answered = response.status;
        this.timeline.note(`${copy.to} answered ${response.status} to ${kind} of ${taskId}`);
        return response.status;
      });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), SERVICE_WAIT_MS);
    });
    copy.seen = await Promise.race([answer, timeout]);
    clearTimeout(timer);
  }

  restart(process: number, downMs: number): void {
    const slot = this.slot(process);
    const old = slot.current;
    if (old === undefined || old.gate.dead) return;
    old.gate.kill();
    slot.current = undefined;
    this.timeline.note(`${old.gate.name} killed`);
    setTimeout(() => {
      this.#start(slot, ((process - 1) % this.#slots.length) + 1);
      this.timeline.note(`${slot.current?.gate.name} started`);
    }, downMs);
  }

  stall(process: number, ms: number, point: StallPoint): void {
    const gate = this.slot(process).current?.gate;
    if (gate === undefined || gate.dead) return;
    gate.stall(ms, point);
    this.timeline.note(`${gate.name} stalls for ${ms} ms ${point}`);
  }

  failNextOnEvent(process: number): void {
    const receiver = this.slot(process).current;
    if (receiver !== undefined) receiver.failNext = true;
  }

  /** Starts `sync()` on the process (its result kept; a failure goes to the world's errors): true once it ran. */
  sync(process: number): Promise<boolean> {
    const receiver = this.slot(process).current;
    if (receiver === undefined || receiver.gate.dead) return Promise.resolve(false);
    this.timeline.note(`${receiver.gate.name}: sync()`);
    return receiver.handler.sync().then(
      (result) => {
        receiver.syncs.push(result);
        this.timeline.note(
          `${receiver.gate.name}: sync → ${JSON.stringify({ ...result, checkpoint: undefined })}`,
        );
        return true;
      },
      (error: unknown) => {
        this.errors.push({
          process: receiver.gate.name,
          error: `sync: ${(error as Error)?.name}: ${(error as Error)?.message}`,
        });
        this.timeline.note(`${receiver.gate.name}: sync failed: ${(error as Error)?.message}`);
        return false;
      },
    );
  }
}

/** The next step along the delivery path, then the statuses off it a task can reach now. */
function nextMoves(status: string, lastEvent: string | undefined): string[] {
  const path = [
    'pending',
    'requested',
    'accepted',
    'inprogress',
    'pickup_location_reached',
    'pickedup',
    'enroute',
    'delivered',
  ];
  const reached = lastEvent !== undefined && path.includes(lastEvent) ? lastEvent : status;
  const next = path[path.indexOf(reached) + 1];
  const offPath: Record<string, string[]> = {
    pending: ['cancelled', 'rejected'],
    requested: ['cancelled', 'rejected'],
    accepted: ['cancelled'],
    enroute: ['failed'],
  };
  if (['delivered', 'cancelled', 'rejected', 'failed'].includes(status)) return [];
  const moves = next === undefined ? [] : [next];
  // Between accepted and pickedup the task stays `accepted`: cancelling is still allowed.
  return [...moves, ...(offPath[status] ?? [])];
}
