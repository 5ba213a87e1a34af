import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DeliveryClient } from '../../src/client.js';
import { ConfigurationError, DeliveryError, NotFoundError } from '../../src/core/errors.js';
import { type DeliveryStore, type Logger, memoryStore } from '../../src/index.js';
import type { Task } from '../../src/schemas/task.js';
import { NOT_FOUND_MEMORY_MS } from '../../src/webhooks/confirmation.js';
import {
  createWebhookHandler,
  type WebhookEvent,
  type WebhookHandler,
  type WebhookHandlerOptions,
} from '../../src/webhooks/index.js';
import { gate, webhookBody } from './fixtures.js';

const URL_ = 'https://shop.example.test/webhooks/delivery';

function webhookRequest(body: unknown, init: RequestInit = {}): Request {
  return new Request(URL_, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });
}

/** A handler whose events are collected, with a logger that records every line. */
function collecting(options: Partial<WebhookHandlerOptions> = {}) {
  const events: WebhookEvent[] = [];
  const lines: string[] = [];
  const record =
    (level: string) =>
    (message: string, fields?: Record<string, unknown>): void => {
      lines.push(`${level} ${message} ${fields === undefined ? '' : JSON.stringify(fields)}`);
    };
  const logger: Logger = {
    debug: record('debug'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
  };
  const handler = createWebhookHandler({
    onEvent: (event) => {
      events.push(event);
    },
    logger,
    logLevel: 'debug',
    ...options,
  });
  return { handler, events, lines };
}

async function send(handler: WebhookHandler, body: unknown, init?: RequestInit): Promise<Response> {
  return handler.fetch(webhookRequest(body, init));
}

describe('createWebhookHandler: answering', () => {
  it('answers 200 {"received":true} and calls onEvent with the parsed event after answering', async () => {
    const order: string[] = [];
    const handler = createWebhookHandler({
      onEvent: (event) => {
        order.push(`onEvent ${event.taskId} ${event.kind}`);
      },
    });
    const response = await send(handler, webhookBody('t1', 'accepted'));
    order.push('answered');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ received: true });
    await handler.idle();
    expect(order).toEqual(['answered', 'onEvent t1 accepted']);
    expect(handler.stats).toEqual({
      received: 1,
      processed: 1,
      duplicates: 0,
      outOfOrder: 0,
      rejected: 0,
      failed: 0,
      stored: 0,
      claimed: 0,
      leaseLapsed: 0,
      resets: 0,
    });
  });

  it('answers while onEvent is still running', async () => {
    const release = gate();
    let finished = false;
    const handler = createWebhookHandler({
      onEvent: async () => {
        await release.promise;
        finished = true;
      },
    });
    const response = await send(handler, webhookBody('t1', 'accepted'));
    expect(response.status).toBe(200);
    expect(finished).toBe(false);
    release.open();
    await handler.idle();
    expect(finished).toBe(true);
  });

  it('gives waitUntil a promise that settles once the event has been processed', async () => {
    const release = gate();
    const kept: Promise<unknown>[] = [];
    let processed = false;
    const handler = createWebhookHandler({
      onEvent: async () => {
        await release.promise;
        processed = true;
      },
    });
    const context = {
      waitUntil(promise: Promise<unknown>) {
        // Called as a method, like Cloudflare's ctx.waitUntil requires.
        expect(this).toBe(context);
        kept.push(promise);
      },
    };
    const response = await handler.fetch(webhookRequest(webhookBody('t1', 'accepted')), context);
    expect(response.status).toBe(200);
    expect(kept).toHaveLength(1);
    release.open();
    await kept[0];
    expect(processed).toBe(true);
  });

  it('accepts a webhook without a Content-Type header and with a +json or charset media type', async () => {
    const { handler, events } = collecting();
    const body = JSON.stringify(webhookBody('t1', 'accepted'));
    const bare = new Request(URL_, { method: 'POST', body: new TextEncoder().encode(body) });
    expect(bare.headers.get('content-type')).toBeNull();
    expect((await handler.fetch(bare)).status).toBe(200);
    const vendor = await send(handler, webhookBody('t2', 'accepted'), {
      headers: { 'content-type': 'application/vnd.delivery+json' },
    });
    const charset = await send(handler, webhookBody('t3', 'accepted'), {
      headers: { 'content-type': 'Application/JSON; charset=utf-8' },
    });
    expect([vendor.status, charset.status]).toEqual([200, 200]);
    await handler.idle();
    expect(events.map((event) => event.taskId)).toEqual(['t1', 't2', 't3']);
  });
});

describe('createWebhookHandler: rejections', () => {
  it('answers 405 with Allow: POST to another method', async () => {
    const { handler, events } = collecting();
    for (const method of ['GET', 'PUT', 'DELETE', 'HEAD']) {
      const response = await handler.fetch(new Request(URL_, { method }));
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
    expect(handler.stats.rejected).toBe(4);
    expect(events).toEqual([]);
  });

  it('answers 415 to a content type that is not JSON', async () => {
    const { handler } = collecting();
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
      'application/jsonx',
    ]) {
      const response = await send(handler, webhookBody('t1', 'accepted'), {
        headers: { 'content-type': type },
      });
      expect(response.status).toBe(415);
    }
  });

  it('answers 400 to a body that is not JSON, without quoting it', async () => {
    const { handler, events, lines } = collecting();
    const response = await send(handler, '{"sellerId":"seller-in-body", "_id": "t1", status');
    expect(response.status).toBe(400);
    const answer = await response.text();
    expect(answer).toContain('Body is not JSON');
    expect(answer).not.toContain('seller-in-body');
    expect(lines.join('\n')).not.toContain('seller-in-body');
    expect(lines.some((line) => line.startsWith('warn') && line.includes('400'))).toBe(true);
    expect(events).toEqual([]);
  });

  it('answers 400 to an empty body', async () => {
    const { handler } = collecting();
    expect((await handler.fetch(new Request(URL_, { method: 'POST' }))).status).toBe(400);
  });

  it.each([
    ['no status', { status: undefined }, 'status'],
    ['a status that is an object', { status: {} }, 'status'],
    ['a JSON array', null, ''],
  ])('answers 400 to a body that is not a webhook: %s', async (_title, overrides, field) => {
    const { handler, events } = collecting();
    const body =
      overrides === null ? [webhookBody('t1', 'accepted')] : webhookBody('t1', 'accepted', overrides);
    const response = await send(handler, body);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toContain(field);
    await handler.idle();
    expect(events).toEqual([]);
  });

  it('with validation: strict, answers 400 to a documented field of the wrong type (tolerant reading takes it)', async () => {
    const strict = collecting({ validation: 'strict' });
    const strictResponse = await send(strict.handler, webhookBody('t1', 'accepted', { statusHistory: {} }));
    expect(strictResponse.status).toBe(400);
    expect(((await strictResponse.json()) as { error: string }).error).toContain('statusHistory');
    const tolerant = collecting();
    expect((await send(tolerant.handler, webhookBody('t1', 'accepted', { statusHistory: {} }))).status).toBe(
      200,
    );
    await tolerant.handler.idle();
    expect(tolerant.events.map((event) => event.payload.statusHistory)).toEqual([undefined]);
  });

  it.each([
    ['empty', ''],
    ['not a string or a number', { value: 123 }],
    ['longer than 128 characters', 'x'.repeat(129)],
    ['holding a control character', 'abc\u0000def'],
  ])('answers 400 to a task id %s', async (_title, id) => {
    const { handler, events } = collecting();
    const response = await send(handler, webhookBody('t', 'accepted', { _id: id }));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toContain('_id');
    await handler.idle();
    expect(events).toEqual([]);
  });

  it('answers 413 when Content-Length exceeds maxBodyBytes, before reading the body', async () => {
    const { handler } = collecting({ maxBodyBytes: 1000 });
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(500));
      },
    });
    const request = new Request(URL_, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '5000' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    const response = await handler.fetch(request);
    expect(response.status).toBe(413);
    expect(pulled).toBeLessThanOrEqual(1); // the stream's own first pull at most; nothing read by the handler
  });

  it('answers 413 and stops reading once a body without Content-Length exceeds maxBodyBytes', async () => {
    const { handler } = collecting({ maxBodyBytes: 1000 });
    let pulled = 0;
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(300));
      },
      cancel() {
        cancelled = true;
      },
    });
    const request = new Request(URL_, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: endless,
      duplex: 'half',
    } as RequestInit);
    const response = await handler.fetch(request);
    expect(response.status).toBe(413);
    expect(cancelled).toBe(true);
    expect(pulled).toBeLessThan(10);
  });

  it('accepts a body of exactly maxBodyBytes', async () => {
    const base = JSON.stringify(webhookBody('t1', 'accepted'));
    const { handler } = collecting({ maxBodyBytes: base.length + 10 });
    const padded = `${base.slice(0, -1)},"pad":"${'p'.repeat(10 - ',"pad":""'.length)}"}`;
    expect(new TextEncoder().encode(padded).byteLength).toBe(base.length + 10);
    expect((await send(handler, padded)).status).toBe(200);
    expect((await send(handler, `${padded} `)).status).toBe(413);
  });

  it('answers 503 when the queue is full, and 200 again once it drains', async () => {
    const release = gate();
    const started = gate();
    const warnings: string[] = [];
    const handler = createWebhookHandler({
      logger: { debug() {}, info() {}, warn: (message: string) => void warnings.push(message), error() {} },
      concurrency: 1,
      maxQueue: 1,
      onEvent: async () => {
        started.open();
        await release.promise;
      },
    });
    expect((await send(handler, webhookBody('t1', 'accepted'))).status).toBe(200);
    await started.promise; // t1 is running, the queue is empty
    expect((await send(handler, webhookBody('t2', 'accepted'))).status).toBe(200);
    const full = await send(handler, webhookBody('t3', 'accepted'));
    expect(full.status).toBe(503);
    expect(warnings).toEqual(['[delivery-task-sdk] Webhook rejected with 503']);
    release.open();
    await handler.idle();
    expect((await send(handler, webhookBody('t3', 'accepted'))).status).toBe(200);
    await handler.idle();
    expect(handler.stats).toMatchObject({ received: 4, processed: 3, rejected: 1 });
  });

  it('answers 500 and calls onError when the request itself breaks, without throwing', async () => {
    const onError = vi.fn();
    const handler = createWebhookHandler({ onEvent: () => {}, onError });
    const broken = {
      get method(): string {
        throw new Error('broken request object');
      },
    } as unknown as Request;
    const response = await handler.fetch(broken);
    expect(response.status).toBe(500);
    expect(onError).toHaveBeenCalledWith(
      expect.objectContaining({ message: 'broken request object' }),
      undefined,
    );
    expect(handler.stats.rejected).toBe(1);
  });
});

describe('createWebhookHandler: duplicates and ordering', () => {
  it('drops a duplicate of (task id, status) but still answers 200', async () => {
    const { handler, events } = collecting();
    const first = await send(handler, webhookBody('t1', 'accepted'));
    const again = await send(handler, webhookBody('t1', 'accepted'));
    const otherTask = await send(handler, webhookBody('t2', 'accepted'));
    expect([first.status, again.status, otherTask.status]).toEqual([200, 200, 200]);
    expect(await again.json()).toEqual({ received: true });
    await handler.idle();
    expect(events.map((event) => `${event.taskId}:${event.kind}`)).toEqual(['t1:accepted', 't2:accepted']);
    expect(handler.stats).toMatchObject({ duplicates: 1, processed: 2 });
  });

  it('drops a duplicate that arrives while the first is still being processed', async () => {
    const release = gate();
    const seen: string[] = [];
    const handler = createWebhookHandler({
      onEvent: async (event) => {
        seen.push(event.kind);
        await release.promise;
      },
    });
    await Promise.all([1, 2, 3].map(() => send(handler, webhookBody('t1', 'pickedup'))));
    release.open();
    await handler.idle();
    expect(seen).toEqual(['pickedup']);
    expect(handler.stats.duplicates).toBe(2);
  });

  it('processes the same (task id, status) again once the window has passed', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date('2026-11-21T09:00:00Z'));
      const { handler, events } = collecting({ dedupe: { windowMs: 60_000 } });
      await send(handler, webhookBody('t1', 'accepted'));
      await handler.idle();
      vi.setSystemTime(new Date('2026-11-21T09:00:59Z'));
      await send(handler, webhookBody('t1', 'accepted'));
      await handler.idle();
      vi.setSystemTime(new Date('2026-11-21T09:01:01Z'));
      await send(handler, webhookBody('t1', 'accepted'));
      await handler.idle();
      expect(events).toHaveLength(2);
      expect(handler.stats.duplicates).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('drops a status older than one already processed for the task, still answering 200', async () => {
    const { handler, events } = collecting();
    await send(handler, webhookBody('t1', 'enroute'));
    await handler.idle();
    const late = await send(handler, webhookBody('t1', 'accepted'));
    const lateToo = await send(handler, webhookBody('t1', 'pickup_location_reached'));
    expect([late.status, lateToo.status]).toEqual([200, 200]);
    await handler.idle();
    expect(events.map((event) => event.kind)).toEqual(['enroute']);
    expect(handler.stats.outOfOrder).toBe(2);
  });

  it('orders events of one task that arrive together by arrival, dropping those that arrive after a later one', async () => {
    const { handler, events } = collecting();
    for (const kind of ['accepted', 'pickedup', 'inprogress', 'enroute']) {
      await send(handler, webhookBody('t1', kind));
    }
    await handler.idle();
    expect(events.map((event) => event.kind)).toEqual(['accepted', 'pickedup', 'enroute']);
    expect(handler.stats.outOfOrder).toBe(1);
  });

  it.each(['delivered', 'cancelled'])(
    'processes nothing for a task after the final %s but another final status, which a body alone cannot rule out',
    async (final) => {
      const { handler, events } = collecting();
      const other = final === 'delivered' ? 'cancelled' : 'delivered';
      await send(handler, webhookBody('t1', 'accepted'));
      await send(handler, webhookBody('t1', final));
      await send(handler, webhookBody('t1', 'enroute'));
      await send(handler, webhookBody('t1', other));
      await send(handler, webhookBody('t1', 'driver_rated'));
      await handler.idle();
      expect(events.map((event) => event.kind)).toEqual(['accepted', final, other]);
      expect(handler.stats.outOfOrder).toBe(2);
    },
  );

  it('never considers an unknown kind older', async () => {
    const { handler, events } = collecting();
    await send(handler, webhookBody('t1', 'enroute'));
    await send(handler, webhookBody('t1', 'driver_reassigned'));
    await send(handler, webhookBody('t1', 'delivered'));
    await handler.idle();
    expect(events.map((event) => event.kind)).toEqual(['enroute', 'driver_reassigned', 'delivered']);
  });

  it('passes every valid webhook through with dedupe: false', async () => {
    const { handler, events } = collecting({ dedupe: false });
    await send(handler, webhookBody('t1', 'enroute'));
    await send(handler, webhookBody('t1', 'enroute'));
    await send(handler, webhookBody('t1', 'accepted'));
    await handler.idle();
    expect(events.map((event) => event.kind)).toEqual(['enroute', 'enroute', 'accepted']);
  });
});

describe('createWebhookHandler: processing', () => {
  it('runs at most `concurrency` onEvent calls at once, and the events of one task one at a time', async () => {
    const release = gate();
    let running = 0;
    let peak = 0;
    const perTask = new Map<string, number>();
    let perTaskPeak = 0;
    const handler = createWebhookHandler({
      concurrency: 3,
      onEvent: async (event) => {
        running++;
        peak = Math.max(peak, running);
        perTask.set(event.taskId, (perTask.get(event.taskId) ?? 0) + 1);
        perTaskPeak = Math.max(perTaskPeak, perTask.get(event.taskId) ?? 0);
        await release.promise;
        perTask.set(event.taskId, (perTask.get(event.taskId) ?? 0) - 1);
        running--;
      },
    });
    const kinds = ['accepted', 'inprogress', 'pickedup'];
    await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        send(handler, webhookBody(`task-${index % 4}`, kinds[Math.floor(index / 4)] ?? 'accepted')),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(running).toBe(3);
    release.open();
    await handler.idle();
    expect(peak).toBe(3);
    expect(perTaskPeak).toBe(1);
    expect(handler.stats.processed).toBe(12);
  });

  it("frees an event's slot once onEvent returned, while its status is recorded: another task goes ahead, its own next event waits", async () => {
    const records = gate();
    const store = memoryStore();
    let recording = 0;
    const heldStore: DeliveryStore = {
      ...store,
      compareAndSet: async (key, expected, value, ttlMs) => {
        // The status records (`…:webhook:task:{id}`) wait; the lease's renewals go through.
        if (key.includes(':task:')) {
          recording++;
          await records.promise;
        }
        return store.compareAndSet(key, expected, value, ttlMs);
      },
    };
    const started: string[] = [];
    const handler = createWebhookHandler({
      concurrency: 1,
      store: heldStore,
      onEvent: (event) => void started.push(`${event.taskId} ${event.kind}`),
    });
    await send(handler, webhookBody('t1', 'accepted'));
    await send(handler, webhookBody('t1', 'pickedup'));
    for (const taskId of ['t2', 't3', 't4', 't5']) await send(handler, webhookBody(taskId, 'accepted'));
    await vi.waitFor(() => expect(recording).toBe(4), { timeout: 10_000 });
    // A while longer, in which t1's next event or a fifth task would start if the bounds did not hold: at
    // most 4 × concurrency events started and not ended.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(started).toEqual(['t1 accepted', 't2 accepted', 't3 accepted', 't4 accepted']);
    records.open();
    await handler.idle();
    expect(started.slice(4).sort()).toEqual(['t1 pickedup', 't5 accepted']);
    expect(handler.stats.processed).toBe(6);
  });

  it("takes the next tasks' leases while onEvent holds every slot, and runs their onEvent one slot at a time", async () => {
    const store = memoryStore();
    const leases: string[] = [];
    const countingStore: DeliveryStore = {
      ...store,
      setIfAbsent: async (key, value, ttlMs) => {
        if (key.includes(':lease:')) leases.push(key.slice(key.lastIndexOf(':') + 1));
        return store.setIfAbsent(key, value, ttlMs);
      },
    };
    const first = gate();
    const running: string[] = [];
    let inOnEvent = 0;
    let peak = 0;
    const handler = createWebhookHandler({
      concurrency: 1,
      store: countingStore,
      onEvent: async (event) => {
        running.push(event.taskId);
        peak = Math.max(peak, ++inOnEvent);
        if (event.taskId === 't1') await first.promise;
        inOnEvent--;
      },
    });
    for (const taskId of ['t1', 't2', 't3']) await send(handler, webhookBody(taskId, 'accepted'));
    // t2's and t3's leases are taken while t1's onEvent holds the only slot.
    await vi.waitFor(() => expect(leases).toEqual(['{t1}', '{t2}', '{t3}']), { timeout: 10_000 });
    expect(running).toEqual(['t1']);
    first.open();
    await handler.idle();
    expect(running).toEqual(['t1', 't2', 't3']);
    expect(peak).toBe(1);
    expect(handler.stats.processed).toBe(3);
  });

  it('sends a failing onEvent to onError with the event, never to the sender', async () => {
    const onError = vi.fn();
    const handler = createWebhookHandler({
      onEvent: async () => {
        throw new Error('database down');
      },
      onError,
    });
    const response = await send(handler, webhookBody('t1', 'delivered'));
    expect(response.status).toBe(200);
    await handler.idle();
    expect(onError).toHaveBeenCalledTimes(1);
    const [error, event] = onError.mock.calls[0] as [Error, WebhookEvent];
    expect(error.message).toBe('database down');
    expect(event).toMatchObject({ taskId: 't1', kind: 'delivered' });
    expect(handler.stats).toMatchObject({ processed: 0, failed: 1 });
  });

  it('logs a failing onEvent with the task id and kind by default, without the body', async () => {
    const { handler, lines } = collecting({
      onEvent: () => {
        throw new Error('handler bug');
      },
    });
    await send(handler, webhookBody('t1', 'delivered'));
    await handler.idle();
    const errors = lines.filter((line) => line.startsWith('error'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('t1');
    expect(errors[0]).toContain('delivered');
    expect(errors[0]).toContain('handler bug');
    expect(lines.join('\n')).not.toContain('seller-webhook-test');
    expect(lines.join('\n')).not.toContain('+96550000001');
  });

  it('survives an onError that throws itself, and keeps processing', async () => {
    const { handler, events, lines } = collecting({
      onEvent: (event) => {
        if (event.taskId === 't1') throw new Error('first fails');
        events.push(event);
      },
      onError: () => {
        throw new Error('onError broken');
      },
    });
    await send(handler, webhookBody('t1', 'accepted'));
    await send(handler, webhookBody('t2', 'accepted'));
    await handler.idle();
    expect(events.map((event) => event.taskId)).toEqual(['t2']);
    expect(lines.some((line) => line.includes('onError failed'))).toBe(true);
  });

  it('resolves idle at once when nothing was received', async () => {
    const { handler } = collecting();
    await expect(handler.idle()).resolves.toBeUndefined();
  });

  it('exposes fetch, node and idle as bound functions', async () => {
    const { handler, events } = collecting();
    const { fetch: receive, idle } = handler;
    expect((await receive(webhookRequest(webhookBody('t1', 'accepted')))).status).toBe(200);
    await idle();
    expect(events).toHaveLength(1);
  });
});

describe('createWebhookHandler: options', () => {
  it.each([
    ['no onEvent', { onEvent: undefined }, 'onEvent'],
    ['confirm without a client', { confirm: true }, 'client'],
    ['confirm as a string', { confirm: 'delivered' }, 'confirm'],
    ['a concurrency of 0', { concurrency: 0 }, 'concurrency'],
    ['a fractional maxBodyBytes', { maxBodyBytes: 1.5 }, 'maxBodyBytes'],
    ['a bodyTimeoutMs of 0', { bodyTimeoutMs: 0 }, 'bodyTimeoutMs'],
    ['an eventTimeoutMs of 0', { eventTimeoutMs: 0 }, 'eventTimeoutMs'],
    ['a maxQueueBytes below maxBodyBytes', { maxBodyBytes: 2048, maxQueueBytes: 2047 }, 'maxQueueBytes'],
    ['a maxQueue of 0', { maxQueue: 0 }, 'maxQueue'],
    ['a dedupe window of 0', { dedupe: { windowMs: 0 } }, 'dedupe.windowMs'],
    ['an unknown logLevel', { logLevel: 'loud' }, 'logLevel'],
  ])('throws a ConfigurationError for %s', (_title, options, option) => {
    const create = () =>
      createWebhookHandler({ onEvent: () => {}, ...options } as unknown as WebhookHandlerOptions);
    expect(create).toThrow(ConfigurationError);
    try {
      create();
    } catch (error) {
      expect((error as ConfigurationError).option).toBe(option);
    }
  });
});

describe('createWebhookHandler: confirmation by GET tasks/{id}', () => {
  const API_KEY = 'key-confirm-secret-123';
  const SELLER_ID = 'seller-confirm-secret-456';
  const BASE_URL = 'https://delivery.example.test/rest';
  const tasks = new Map<string, Task>();
  const gets: string[] = [];
  const server = setupServer(
    http.get(`${BASE_URL}/tasks/:id`, ({ params, request }) => {
      const id = String(params.id);
      gets.push(id);
      if (request.headers.get('authorization') !== `apikey ${API_KEY}`)
        return HttpResponse.json({}, { status: 401 });
      if (id === 'broken') {
        return HttpResponse.json(
          { message: `upstream failed for ${API_KEY} / ${SELLER_ID}` },
          { status: 500 },
        );
      }
      const task = tasks.get(id);
      return task === undefined
        ? HttpResponse.json({ message: 'Task not found' }, { status: 404 })
        : HttpResponse.json(task);
    }),
  );
  let client: DeliveryClient;
  beforeAll(() => {
    server.listen({ onUnhandledFrame: 'error' });
    // After listen: the client keeps the fetch it finds at construction, and msw replaces the global one.
    client = new DeliveryClient({
      apiKey: API_KEY,
      sellerId: SELLER_ID,
      baseUrl: BASE_URL,
      maxRetries: 0,
      logLevel: 'off',
    });
  });
  afterEach(() => {
    tasks.clear();
    gets.length = 0;
  });
  afterAll(() => server.close());

  it('passes the task read back, and its status, when the GET disagrees with a forged body', async () => {
    tasks.set('t1', { id: 't1', status: 'enroute', orderNumber: 'ORD-t1' });
    const { handler, events } = collecting({ client, confirm: ['delivered', 'cancelled'] });
    const response = await send(handler, webhookBody('t1', 'delivered'));
    expect(response.status).toBe(200);
    await handler.idle();
    expect(gets).toEqual(['t1']);
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event).toMatchObject({ kind: 'delivered', taskId: 't1', status: 'enroute', confirmed: true });
    expect(event?.task).toEqual({ id: 't1', status: 'enroute', orderNumber: 'ORD-t1' });
    expect(event?.payload.status).toBe('delivered');
  });

  it('processes the genuine event after a forged one was overruled by the GET', async () => {
    tasks.set('t1', { id: 't1', status: 'enroute' });
    const { handler, events } = collecting({ client, confirm: true });
    await send(handler, webhookBody('t1', 'delivered'));
    await handler.idle();
    tasks.set('t1', { id: 't1', status: 'delivered' });
    await send(handler, webhookBody('t1', 'delivered'));
    await handler.idle();
    expect(events.map((event) => [event.kind, event.status, event.confirmed])).toEqual([
      ['delivered', 'enroute', true],
      ['delivered', 'delivered', true],
    ]);
    // A late genuine enroute webhook repeats what onEvent already saw.
    await send(handler, webhookBody('t1', 'enroute'));
    await handler.idle();
    expect(events).toHaveLength(2);
  });

  it('drops a later webhook for a status that a confirmation already passed on', async () => {
    tasks.set('t1', { id: 't1', status: 'inprogress' });
    const { handler, events } = collecting({ client, confirm: true });
    await send(handler, webhookBody('t1', 'accepted'));
    await handler.idle();
    await send(handler, webhookBody('t1', 'inprogress'));
    await handler.idle();
    expect(events.map((event) => [event.kind, event.status])).toEqual([['accepted', 'inprogress']]);
    expect(handler.stats.duplicates).toBe(1);
  });

  it('confirms only the kinds listed', async () => {
    tasks.set('t1', { id: 't1', status: 'delivered' });
    const { handler, events } = collecting({ client, confirm: ['delivered'] });
    await send(handler, webhookBody('t1', 'enroute'));
    await send(handler, webhookBody('t1', 'delivered'));
    await handler.idle();
    expect(gets).toEqual(['t1']);
    expect(events.map((event) => [event.kind, event.confirmed])).toEqual([
      ['enroute', false],
      ['delivered', true],
    ]);
  });

  it('confirms the final statuses whenever a client is given: with confirm omitted, and beyond a shorter list', async () => {
    tasks.set('t1', { id: 't1', status: 'enroute' });
    // Every forged final status reads back `enroute`: without dedupe, each reaches onEvent (with it, the
    // reads after the first are duplicates of that `enroute`).
    const omitted = collecting({ client, dedupe: false });
    const listed = collecting({ client, confirm: ['delivered'], dedupe: false });
    for (const { handler } of [omitted, listed]) {
      for (const kind of ['pickedup', 'failed', 'rejected', 'cancelled'])
        await send(handler, webhookBody('t1', kind));
      await handler.idle();
    }
    expect(omitted.events.map((event) => [event.kind, event.confirmed])).toEqual([
      ['pickedup', false],
      ['failed', true],
      ['rejected', true],
      ['cancelled', true],
    ]);
    expect(listed.events.map((event) => [event.kind, event.confirmed])).toEqual(
      omitted.events.map((event) => [event.kind, event.confirmed]),
    );
    // One GET per handler at least; events waiting on a GET of their task share it (confirmation.ts).
    expect(gets.length).toBeGreaterThanOrEqual(2);
    expect(gets.length).toBeLessThanOrEqual(6);
    expect(new Set(gets)).toEqual(new Set(['t1']));
  });

  it('confirms nothing with confirm: false, even with a client', async () => {
    const { handler, events } = collecting({ client, confirm: false });
    await send(handler, webhookBody('t1', 'delivered'));
    await handler.idle();
    expect(gets).toEqual([]);
    expect(events.map((event) => [event.kind, event.confirmed])).toEqual([['delivered', false]]);
  });

  it('never lets an unconfirmed event move the order when events are confirmed, so a forged later status hides no earlier one', async () => {
    tasks.set('t1', { id: 't1', status: 'pickedup' });
    const { handler, events } = collecting({ client, confirm: ['delivered', 'cancelled'] });
    await send(handler, webhookBody('t1', 'enroute')); // forged: the task is at pickedup
    await send(handler, webhookBody('t1', 'pickedup')); // genuine, and later than nothing confirmed
    await handler.idle();
    expect(events.map((event) => event.kind)).toEqual(['enroute', 'pickedup']);
    tasks.set('t1', { id: 't1', status: 'delivered' });
    await send(handler, webhookBody('t1', 'delivered'));
    await send(handler, webhookBody('t1', 'accepted'));
    await handler.idle();
    // The confirmed delivered ends the task: a late body is dropped.
    expect(events.map((event) => [event.kind, event.confirmed])).toEqual([
      ['enroute', false],
      ['pickedup', false],
      ['delivered', true],
    ]);
    expect(handler.stats.outOfOrder).toBe(1);
  });

  it('calls onError and not onEvent when the GET fails, remembers a 404 for 10 s, and processes a resend after', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const onError = vi.fn();
      const { handler, events } = collecting({ client, confirm: true, onError });
      await send(handler, webhookBody('ghost', 'delivered'));
      await handler.idle();
      expect(events).toEqual([]);
      expect(onError).toHaveBeenCalledTimes(1);
      const [error, event] = onError.mock.calls[0] as [unknown, WebhookEvent];
      expect(error).toBeInstanceOf(NotFoundError);
      expect(event).toMatchObject({ taskId: 'ghost', kind: 'delivered', confirmed: false });
      expect(handler.stats.failed).toBe(1);
      tasks.set('ghost', { id: 'ghost', status: 'delivered' });
      // Within NOT_FOUND_MEMORY_MS the 404 stands: no GET.
      vi.setSystemTime(Date.now() + NOT_FOUND_MEMORY_MS - 1);
      await send(handler, webhookBody('ghost', 'delivered'));
      await handler.idle();
      expect(gets).toEqual(['ghost']);
      expect(onError).toHaveBeenCalledTimes(2);
      vi.setSystemTime(Date.now() + 2);
      await send(handler, webhookBody('ghost', 'delivered'));
      await handler.idle();
      expect(gets).toEqual(['ghost', 'ghost']);
      expect(events.map((item) => item.status)).toEqual(['delivered']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('reports a task read back without a status as a failed confirmation', async () => {
    tasks.set('t1', { id: 't1' });
    const onError = vi.fn();
    const { handler, events } = collecting({ client, confirm: true, onError });
    await send(handler, webhookBody('t1', 'delivered'));
    await handler.idle();
    expect(events).toEqual([]);
    expect(onError.mock.calls[0]?.[0]).toBeInstanceOf(DeliveryError);
  });

  it('keeps the API key and seller id out of every log line when the GET fails', async () => {
    const { handler, lines } = collecting({ client, confirm: true });
    await send(handler, webhookBody('broken', 'delivered'));
    await handler.idle();
    const log = lines.join('\n');
    expect(log).toContain('broken');
    expect(log).not.toContain(API_KEY);
    expect(log).not.toContain(SELLER_ID);
  });
});
