/**
 * Several receivers behind one URL sharing one `DeliveryStore`, as a suite any store runs:
 * `memoryStore()` in `shared-store.test.ts`, a Redis store against a real redis-server by calling
 * {@link describeSharedReceivers} with its factory. Three real node:http servers on 127.0.0.1, one
 * handler each, and a sender spreading duplicated and reordered webhooks across them.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeliveryClient } from '../../src/client.js';
import type { DeliveryStore, Task } from '../../src/index.js';
import { lifecycleRank } from '../../src/schemas/lifecycle.js';
import {
  createWebhookHandler,
  type WebhookClient,
  type WebhookEvent,
  type WebhookHandler,
  type WebhookHandlerOptions,
} from '../../src/webhooks/index.js';
import { seededRandom } from '../support/create-workers.js';
import { DELIVERY_EVENTS, gate, postWebhook, webhookBody } from './fixtures.js';
import { type Receiver, startReceiver } from './servers.js';

/** One `onEvent` call as a receiver saw it. */
export interface ProcessedEvent {
  readonly receiver: number;
  readonly taskId: string;
  readonly status: string;
  readonly confirmed: boolean;
  readonly source: WebhookEvent['source'];
  /** `performance.now()` when the call started and when it settled. */
  readonly start: number;
  end: number;
}

/** Task ids unique to this run, so a store shared between runs (a Redis server) never mixes them. */
export function runTaskIds(label: string, count: number): string[] {
  const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e9).toString(36)}`;
  return Array.from({ length: count }, (_, index) => `${label}-${run}-${index}`);
}

/** A set of receivers sharing one store, each recording its `onEvent` calls in one shared list. */
export interface SharedReceivers {
  readonly handlers: WebhookHandler[];
  readonly receivers: Receiver[];
  readonly processed: ProcessedEvent[];
  readonly errors: unknown[];
  /** The handlers' warnings (a store outage, when the store did not answer in time). */
  readonly warnings: string[];
  idle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts `count` node:http receivers, each with its own handler, all given `store`. `onEvent` records the
 * call, then awaits `work(event)` (default: a pause of 0–2 ms, to widen the windows where instances race).
 */
export async function startSharedReceivers(
  store: DeliveryStore,
  options: Partial<WebhookHandlerOptions> & {
    count?: number;
    work?: (event: WebhookEvent) => Promise<void>;
  } = {},
): Promise<SharedReceivers> {
  const { count = 3, work, ...handlerOptions } = options;
  const processed: ProcessedEvent[] = [];
  const errors: unknown[] = [];
  const warnings: string[] = [];
  const random = seededRandom(7);
  const handlers = Array.from({ length: count }, (_, receiver) =>
    createWebhookHandler({
      store,
      // Not a test of outages: a store starved of CPU on a loaded machine is given 10 s, not 1 s, before
      // its answers count as missing (then each process filters on its own, as documented, and says so).
      storeTimeoutMs: 10_000,
      logger: { debug() {}, info() {}, warn: (message: string) => void warnings.push(message), error() {} },
      onError: (error) => void errors.push(error),
      ...handlerOptions,
      onEvent: async (event) => {
        const call: ProcessedEvent = {
          receiver,
          taskId: event.taskId,
          status: event.status,
          confirmed: event.confirmed,
          source: event.source,
          start: performance.now(),
          end: Number.NaN,
        };
        processed.push(call);
        try {
          if (work !== undefined) await work(event);
          else await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 3)));
        } finally {
          call.end = performance.now();
        }
      },
    }),
  );
  const receivers = await Promise.all(handlers.map((handler) => startReceiver('node:http', handler)));
  return {
    handlers,
    receivers,
    processed,
    errors,
    warnings,
    idle: async () => {
      // A handler waiting on another's lease goes idle only after it: wait until all are idle at once.
      for (let round = 0; round < 3; round++) await Promise.all(handlers.map((handler) => handler.idle()));
    },
    close: async () => {
      await Promise.all(receivers.map((receiver) => receiver.close()));
    },
  };
}

/** One webhook to send: the task, its status, and the receiver it reaches. */
interface Delivery {
  readonly taskId: string;
  readonly status: string;
  readonly receiver: number;
}

/**
 * Every status of every task, each sent one to three times, to receivers picked at random; per task,
 * neighbours swapped with probability 1/4 and copies moved later; tasks interleaved at random.
 */
function spread(taskIds: readonly string[], receivers: number, random: () => number): Delivery[] {
  const perTask = taskIds.map((taskId) => {
    const statuses: string[] = [...DELIVERY_EVENTS];
    for (let index = 0; index + 1 < statuses.length; index++) {
      if (random() < 0.25)
        [statuses[index], statuses[index + 1]] = [statuses[index + 1] ?? '', statuses[index] ?? ''];
    }
    const sends = [...statuses];
    for (const status of statuses) {
      const copies = Math.floor(random() * 3);
      for (let copy = 0; copy < copies; copy++) {
        const at = sends.indexOf(status) + 1 + Math.floor(random() * (sends.length - sends.indexOf(status)));
        sends.splice(at, 0, status);
      }
    }
    return sends.map((status) => ({ taskId, status, receiver: Math.floor(random() * receivers) }));
  });
  const deliveries: Delivery[] = [];
  while (perTask.some((sends) => sends.length > 0)) {
    const open = perTask.filter((sends) => sends.length > 0);
    const next = open[Math.floor(random() * open.length)]?.shift();
    if (next !== undefined) deliveries.push(next);
  }
  return deliveries;
}

/** POSTs every delivery, `parallel` at a time in the spread's order; resolves with every answer's status. */
async function send(
  urls: readonly string[],
  deliveries: readonly Delivery[],
  parallel: number,
): Promise<number[]> {
  const answers: number[] = [];
  let next = 0;
  const lane = async () => {
    for (let index = next++; index < deliveries.length; index = next++) {
      const delivery = deliveries[index] as Delivery;
      const response = await postWebhook(
        urls[delivery.receiver] ?? '',
        webhookBody(delivery.taskId, delivery.status),
      );
      answers.push(response.status);
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
  return answers;
}

function callsByTask(processed: readonly ProcessedEvent[]): Map<string, ProcessedEvent[]> {
  const byTask = new Map<string, ProcessedEvent[]>();
  for (const call of [...processed].sort((a, b) => a.start - b.start)) {
    const calls = byTask.get(call.taskId) ?? [];
    calls.push(call);
    byTask.set(call.taskId, calls);
  }
  return byTask;
}

/** The (task, status) pairs processed more than once. */
function repeats(processed: readonly ProcessedEvent[]): string[] {
  const seen = new Map<string, number>();
  for (const call of processed)
    seen.set(`${call.taskId} ${call.status}`, (seen.get(`${call.taskId} ${call.status}`) ?? 0) + 1);
  return [...seen].filter(([, times]) => times > 1).map(([pair, times]) => `${pair} ×${times}`);
}

/** Calls of one task that overlap in time, on any receivers. */
function overlaps(byTask: Map<string, ProcessedEvent[]>): string[] {
  const found: string[] = [];
  for (const [taskId, calls] of byTask) {
    for (let index = 1; index < calls.length; index++) {
      const before = calls[index - 1] as ProcessedEvent;
      const after = calls[index] as ProcessedEvent;
      if (after.start < before.end)
        found.push(`${taskId}: ${after.status} started before ${before.status} ended`);
    }
  }
  return found;
}

/** A client stub whose GET reads every task back as delivered (the sender's tasks all end delivered). */
const deliveredClient: WebhookClient = {
  tasks: { retrieve: async (id: string): Promise<Task> => ({ id, status: 'delivered' }) },
};

/**
 * The behaviour of receivers sharing a store. `makeStore` is called once per test and its store given to
 * every handler of that test; state must not leak between tests (for a server, a fresh key prefix per
 * call). Task ids are unique per run.
 */
export function describeSharedReceivers(
  name: string,
  makeStore: () => DeliveryStore | Promise<DeliveryStore>,
): void {
  describe(`three receivers sharing ${name}`, () => {
    let running: SharedReceivers | undefined;
    afterEach(async () => {
      await running?.close();
      running = undefined;
    });

    /**
     * Sends the spread of 100 tasks (24 webhooks in flight) to the running receivers and checks what
     * holds in every setting: every answer 200, no error, no (task, status) twice, no two calls of a task
     * at once. Returns the task ids, the deliveries and the calls by task.
     */
    async function sendSpread(receivers: SharedReceivers, label: string, seed: number) {
      const taskIds = runTaskIds(label, 100);
      const deliveries = spread(taskIds, 3, seededRandom(seed));
      const answers = await send(
        receivers.receivers.map((receiver) => receiver.url),
        deliveries,
        24,
      );
      await receivers.idle();
      expect(answers.filter((status) => status !== 200)).toEqual([]);
      expect(receivers.errors.map(String)).toEqual([]);
      expect(repeats(receivers.processed), receivers.warnings.join(' | ')).toEqual([]);
      const byTask = callsByTask(receivers.processed);
      expect(overlaps(byTask)).toEqual([]);
      return { taskIds, deliveries, byTask };
    }

    it('process each (task, status) of 100 tasks once, in lifecycle order, one event of a task at a time, when bodies set the order', async () => {
      running = await startSharedReceivers(await makeStore());
      const { taskIds, deliveries, byTask } = await sendSpread(running, 'spread', 2026);
      for (const taskId of taskIds) {
        const ranks = (byTask.get(taskId) ?? []).map((call) => lifecycleRank(call.status) ?? -1);
        expect(ranks, taskId).toEqual([...ranks].sort((a, b) => a - b));
        expect(
          ranks.filter((rank) => rank === lifecycleRank('delivered')),
          taskId,
        ).toHaveLength(1);
      }
      const stats = running.handlers.map((handler) => handler.stats);
      const total = (field: 'processed' | 'duplicates' | 'outOfOrder' | 'failed') =>
        stats.reduce((sum, entry) => sum + entry[field], 0);
      expect(total('processed')).toBe(running.processed.length);
      expect(total('processed') + total('duplicates') + total('outOfOrder')).toBe(deliveries.length);
      expect(total('failed')).toBe(0);
      // Every receiver took part: the filter really is shared, not one instance doing it all.
      expect(stats.every((entry) => entry.processed > 0 && entry.duplicates > 0)).toBe(true);
    });

    it('process each (task, status) of 100 tasks once and nothing after a confirmed delivered, when final statuses are confirmed', async () => {
      running = await startSharedReceivers(await makeStore(), { client: deliveredClient });
      const { taskIds, byTask } = await sendSpread(running, 'confirmed', 11);
      for (const taskId of taskIds) {
        const calls = byTask.get(taskId) ?? [];
        const delivered = calls.filter((call) => call.status === 'delivered');
        expect(
          delivered.map((call) => call.confirmed),
          taskId,
        ).toEqual([true]);
        expect(calls.at(-1)?.status, taskId).toBe('delivered');
      }
    });

    /**
     * Two receivers: `held` goes to the first, whose `onEvent` for it stays open; once it runs, `next`
     * goes to the second; 150 ms later `held` is let go. Returns the statuses processed while it was held.
     */
    async function raceTwoStatuses(
      held: string,
      next: string,
    ): Promise<{ race: SharedReceivers; whileHeld: string[] }> {
      const holding = gate();
      const release = gate();
      const race = await startSharedReceivers(await makeStore(), {
        count: 2,
        work: async (event) => {
          if (event.status !== held) return;
          holding.open();
          await release.promise;
        },
      });
      running = race;
      const [taskId = ''] = runTaskIds(`race-${held}-${next}`, 1);
      const [first, second] = race.receivers;
      expect((await postWebhook(first?.url ?? '', webhookBody(taskId, held))).status).toBe(200);
      await holding.promise;
      expect((await postWebhook(second?.url ?? '', webhookBody(taskId, next))).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 150));
      const whileHeld = race.processed.map((call) => call.status);
      release.open();
      await race.idle();
      return { race, whileHeld };
    }

    it('hold a newer status of a task until an older one being processed on another receiver is done', async () => {
      const { race, whileHeld } = await raceTwoStatuses('enroute', 'delivered');
      expect(whileHeld).toEqual(['enroute']);
      const [enroute, delivered] = race.processed;
      expect(race.processed.map((call) => [call.receiver, call.status])).toEqual([
        [0, 'enroute'],
        [1, 'delivered'],
      ]);
      expect(delivered?.start).toBeGreaterThanOrEqual(enroute?.end ?? Number.POSITIVE_INFINITY);
    });

    it('drop an older status reaching another receiver while a newer one is being processed', async () => {
      const { race, whileHeld } = await raceTwoStatuses('delivered', 'enroute');
      expect(whileHeld).toEqual(['delivered']);
      expect(race.processed.map((call) => call.status)).toEqual(['delivered']);
      expect(race.handlers[1]?.stats.outOfOrder).toBe(1);
    });

    it('process a resend on another receiver after onEvent failed, and drop a later copy on a third', async () => {
      let failures = 1;
      running = await startSharedReceivers(await makeStore(), {
        work: async () => {
          if (failures-- > 0) throw new Error('database down');
        },
      });
      const [taskId = ''] = runTaskIds('resend', 1);
      for (const receiver of running.receivers) {
        expect((await postWebhook(receiver.url, webhookBody(taskId, 'accepted'))).status).toBe(200);
        await running.idle();
      }
      expect(running.processed.map((call) => [call.receiver, call.status])).toEqual([
        [0, 'accepted'],
        [1, 'accepted'],
      ]);
      expect(running.errors).toEqual([new Error('database down')]);
      expect(running.handlers.map((handler) => handler.stats.failed)).toEqual([1, 0, 0]);
      expect(running.handlers.map((handler) => handler.stats.duplicates)).toEqual([0, 0, 1]);
    });

    it('keep the state of each seller apart, under keys that carry the seller id', async () => {
      const store = await makeStore();
      const written: string[] = [];
      const spy: DeliveryStore = {
        setIfAbsent: (key, value, ttlMs) => {
          written.push(key);
          return store.setIfAbsent(key, value, ttlMs);
        },
        get: (key) => store.get(key),
        compareAndSet: (key, expected, value, ttlMs) => {
          written.push(key);
          return store.compareAndSet(key, expected, value, ttlMs);
        },
        delete: (key, expected) => store.delete(key, expected),
      };
      const clientOf = (sellerId: string) =>
        new DeliveryClient({ apiKey: 'key', sellerId, baseUrl: 'http://127.0.0.1:9', logLevel: 'off' });
      const sellers = runTaskIds('seller', 2);
      const events: string[] = [];
      const handlers = [sellers[0], sellers[0], sellers[1]].map((sellerId) =>
        createWebhookHandler({
          store: spy,
          client: clientOf(sellerId ?? ''),
          confirm: false,
          onEvent: (event) => void events.push(`${sellerId} ${event.taskId} ${event.status}`),
        }),
      );
      for (const handler of handlers) {
        const request = new Request('http://127.0.0.1/webhooks', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(webhookBody('shared-id', 'accepted')),
        });
        expect((await handler.fetch(request)).status).toBe(200);
        await handler.idle();
      }
      expect(events).toEqual([`${sellers[0]} shared-id accepted`, `${sellers[1]} shared-id accepted`]);
      expect(new Set(written)).toEqual(
        new Set(
          sellers.flatMap((sellerId) => [
            `v2:http%3A//127.0.0.1%3A9/:${sellerId}:webhook:lease:{shared-id}`,
            `v2:http%3A//127.0.0.1%3A9/:${sellerId}:webhook:task:{shared-id}`,
          ]),
        ),
      );
    });

    it('run startSync on one receiver at a time, and hand it over when that one stops', async () => {
      const store = await makeStore();
      let active = 0;
      let mostActive = 0;
      const runs: number[] = [];
      const clientFor = (receiver: number): WebhookClient => ({
        tasks: {
          retrieve: async (id: string): Promise<Task> => ({ id }),
          list: async function* () {
            active++;
            mostActive = Math.max(mostActive, active);
            runs.push(receiver);
            try {
              await new Promise((resolve) => setTimeout(resolve, 15));
            } finally {
              active--;
            }
            yield* [];
          },
        },
      });
      const errors: unknown[] = [];
      const handlers = [0, 1, 2].map((receiver) =>
        createWebhookHandler({
          store,
          client: clientFor(receiver),
          confirm: false,
          onEvent: () => {},
          onError: (error) => void errors.push(error),
        }),
      );
      const stops = handlers.map((handler) => handler.startSync({ intervalMs: 10 }));
      // Counted in runs, not in time: a loaded machine runs fewer in a given time.
      const until = { timeout: 10_000, interval: 20 };
      await vi.waitFor(() => expect(runs.length).toBeGreaterThanOrEqual(8), until);
      const holder = runs[0] ?? -1;
      expect(new Set(runs)).toEqual(new Set([holder]));

      await stops[holder]?.();
      const handedOverAt = runs.length;
      await vi.waitFor(() => expect(runs.length - handedOverAt).toBeGreaterThanOrEqual(4), until);
      const after = runs.slice(handedOverAt);
      expect(after).not.toContain(holder);
      expect(new Set(after).size).toBe(1);

      await Promise.all(stops.map((stop) => stop()));
      const stoppedAt = runs.length;
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(runs.length).toBe(stoppedAt);
      expect(mostActive).toBe(1);
      expect(errors).toEqual([]);
    });
  });
}
