/**
 * A shared store that hangs or fails: the webhook is still answered 200 at once (the service waits 5 s
 * and never retries), processing goes on with this process's memory, and the outage is logged once,
 * with no key (keys hold the seller id).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DeliveryClient } from '../../src/client.js';
import { type DeliveryStore, type Logger, memoryStore } from '../../src/index.js';
import { createWebhookHandler, type WebhookHandler } from '../../src/webhooks/index.js';
import { DELIVERY_EVENTS, postWebhook, webhookBody } from './fixtures.js';
import { type Receiver, startReceiver } from './servers.js';

const SELLER_ID = 'seller-secret-7f3a';
/** The service waits this long for an answer (spec § Limits). */
const ANSWER_BUDGET_MS = 5_000;

/** A store whose calls hang (never settle) or reject while `broken` is true, and use `memoryStore()` otherwise. */
function flakyStore(failure: 'hang' | 'reject') {
  const healthy = memoryStore();
  const control = { broken: true, calls: 0, writesWhileHealthy: 0 };
  const wrap =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>, write: boolean) =>
    (...args: A): Promise<R> => {
      control.calls++;
      if (control.broken) {
        return failure === 'hang'
          ? new Promise<R>(() => {})
          : Promise.reject(new Error('connect ECONNREFUSED'));
      }
      if (write) control.writesWhileHealthy++;
      return call(...args);
    };
  const store: DeliveryStore = {
    setIfAbsent: wrap(healthy.setIfAbsent, true),
    get: wrap(healthy.get, false),
    compareAndSet: wrap(healthy.compareAndSet, true),
    delete: wrap(healthy.delete, false),
  };
  return { store, control };
}

function recordingLogger() {
  const lines: { level: string; text: string }[] = [];
  const record =
    (level: string) =>
    (message: string, fields?: Record<string, unknown>): void =>
      void lines.push({ level, text: `${message} ${fields === undefined ? '' : JSON.stringify(fields)}` });
  const logger: Logger = {
    debug: record('debug'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
  };
  return { logger, lines };
}

const client = new DeliveryClient({
  apiKey: 'key-secret-value',
  sellerId: SELLER_ID,
  baseUrl: 'http://127.0.0.1:9',
  logLevel: 'off',
});

/** POSTs every body at once and returns each answer's status and time, ms. */
async function sendAll(url: string, bodies: readonly unknown[]): Promise<{ status: number; ms: number }[]> {
  return Promise.all(
    bodies.map(async (body) => {
      const started = performance.now();
      const response = await postWebhook(url, body);
      await response.arrayBuffer();
      return { status: response.status, ms: performance.now() - started };
    }),
  );
}

describe('a webhook handler whose store is unavailable', () => {
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  it.each(['hang', 'reject'] as const)(
    'answers 200 within the store timeout, processes each event once in process, and warns once when calls %s',
    async (failure) => {
      // Long enough that an answer held by a store call stands out from one slowed by a busy machine.
      const storeTimeoutMs = 3_000;
      const { store } = flakyStore(failure);
      const { logger, lines } = recordingLogger();
      const processed: string[] = [];
      const handler: WebhookHandler = createWebhookHandler({
        store,
        storeTimeoutMs,
        client,
        confirm: false,
        logger,
        logLevel: 'debug',
        onEvent: (event) => void processed.push(`${event.taskId} ${event.status}`),
      });
      receiver = await startReceiver('node:http', handler);
      const bodies = Array.from({ length: 10 }, (_, task) =>
        DELIVERY_EVENTS.slice(0, 5).map((status) => webhookBody(`outage-${task}`, status)),
      ).flat();
      const answers = await sendAll(receiver.url, [...bodies, ...bodies]);
      await handler.idle();

      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
      const slowest = Math.max(...answers.map((answer) => answer.ms));
      expect(slowest).toBeLessThan(storeTimeoutMs);
      expect(slowest).toBeLessThan(ANSWER_BUDGET_MS);
      expect(processed.toSorted()).toEqual(
        bodies.map((body) => `${String(body._id)} ${String(body.status)}`).toSorted(),
      );
      expect(handler.stats).toMatchObject({ processed: 50, duplicates: 50, failed: 0 });
      const warnings = lines.filter((line) => line.level === 'warn');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.text).toMatch(
        /^\[delivery-task-sdk\] Shared store unavailable \((get|setIfAbsent)\): /,
      );
      expect(lines.filter((line) => line.level === 'info' || line.level === 'error')).toEqual([]);
      for (const line of lines) {
        expect(line.text).not.toContain(SELLER_ID);
        expect(line.text).not.toContain('v1:');
      }
    },
  );

  it('logs one info line when the store answers again, uses it again, and warns once more for a second outage', async () => {
    const storeTimeoutMs = 50;
    const { store, control } = flakyStore('hang');
    const { logger, lines } = recordingLogger();
    const processed: string[] = [];
    const handler = createWebhookHandler({
      store,
      storeTimeoutMs,
      logger,
      logLevel: 'info',
      onEvent: (event) => void processed.push(`${event.taskId} ${event.status}`),
    });
    const post = (taskId: string, status: string) =>
      handler.fetch(
        new Request('http://127.0.0.1/webhooks', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(webhookBody(taskId, status)),
        }),
      );
    await Promise.all(['accepted', 'inprogress', 'pickedup'].map((status) => post('first-outage', status)));
    await handler.idle();
    expect(lines.map((line) => line.level)).toEqual(['warn']);

    control.broken = false;
    const recovered = Date.now();
    while (!lines.some((line) => line.level === 'info') && Date.now() - recovered < 2_000) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(lines.map((line) => line.level)).toEqual(['warn', 'info']);
    await post('after-recovery', 'accepted');
    await handler.idle();
    expect(control.writesWhileHealthy).toBeGreaterThan(0);

    control.broken = true;
    await post('second-outage', 'accepted');
    await handler.idle();
    expect(lines.map((line) => line.level)).toEqual(['warn', 'info', 'warn']);
    expect(processed).toEqual([
      'first-outage accepted',
      'first-outage inprogress',
      'first-outage pickedup',
      'after-recovery accepted',
      'second-outage accepted',
    ]);
  });

  it('rejects a store option that is not a DeliveryStore, and a storeTimeoutMs out of range', () => {
    const onEvent = () => {};
    expect(() => createWebhookHandler({ onEvent, store: {} as DeliveryStore })).toThrow(/Invalid store/);
    expect(() => createWebhookHandler({ onEvent, store: memoryStore(), storeTimeoutMs: 0 })).toThrow(
      /storeTimeoutMs/,
    );
    expect(() => createWebhookHandler({ onEvent, dedupe: { storeTtlMs: 1.5 } })).toThrow(
      /dedupe\.storeTtlMs/,
    );
  });
});
