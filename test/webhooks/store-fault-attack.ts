/**
 * The attack of the durable-intake fault tests (`intake-faults.test.ts` over Redis,
 * `intake-faults-postgres.test.ts` over PostgreSQL; two files, so the two backends run at once): 3
 * receivers (in-process handlers, each with its own connections) share an inbox and a store on one
 * backend while it fails. Webhooks (tasks interleaved, a quarter sent twice, some copies sent again
 * later) are sent until answered 200. Every (task, status) answered 200 must reach `onEvent` exactly
 * once, in order per task: lost, processed twice and out of order are all 0.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { DeliveryStore } from '../../src/core/store.js';
import { createWebhookHandler, type WebhookHandler, type WebhookInbox } from '../../src/webhooks/index.js';
import { seededRandom } from '../support/create-workers.js';
import { webhookBody } from './fixtures.js';

const STATUSES = ['accepted', 'inprogress', 'pickedup', 'enroute', 'delivered'] as const;
const TASKS = 60;
const LANES = 10;
const RECEIVERS = 3;

export interface Backend {
  store: DeliveryStore;
  inbox: WebhookInbox;
  close(): Promise<void>;
}

export interface Fault {
  /** Starts the fault; resolves once it is in place. */
  start(): Promise<void>;
  /** Ends it; must be safe to call twice and after a failed start. */
  end(): Promise<void>;
}

export const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Sends every webhook through `receivers` (each until answered 200), with `fault` on for `faultMs` from
 * a third of the way in; returns the counts.
 */
export async function attack(makeBackend: () => Backend, fault: Fault, faultMs: number) {
  const backends = Array.from({ length: RECEIVERS }, makeBackend);
  const processed: string[] = [];
  const perTask = new Map<string, string[]>();
  const errors: unknown[] = [];
  const handlers: WebhookHandler[] = backends.map(({ store, inbox }) =>
    createWebhookHandler({
      store,
      inbox,
      confirm: false,
      storeTimeoutMs: 1000,
      inboxTimeoutMs: 500,
      eventTimeoutMs: 2000,
      inboxPollMs: 20,
      logLevel: 'off',
      onError: (error) => {
        errors.push(error);
      },
      onEvent: async (event) => {
        await sleep(1);
        processed.push(`${event.taskId} ${event.status}`);
        perTask.set(event.taskId, [...(perTask.get(event.taskId) ?? []), event.status]);
      },
    }),
  );
  const random = seededRandom(20261126);
  const answered = new Set<string>();
  let posts = 0;
  const post = async (taskId: string, status: string): Promise<void> => {
    for (;;) {
      const handler = handlers[Math.floor(random() * handlers.length)] as WebhookHandler;
      posts++;
      const response = await handler.fetch(
        new Request('http://receiver.test/webhooks', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(webhookBody(taskId, status)),
        }),
      );
      if (response.status === 200) {
        answered.add(`${taskId} ${status}`);
        return;
      }
      await sleep(50);
    }
  };
  const name = randomUUID().slice(0, 8);
  const tasks = Array.from({ length: TASKS }, (_, index) => `fault-${name}-${index}`);
  const late: [string, string][] = [];
  let next = 0;
  const sending = Promise.all(
    Array.from({ length: LANES }, async () => {
      for (let index = next++; index < tasks.length; index = next++) {
        const taskId = tasks[index] ?? '';
        for (const status of STATUSES) {
          await post(taskId, status);
          if (random() < 0.25) await post(taskId, status); // a duplicate at once
          if (random() < 0.1) late.push([taskId, status]); // a copy sent again later
          await sleep(5 + Math.floor(random() * 20));
        }
      }
    }),
  );
  let faulted = false;
  let inspection: unknown;
  try {
    await sleep(400);
    await fault.start();
    faulted = true;
    await sleep(faultMs);
    await fault.end();
    await sending;
    for (const [taskId, status] of late) await post(taskId, status);
    const expected = TASKS * STATUSES.length;
    const deadline = Date.now() + 60_000;
    while (new Set(processed).size < expected && Date.now() < deadline) await sleep(100);
    await Promise.all(handlers.map((handler) => handler.idle()));
    inspection = await backends[0]?.inbox.inspect({ limit: 10 });
  } finally {
    if (!faulted) await sending.catch(() => {});
    await fault.end();
    await Promise.all(handlers.map((handler) => handler.close()));
    await Promise.all(backends.map((backend) => backend.close()));
  }
  const unique = new Set(processed);
  const lost = [...answered].filter((pair) => !unique.has(pair));
  let outOfOrder = 0;
  for (const statuses of perTask.values()) {
    const ranks = statuses.map((status) => STATUSES.indexOf(status as (typeof STATUSES)[number]));
    for (let index = 1; index < ranks.length; index++)
      if ((ranks[index] ?? 0) <= (ranks[index - 1] ?? 0)) outOfOrder++;
  }
  return {
    answered: answered.size,
    posts,
    lost,
    twice: processed.length - unique.size,
    outOfOrder,
    errors,
    inspection,
  };
}

export function check(label: string, result: Awaited<ReturnType<typeof attack>>): void {
  console.log(
    `${label}: ${result.answered} (task, status) answered 200, ${result.posts} POSTs; ${result.lost.length} lost, ${result.twice} processed twice, ${result.outOfOrder} out of order`,
  );
  if (result.lost.length > 0 || result.twice > 0) {
    console.log('inbox', JSON.stringify(result.inspection), 'errors', result.errors.slice(0, 5).map(String));
  }
  expect(result.answered).toBe(TASKS * STATUSES.length);
  expect(result.lost).toEqual([]);
  expect(result.twice).toBe(0);
  expect(result.outOfOrder).toBe(0);
}
