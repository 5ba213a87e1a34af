/**
 * The behaviour every durable inbox gives the webhook handler (README "Running several instances";
 * docs/several-instances.md § "Durable intake"), as a suite any inbox runs: `redisInbox` over both
 * client libraries and `postgresInbox`, against real servers.
 */
import { randomUUID } from 'node:crypto';
import { expect, it, vi } from 'vitest';
import { memoryStore } from '../../src/core/store.js';
import type { WebhookInbox } from '../../src/webhooks/inbox.js';
import {
  createWebhookHandler,
  type WebhookEvent,
  type WebhookHandlerOptions,
} from '../../src/webhooks/index.js';
import { fetchWebhook, gate, webhookBody } from './fixtures.js';

/** Options of an inbox made for one test. */
export interface InboxMaking {
  visibilityTimeoutMs?: number;
  maxEntries?: number;
  retentionMs?: number;
  maxAttempts?: number;
}

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

const post = fetchWebhook;

/** Runs the inbox behaviour against inboxes made by `make` (a fresh stream or table per call). */
export function describeInboxContract(
  makeInbox: (options?: InboxMaking) => WebhookInbox | Promise<WebhookInbox>,
  extra: {
    dedupesOnWrite: boolean;
    /** Commands or statements the inboxes made so far have sent to their server (without it, not checked). */
    calls?: () => number;
  },
): void {
  // As a service does at boot: the server's check (and a table's creation) is not part of any webhook's answer.
  const make = async (options?: InboxMaking): Promise<WebhookInbox> => {
    const inbox = await makeInbox(options);
    await inbox.ready?.();
    return inbox;
  };
  const handlerOf = (inbox: WebhookInbox, options: Partial<WebhookHandlerOptions> = {}) =>
    createWebhookHandler({
      inbox,
      store: memoryStore(),
      eventTimeoutMs: 1000,
      inboxPollMs: 10,
      logger: quiet,
      onEvent: () => {},
      ...options,
    });

  it('answers 200 once the webhook is in the inbox, and a worker passes it to onEvent and marks it done', async () => {
    const inbox = await make();
    const seen: string[] = [];
    const handler = handlerOf(inbox, {
      onEvent: (event) => void seen.push(`${event.taskId}:${event.status}`),
    });
    const taskId = `task-${randomUUID()}`;
    expect((await post(handler, taskId, 'accepted')).status).toBe(200);
    await handler.idle();
    expect(seen).toEqual([`${taskId}:accepted`]);
    expect(handler.stats).toMatchObject({ stored: 1, claimed: 1, processed: 1 });
    expect((await inbox.inspect()).pending).toBe(0);
    await handler.close();
  });

  it('with a full local queue answers 200 and loses nothing', async () => {
    const inbox = await make();
    const open = gate();
    const seen: string[] = [];
    const handler = handlerOf(inbox, {
      maxQueue: 1,
      concurrency: 1,
      eventTimeoutMs: 5000,
      onEvent: async (event: WebhookEvent) => {
        await open.promise;
        seen.push(`${event.taskId}:${event.status}`);
      },
    });
    const tasks = Array.from({ length: 20 }, (_, index) => `task-${index}-${randomUUID()}`);
    const answers = await Promise.all(tasks.map((taskId) => post(handler, taskId, 'accepted')));
    expect(answers.map((answer) => answer.status)).toEqual(tasks.map(() => 200));
    open.open();
    await handler.idle();
    expect(seen.sort()).toEqual(tasks.map((taskId) => `${taskId}:accepted`).sort());
    await handler.close();
  });

  it('answers 503 at once with one warning when the inbox cannot store the webhook', async () => {
    const inbox = await make();
    const broken: WebhookInbox = { ...inbox, append: () => Promise.reject(new Error('connection refused')) };
    const warnings: string[] = [];
    const seen: string[] = [];
    const handler = handlerOf(broken, {
      onEvent: (event) => void seen.push(event.taskId),
      logger: { ...quiet, warn: (message: string) => void warnings.push(message) },
    });
    const taskId = `task-${randomUUID()}`;
    expect((await post(handler, taskId, 'accepted')).status).toBe(503);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('503');
    expect(warnings[0]).toContain('connection refused');
    await handler.idle();
    expect(seen).toEqual([]);
    await handler.close();
  });

  it('answers 503 once the inbox holds maxEntries events', async () => {
    const inbox = await make({ maxEntries: 2 });
    const handler = handlerOf(inbox, { inboxWorkers: false });
    const statuses = [];
    for (const index of [1, 2, 3])
      statuses.push((await post(handler, `task-${index}-${randomUUID()}`, 'accepted')).status);
    expect(statuses).toEqual([200, 200, 503]);
    await handler.close();
  });

  it('gives an event whose worker died to another worker after the visibility timeout', async () => {
    const inbox = await make({ visibilityTimeoutMs: 300 });
    const receiver = handlerOf(inbox, { inboxWorkers: false, eventTimeoutMs: 100 });
    const taskId = `task-${randomUUID()}`;
    expect((await post(receiver, taskId, 'pickedup')).status).toBe(200);
    // A worker claims it and dies (never marks it).
    const [claimed] = await inbox.claim('dead-worker', 10);
    expect(claimed?.attempts).toBe(1);
    const seen: string[] = [];
    const worker = handlerOf(inbox, {
      eventTimeoutMs: 100,
      onEvent: (event) => void seen.push(event.taskId),
    });
    await worker.idle();
    expect(seen).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 400));
    await worker.idle();
    expect(seen).toEqual([taskId]);
    await worker.close();
  });

  it('keeps a failed event for inspection and processes it again on replay', async () => {
    const inbox = await make();
    let fail = true;
    const seen: string[] = [];
    const handler = handlerOf(inbox, {
      onEvent: (event) => {
        if (fail) throw new Error('database down');
        seen.push(event.taskId);
      },
      onError: () => {},
    });
    const taskId = `task-${randomUUID()}`;
    await post(handler, taskId, 'enroute');
    await handler.idle();
    const inspection = await inbox.inspect();
    expect(inspection.failed).toBe(1);
    const failed = inspection.events.find((event) => event.state === 'failed');
    expect(failed).toMatchObject({ taskId, kind: 'enroute', state: 'failed' });
    expect(JSON.stringify(inspection)).not.toContain('Fatima');
    fail = false;
    expect(await inbox.replay(failed ? [failed.id] : [])).toBe(1);
    await handler.idle();
    expect(seen).toEqual([taskId]);
    expect((await inbox.inspect()).failed).toBe(0);
    await handler.close();
  });

  it("passes one task's events to onEvent in arrival order", async () => {
    const inbox = await make();
    const receiver = handlerOf(inbox, { inboxWorkers: false });
    const taskId = `task-${randomUUID()}`;
    const statuses = ['accepted', 'inprogress', 'pickedup', 'enroute', 'delivered'];
    for (const status of statuses) expect((await post(receiver, taskId, status)).status).toBe(200);
    const seen: string[] = [];
    const workers = [1, 2, 3].map(() =>
      handlerOf(inbox, { confirm: false, onEvent: (event) => void seen.push(event.status) }),
    );
    // Each worker's idle() ends when its claim finds nothing it may take: another one may hold the task.
    await vi.waitFor(() => expect(seen).toHaveLength(statuses.length), { timeout: 5000, interval: 20 });
    expect(seen).toEqual(statuses);
    await Promise.all(workers.map((worker) => worker.close()));
  });

  it("gives no worker a task's next event while its previous one is claimed and not done", async () => {
    const inbox = await make();
    const taskId = `task-${randomUUID()}`;
    for (const kind of ['accepted', 'pickedup']) {
      await inbox.append({
        taskId,
        kind,
        body: JSON.stringify({ _id: taskId, status: kind }),
        receivedAt: Date.now(),
      });
    }
    const [first, ...rest] = await inbox.claim('worker-1', 1);
    expect(rest).toEqual([]);
    expect(JSON.parse(first?.body ?? '{}')).toMatchObject({ status: 'accepted' });
    expect(await inbox.claim('worker-2', 10)).toEqual([]);
    await inbox.complete(first?.id ?? '');
    const [second] = await inbox.claim('worker-2', 10);
    expect(JSON.parse(second?.body ?? '{}')).toMatchObject({ status: 'pickedup' });
  });

  it('gives a released event back at once, its claim not counted as an attempt', async () => {
    const inbox = await make();
    const taskId = `task-${randomUUID()}`;
    await inbox.append({
      taskId,
      kind: 'accepted',
      body: JSON.stringify({ _id: taskId }),
      receivedAt: Date.now(),
    });
    const [first] = await inbox.claim('worker-1', 10);
    expect(first?.attempts).toBe(1);
    await inbox.release?.(first?.id ?? '');
    const [again] = await inbox.claim('worker-2', 10);
    expect(again?.id).toBe(first?.id);
    expect(again?.attempts).toBe(1);
  });

  it('trims done events once past the retention', async () => {
    const inbox = await make({ retentionMs: 0 });
    const handler = handlerOf(inbox);
    for (const index of [1, 2, 3]) await post(handler, `task-${index}-${randomUUID()}`, 'accepted');
    await handler.idle();
    await inbox.maintain?.();
    const inspection = await inbox.inspect();
    expect(inspection).toMatchObject({ pending: 0, failed: 0, events: [] });
    await handler.close();
  });

  const append = (inbox: WebhookInbox, taskId: string, kind: string) =>
    inbox.append({ taskId, kind, body: JSON.stringify(webhookBody(taskId, kind)), receivedAt: Date.now() });

  it.skipIf(extra.calls === undefined)(
    'claims a batch in one call and marks a batch done in one call',
    async () => {
      const calls = extra.calls ?? (() => 0);
      const inbox = await make();
      // Warm-up: the consumer group, the scripts, the table.
      await append(inbox, `task-${randomUUID()}`, 'accepted');
      const [warm] = await inbox.claim('warm-up', 1);
      await inbox.complete(warm?.id ?? '');
      const tasks = Array.from({ length: 20 }, (_, index) => `task-${index}-${randomUUID()}`);
      for (const taskId of tasks) await append(inbox, taskId, 'accepted');
      const before = calls();
      const claimed = await inbox.claim('worker-1', 20);
      expect(claimed).toHaveLength(20);
      expect(calls() - before).toBe(1);
      await Promise.all(claimed.map((entry) => inbox.complete(entry.id)));
      expect(calls() - before).toBe(2);
      expect(await inbox.claim('worker-2', 20)).toEqual([]);
      expect((await inbox.inspect()).pending).toBe(0);
    },
  );

  it("keeps each task's order within and across batches, drops a repeat, and goes on past a failure in a batch", async () => {
    const inbox = await make();
    const tasks = Array.from({ length: 12 }, (_, index) => `task-${index}-${randomUUID()}`);
    const statuses = ['accepted', 'pickedup', 'enroute', 'delivered'];
    // Round by round, as webhooks come: every task's first status, then every task's second one and a
    // repeat of it, and so on: a claim holds several tasks, and a task's events span claims.
    for (const status of [...statuses.slice(0, 2), 'pickedup', ...statuses.slice(2)]) {
      for (const taskId of tasks) await append(inbox, taskId, status);
    }
    const failing = `${tasks[5]}:pickedup`;
    let failed = false;
    const seen: string[] = [];
    const store = memoryStore();
    const workers = [1, 2].map(() =>
      handlerOf(inbox, {
        store,
        confirm: false,
        concurrency: 3,
        onEvent: (event) => {
          const key = `${event.taskId}:${event.status}`;
          if (key === failing && !failed) {
            failed = true;
            throw new Error('onEvent failed in the middle of a batch');
          }
          seen.push(key);
        },
        onError: () => {},
      }),
    );
    const expected = tasks.flatMap((taskId) =>
      statuses
        .filter((status) => extra.dedupesOnWrite === false || `${taskId}:${status}` !== failing)
        .map((status) => `${taskId}:${status}`),
    );
    await vi.waitFor(() => expect(seen).toHaveLength(expected.length), { timeout: 10_000, interval: 20 });
    await Promise.all(workers.map((worker) => worker.idle()));
    // Each task's events in order, each once; the failed one kept (its repeat, where stored, processed).
    for (const taskId of tasks) {
      expect(seen.filter((key) => key.startsWith(`${taskId}:`))).toEqual(
        expected.filter((key) => key.startsWith(`${taskId}:`)),
      );
    }
    expect(seen).toHaveLength(expected.length);
    const stats = workers.map((worker) => worker.stats);
    expect(stats.reduce((sum, { failed: count }) => sum + count, 0)).toBe(1);
    expect(stats.reduce((sum, { duplicates }) => sum + duplicates, 0)).toBe(
      extra.dedupesOnWrite ? 0 : tasks.length - 1,
    );
    expect(await inbox.inspect()).toMatchObject({ pending: 0, failed: 1 });
    await Promise.all(workers.map((worker) => worker.close()));
  });

  it('gives the rest of a batch whose worker died between claim and mark to another worker, in order', async () => {
    // Long enough for the new worker to be idle before the dead worker's claims expire, on a busy machine too.
    const inbox = await make({ visibilityTimeoutMs: 1500 });
    const tasks = [1, 2, 3].map((index) => `task-${index}-${randomUUID()}`);
    for (const status of ['accepted', 'pickedup'])
      for (const taskId of tasks) await append(inbox, taskId, status);
    // A worker claims a batch, marks its first event done, and dies.
    const batch = await inbox.claim('dead-worker', 10);
    expect(batch.map((entry) => JSON.parse(entry.body)._id)).toEqual(tasks);
    await inbox.complete(batch[0]?.id ?? '');
    const seen: string[] = [];
    const worker = handlerOf(inbox, {
      eventTimeoutMs: 100,
      confirm: false,
      onEvent: (event) => void seen.push(`${event.taskId}:${event.status}`),
    });
    await worker.idle();
    // The first task goes on; the others wait for their claimed first event.
    expect(seen).toEqual([`${tasks[0]}:pickedup`]);
    await vi.waitFor(() => expect(seen).toHaveLength(5), { timeout: 10_000, interval: 20 });
    for (const taskId of tasks.slice(1)) {
      expect(seen.filter((key) => key.startsWith(taskId))).toEqual([
        `${taskId}:accepted`,
        `${taskId}:pickedup`,
      ]);
    }
    // Marked once onEvent returned: idle() waits for the marks.
    await worker.idle();
    expect((await inbox.inspect()).pending).toBe(0);
    await worker.close();
  });

  it("moves an event claimed maxAttempts times to the failed events, and gives its task's next event", async () => {
    // worker-2's claims must come within one visibility timeout of each other, on a busy machine too.
    const inbox = await make({ visibilityTimeoutMs: 1000, maxAttempts: 1 });
    const taskId = `task-${randomUUID()}`;
    await append(inbox, taskId, 'accepted');
    await append(inbox, taskId, 'pickedup');
    const [first] = await inbox.claim('dead-worker', 1);
    expect(first?.attempts).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const next = await inbox.claim('worker-2', 10);
    if (next.length === 0) next.push(...(await inbox.claim('worker-2', 10)));
    expect(next.map((entry) => JSON.parse(entry.body).status)).toEqual(['pickedup']);
    const inspection = await inbox.inspect();
    expect(inspection.failed).toBe(1);
    expect(inspection.events.find((event) => event.state === 'failed')).toMatchObject({
      taskId,
      kind: 'accepted',
    });
  });

  // Only an inbox that dedupes on write (PostgreSQL's unique key) has this case; the others dedupe later.
  if (extra.dedupesOnWrite) {
    it('stores a duplicate (task, status) once', async () => {
      const inbox = await make();
      const receiver = handlerOf(inbox, { inboxWorkers: false, dedupe: false });
      const taskId = `task-${randomUUID()}`;
      for (let copy = 0; copy < 3; copy++)
        expect((await post(receiver, taskId, 'accepted')).status).toBe(200);
      expect((await inbox.inspect()).pending).toBe(1);
    });
  }
}
