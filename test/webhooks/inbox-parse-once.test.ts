/**
 * An event is parsed once in a process: one this process admitted into its inbox and then claims is
 * carried from admission to `onEvent`; one another process wrote is parsed when claimed. The parses are
 * counted with a spy on `parseWebhookEventAt`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { InboxAppend, InboxEntry, WebhookInbox } from '../../src/webhooks/inbox.js';
import {
  createWebhookHandler,
  type WebhookEvent,
  type WebhookHandlerOptions,
} from '../../src/webhooks/index.js';

const parses = vi.hoisted(() => ({ count: 0 }));

vi.mock('../../src/webhooks/event.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/webhooks/event.js')>();
  return {
    ...original,
    parseWebhookEventAt: (...args: Parameters<typeof original.parseWebhookEventAt>) => {
      parses.count++;
      return original.parseWebhookEventAt(...args);
    },
  };
});

afterEach(() => {
  parses.count = 0;
});

/** An inbox in this process's memory: entries claimed in order, a released one first again. */
function arrayInbox(visibilityTimeoutMs: number) {
  const pending: InboxEntry[] = [];
  const appended: InboxAppend[] = [];
  const done: string[] = [];
  const claimed = new Map<string, InboxEntry>();
  const released: string[] = [];
  let next = 0;
  const inbox: WebhookInbox = {
    visibilityTimeoutMs,
    append: async (entry) => {
      appended.push(entry);
      pending.push({ id: String(++next), body: entry.body, receivedAt: entry.receivedAt, attempts: 1 });
    },
    claim: async (_consumer, max) => {
      const entries = pending.splice(0, max);
      for (const entry of entries) claimed.set(entry.id, entry);
      return entries;
    },
    release: async (id) => {
      const entry = claimed.get(id);
      if (entry !== undefined) pending.unshift({ ...entry, attempts: entry.attempts + 1 });
      released.push(id);
    },
    complete: async (id) => void done.push(id),
    fail: async (id) => void done.push(id),
    inspect: async () => ({ pending: pending.length, failed: 0, events: [] }),
    replay: async () => 0,
  };
  return { inbox, pending, appended, done, released };
}

/**
 * A handler on an {@link arrayInbox} (none with `withInbox: false`), and the events `onEvent` got; `more`
 * adds options.
 */
function receiving(
  withInbox = true,
  more: Partial<WebhookHandlerOptions> = {},
  visibilityTimeoutMs = 60_000,
) {
  const store = arrayInbox(visibilityTimeoutMs);
  const events: WebhookEvent[] = [];
  const handler = createWebhookHandler({
    ...(withInbox ? { inbox: store.inbox } : {}),
    logLevel: 'off',
    onEvent: (event) => void events.push(event),
    ...more,
  });
  const settled = async () => {
    await handler.idle();
    await handler.close();
  };
  return { ...store, handler, events, settled };
}

const webhook = (body: unknown) =>
  new Request('http://receiver.test/webhooks', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const kinds = (events: readonly WebhookEvent[]) => events.map((event) => [event.taskId, event.kind]);

describe('an inbox event is parsed once in a process', () => {
  it('a webhook this process stored and claims is parsed at admission only', async () => {
    const { handler, events, done, settled } = receiving();
    const body = { _id: 'task-1', status: 'assigned', driver: { name: 'Sara' } };
    expect((await handler.fetch(webhook(body))).status).toBe(200);
    await settled();
    expect(kinds(events)).toEqual([['task-1', 'assigned']]);
    expect(done).toEqual(['1']);
    expect(parses.count).toBe(1);
  });

  it.each([
    ['a body as sent', { _id: 'task-2', status: 'delivered', note: null, extra: { nested: [1, 'two'] } }],
    [
      'a drifted body, read tolerantly',
      { _id: 'task-2', status: 'delivered', driver: 'Ahmad', kwAddress: [1] },
    ],
  ])('the event carried for %s is the one parsing the stored entry gives', async (_title, body) => {
    const { handler, events, appended, settled } = receiving();
    await handler.fetch(webhook(body));
    await settled();
    const { parseWebhookEventAt } = await vi.importActual<typeof import('../../src/webhooks/event.js')>(
      '../../src/webhooks/event.js',
    );
    const [entry] = appended;
    expect(events).toEqual([parseWebhookEventAt(entry?.body, new Date(entry?.receivedAt ?? 0))]);
  });

  it('an entry another process wrote is parsed when claimed', async () => {
    const { events, pending, settled } = receiving();
    const body = JSON.stringify({ _id: 'task-3', status: 'assigned' });
    pending.push({ id: 'elsewhere', body, receivedAt: Date.now(), attempts: 1 });
    await settled();
    expect(kinds(events)).toEqual([['task-3', 'assigned']]);
    expect(parses.count).toBe(1);
  });

  it('without an inbox a webhook is parsed once on its way through the queue', async () => {
    const { handler, events, settled } = receiving(false);
    await handler.fetch(webhook({ _id: 'task-4', status: 'assigned' }));
    await settled();
    expect(kinds(events)).toEqual([['task-4', 'assigned']]);
    expect(parses.count).toBe(1);
  });

  it('an event given back unprocessed is kept parsed for its next claim here', async () => {
    // One at a time: the second event's turn comes 500 ms after its claim, with less than eventTimeoutMs
    // left of its 1 000 ms claim, so it is given back and claimed again.
    const onEvent = async (event: WebhookEvent) => {
      events.push(event);
      if (event.taskId === 'task-5') await new Promise((resolve) => setTimeout(resolve, 500));
    };
    const { handler, events, released, settled } = receiving(
      true,
      { concurrency: 1, eventTimeoutMs: 600, onEvent },
      1_000,
    );
    await handler.fetch(webhook({ _id: 'task-5', status: 'assigned' }));
    await handler.fetch(webhook({ _id: 'task-6', status: 'assigned' }));
    await settled();
    expect(released).toContain('2');
    expect(kinds(events)).toEqual([
      ['task-5', 'assigned'],
      ['task-6', 'assigned'],
    ]);
    expect(parses.count).toBe(2);
  });
});
