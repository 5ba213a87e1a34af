/**
 * A worker claims ahead of its free slots (docs/performance.md "Durable intake drain"), and an event
 * claimed ahead starts only while its claim still has `eventTimeoutMs` to run: otherwise it is given back.
 */
import { expect, it } from 'vitest';
import { memoryStore } from '../../src/core/store.js';
import type { InboxEntry, WebhookInbox } from '../../src/webhooks/inbox.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import { webhookBody } from './fixtures.js';

/** An inbox in memory: every entry claimable unless claimed and not past `visibilityTimeoutMs`. */
function scriptedInbox(bodies: readonly string[], visibilityTimeoutMs: number) {
  const entries = bodies.map((body, index) => ({
    id: `e${index}`,
    body,
    claimedAt: -Infinity,
    done: false,
    attempts: 0,
  }));
  const claims: number[] = [];
  const released: string[] = [];
  const inbox: WebhookInbox = {
    visibilityTimeoutMs,
    append: async () => {},
    claim: async (_consumer, max) => {
      const now = Date.now();
      const claimed: InboxEntry[] = [];
      for (const entry of entries) {
        if (claimed.length >= max) break;
        if (entry.done || now - entry.claimedAt < visibilityTimeoutMs) continue;
        entry.claimedAt = now;
        entry.attempts++;
        claimed.push({ id: entry.id, body: entry.body, receivedAt: now, attempts: entry.attempts });
      }
      claims.push(claimed.length);
      return claimed;
    },
    complete: async (id) => {
      const entry = entries.find((candidate) => candidate.id === id);
      if (entry) entry.done = true;
    },
    fail: async () => {},
    release: async (id) => {
      released.push(id);
      const entry = entries.find((candidate) => candidate.id === id);
      if (entry) entry.claimedAt = -Infinity;
    },
    inspect: async () => ({ pending: entries.filter((entry) => !entry.done).length, failed: 0, events: [] }),
    replay: async () => 0,
  };
  return { inbox, claims, released, entries };
}

const body = (taskId: string) => JSON.stringify(webhookBody(taskId, 'accepted'));

/** Drains `count` events of distinct tasks through a handler at concurrency 4; the claims' sizes. */
async function drain(count: number, onEvent: () => unknown) {
  const { inbox, claims } = scriptedInbox(
    Array.from({ length: count }, (_, index) => body(`task-${index}`)),
    60_000,
  );
  const handler = createWebhookHandler({ inbox, concurrency: 4, inboxPollMs: 5, logLevel: 'off', onEvent });
  await handler.idle();
  await handler.close();
  expect(handler.stats.processed).toBe(count);
  return claims;
}

it('claims more events than it has free slots, so the next ones wait claimed instead of a claim round trip', async () => {
  const claims = await drain(40, () => {});
  // The first claim takes twice the concurrency.
  expect(claims[0]).toBe(8);
});

it('claims `concurrency` events at a time while every slot is busy, not one per freed slot', async () => {
  // Each event holds its slot a while, so slots free one at a time.
  const claims = await drain(80, () => new Promise((resolve) => setTimeout(resolve, 5)));
  const nonEmpty = claims.filter((count) => count > 0);
  // 8 first, then 4 at a time: 19 claims for 80 events (a claim per freed slot takes about 73).
  expect(nonEmpty.length).toBeLessThanOrEqual(24);
});

it('gives back an event claimed ahead whose claim has less than eventTimeoutMs left when a slot frees', async () => {
  const { inbox, released, entries } = scriptedInbox([body('task-slow'), body('task-next')], 400);
  const started: { taskId: string; age: number }[] = [];
  const handler = createWebhookHandler({
    inbox,
    concurrency: 1,
    eventTimeoutMs: 250,
    inboxPollMs: 5,
    logLevel: 'off',
    onEvent: async (event) => {
      const entry = entries.find((candidate) => candidate.body.includes(event.taskId));
      started.push({ taskId: event.taskId, age: Date.now() - (entry?.claimedAt ?? 0) });
      if (event.taskId === 'task-slow') await new Promise((resolve) => setTimeout(resolve, 200));
    },
  });
  await handler.idle();
  await handler.close();
  expect(handler.stats.processed).toBe(2);
  // task-next was claimed with task-slow, waited 200 ms, then had under 250 ms of its 400 ms claim left.
  expect(released).toEqual(['e1']);
  for (const { age } of started) expect(age).toBeLessThan(400 - 250);
  expect(started.map((start) => start.taskId)).toEqual(['task-slow', 'task-next']);
});

it('gives back, its lease released, an event whose lease was taken ahead but whose claim ran short while it waited for a place', async () => {
  const { inbox, released, entries } = scriptedInbox([body('task-slow'), body('task-next')], 400);
  const store = memoryStore();
  const leaseOfNext: (string | undefined)[] = [];
  const leaseTakes: string[] = [];
  const setIfAbsent = store.setIfAbsent.bind(store);
  store.setIfAbsent = async (key, value, ttlMs) => {
    if (key.includes(':lease:')) leaseTakes.push(key.slice(key.lastIndexOf(':') + 1));
    return setIfAbsent(key, value, ttlMs);
  };
  const release = inbox.release?.bind(inbox);
  inbox.release = async (id) => {
    // What the next worker to claim it would find.
    leaseOfNext.push(await store.get('v2:default/:default:webhook:lease:{task-next}'));
    await release?.(id);
  };
  const started: string[] = [];
  const ages: number[] = [];
  const handler = createWebhookHandler({
    inbox,
    store,
    concurrency: 1,
    eventTimeoutMs: 250,
    inboxPollMs: 5,
    logLevel: 'off',
    onEvent: async (event) => {
      const entry = entries.find((candidate) => candidate.body.includes(event.taskId));
      ages.push(Date.now() - (entry?.claimedAt ?? 0));
      started.push(event.taskId);
      if (event.taskId === 'task-slow') await new Promise((resolve) => setTimeout(resolve, 200));
    },
  });
  await handler.idle();
  await handler.close();
  // task-next's lease was taken while task-slow ran, and taken again after it came back.
  expect(leaseTakes).toEqual(['{task-slow}', '{task-next}', '{task-next}']);
  expect(released).toEqual(['e1']);
  expect(leaseOfNext).toEqual([undefined]);
  expect(started).toEqual(['task-slow', 'task-next']);
  for (const age of ages) expect(age).toBeLessThan(400 - 250);
  expect(handler.stats.processed).toBe(2);
});

/**
 * Runs 30 events through a handler at concurrency 2 (`eventTimeoutMs` 600) whose marks hang until released
 * every 10 ms after the first 300 ms, this process frozen for `stallMs` 150 ms in when given; the peak of
 * events claimed and not marked (a claim counted until its mark or its release), those processed at 300 ms,
 * and how many were given back.
 */
async function peakClaimedUnmarked(options: {
  onEvent: () => unknown;
  visibilityTimeoutMs: number;
  stallMs?: number;
}) {
  const concurrency = 2;
  const { inbox, entries, released } = scriptedInbox(
    Array.from({ length: 30 }, (_, index) => body(`task-${index}`)),
    options.visibilityTimeoutMs,
  );
  const marking: (() => void)[] = [];
  let claimedUnmarked = 0;
  let peak = 0;
  const claim = inbox.claim.bind(inbox);
  inbox.claim = async (consumer, max) => {
    const claimed = await claim(consumer, max);
    claimedUnmarked += claimed.length;
    peak = Math.max(peak, claimedUnmarked);
    return claimed;
  };
  // An event given back (its claim too old once its turn came, as after a stall of this process) is no
  // longer claimed here: claimed again, it counts again.
  const release = inbox.release?.bind(inbox);
  inbox.release = async (id) => {
    claimedUnmarked--;
    await release?.(id);
  };
  // Marks hang until the test lets them go.
  inbox.complete = (id) =>
    new Promise<void>((resolve) =>
      marking.push(() => {
        const entry = entries.find((candidate) => candidate.id === id);
        if (entry) entry.done = true;
        claimedUnmarked--;
        resolve();
      }),
    );
  const handler = createWebhookHandler({
    inbox,
    concurrency,
    inboxPollMs: 5,
    logLevel: 'off',
    eventTimeoutMs: 600,
    onEvent: options.onEvent,
  });
  if (options.stallMs !== undefined) {
    // This process frozen for `stallMs` (a busy loop), 150 ms in.
    setTimeout(() => {
      const end = Date.now() + (options.stallMs ?? 0);
      while (Date.now() < end) {}
    }, 150);
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  const processedEarly = handler.stats.processed;
  while (entries.some((entry) => !entry.done)) {
    for (const release of marking.splice(0)) release();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await handler.close();
  expect(handler.stats.processed).toBe(30);
  return { peak, processedEarly, concurrency, released: released.length };
}

it('claims 7 × concurrency ahead while events are quick: at most 9 × concurrency claimed and not marked', async () => {
  // Quick events: under (12 000 − 600) / 16 = 712 ms each.
  const { peak, processedEarly, concurrency } = await peakClaimedUnmarked({
    onEvent: () => {},
    visibilityTimeoutMs: 12_000,
  });
  expect(peak).toBe(9 * concurrency);
  expect(processedEarly).toBe(9 * concurrency);
});

it('keeps `concurrency` ahead while events are slow: at most 3 × concurrency claimed and not marked', async () => {
  // 100 ms an event, over the (1 200 − 600) / 16 = 37 ms under which claims go deeper.
  const slow = () => new Promise((resolve) => setTimeout(resolve, 100));
  const { peak, concurrency } = await peakClaimedUnmarked({ onEvent: slow, visibilityTimeoutMs: 1_200 });
  expect(peak).toBe(3 * concurrency);
});

it('stays within 3 × concurrency claimed and not marked through a stall that makes it give events back', async () => {
  // Frozen 800 ms: the events waiting for a place then have less than eventTimeoutMs (600) of their claim
  // (1 200) left, are given back and claimed again.
  const slow = () => new Promise((resolve) => setTimeout(resolve, 100));
  const { peak, concurrency, released } = await peakClaimedUnmarked({
    onEvent: slow,
    visibilityTimeoutMs: 1_200,
    stallMs: 800,
  });
  expect(released).toBeGreaterThan(0);
  expect(peak).toBe(3 * concurrency);
});
