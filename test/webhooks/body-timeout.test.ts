/**
 * The body read deadline (`bodyTimeoutMs`): a sender that does not finish its body is answered 408 with
 * `connection: close` in time for the service's 5 s wait (spec § Events item 5, § Limits), and its
 * connection is freed.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import { type Mounting, type Receiver, startReceiver } from './servers.js';
import { sendSlowly } from './slow-senders.js';

/** How long the service waits for an answer (spec § Limits). */
const SERVICE_WAIT_MS = 5_000;

/** The mountings where the handler reads the stream itself (a framework's own parser has its own limits). */
const STREAM_MOUNTINGS: readonly Mounting[] = ['node:http', 'express', 'fastify with the raw stream', 'hono'];

describe.each(STREAM_MOUNTINGS)('a receiver mounted in %s', (mounting) => {
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  it(
    'answers each of 100 senders dribbling one byte a second 408 with connection: close well within the 5 s the service waits, and frees every socket',
    async () => {
      const onEvent = vi.fn();
      const handler = createWebhookHandler({ onEvent, logLevel: 'off' });
      receiver = await startReceiver(mounting, handler);
      const url = receiver.url;
      const outcomes = await Promise.all(
        Array.from({ length: 100 }, () =>
          sendSlowly(url, {
            contentLength: 1000,
            firstBytes: '{',
            dribbleEveryMs: 1000,
            giveUpAfterMs: SERVICE_WAIT_MS + 1000,
          }),
        ),
      );
      expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(100).fill(408));
      expect(outcomes.every((outcome) => outcome.connection === 'close')).toBe(true);
      expect(outcomes.every((outcome) => outcome.closedByReceiver)).toBe(true);
      const slowest = Math.max(
        ...outcomes.map((outcome) => outcome.answeredAfterMs ?? Number.POSITIVE_INFINITY),
      );
      expect(slowest).toBeLessThan(SERVICE_WAIT_MS);
      await vi.waitFor(async () => expect(await receiver?.openSockets()).toBe(0), { timeout: 1000 });
      expect(onEvent).not.toHaveBeenCalled();
      expect(handler.stats).toMatchObject({ received: 100, rejected: 100 });
    },
    SERVICE_WAIT_MS * 3,
  );

  it('answers 408 to a Content-Length larger than the body sent, once bodyTimeoutMs has passed', async () => {
    const handler = createWebhookHandler({ onEvent: () => {}, bodyTimeoutMs: 300, logLevel: 'off' });
    receiver = await startReceiver(mounting, handler);
    const outcome = await sendSlowly(receiver.url, {
      contentLength: 5000,
      firstBytes: '{"_id":"t1","status":"accepted"',
      giveUpAfterMs: SERVICE_WAIT_MS,
    });
    expect(outcome).toMatchObject({ status: 408, connection: 'close', closedByReceiver: true });
    expect(outcome.answeredAfterMs).toBeGreaterThanOrEqual(250);
    await vi.waitFor(async () => expect(await receiver?.openSockets()).toBe(0), { timeout: 1000 });
  });
});

describe('the Web adapter given a Request whose body stream never ends', () => {
  it('answers 408 with connection: close after bodyTimeoutMs and cancels the stream', async () => {
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"_id":"t1",'));
      },
      cancel() {
        cancelled = true;
      },
    });
    const request = new Request('https://shop.example.test/webhooks/delivery', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: endless,
      duplex: 'half',
    } as RequestInit);
    const handler = createWebhookHandler({ onEvent: () => {}, bodyTimeoutMs: 100, logLevel: 'off' });
    const stuck = new Promise<'no answer'>((resolve) => setTimeout(() => resolve('no answer'), 3000));
    const response = await Promise.race([handler.fetch(request), stuck]);
    expect(response).toBeInstanceOf(Response);
    if (!(response instanceof Response)) return;
    expect(response.status).toBe(408);
    expect(response.headers.get('connection')).toBe('close');
    expect(((await response.json()) as { error: string }).error).toMatch(/^Request Timeout: .*100 ms/);
    expect(cancelled).toBe(true);
  });
});
