/**
 * The `onEvent` deadline (`eventTimeoutMs`): an `onEvent` that never settles gives its processing slot
 * back, is reported to `onError` as a `WebhookEventTimeoutError` and counted as failed, so the events
 * behind it go on.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebhookEventTimeoutError } from '../../src/core/errors.js';
import { createWebhookHandler, type WebhookEvent } from '../../src/webhooks/index.js';
import { webhookBody } from './fixtures.js';

function webhookRequest(body: unknown): Request {
  return new Request('https://shop.example.test/webhooks/delivery', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const never = () => new Promise<void>(() => {});

describe('an onEvent that never settles', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives its slot back after eventTimeoutMs (30 s by default), so 8 of them no longer stop processing, and reports each to onError as a WebhookEventTimeoutError with its event', async () => {
    vi.useFakeTimers();
    const processed: string[] = [];
    const failures: [unknown, WebhookEvent | undefined][] = [];
    const handler = createWebhookHandler({
      onEvent: (event) => (event.taskId.startsWith('stuck') ? never() : void processed.push(event.taskId)),
      onError: (error, event) => void failures.push([error, event]),
      logLevel: 'off',
    });
    for (let index = 0; index < 8; index++) {
      expect((await handler.fetch(webhookRequest(webhookBody(`stuck-${index}`, 'accepted')))).status).toBe(
        200,
      );
    }
    expect((await handler.fetch(webhookRequest(webhookBody('behind', 'accepted')))).status).toBe(200);

    await vi.advanceTimersByTimeAsync(29_999);
    expect(processed).toEqual([]);
    expect(failures).toEqual([]);

    await vi.advanceTimersByTimeAsync(1);
    expect(processed).toEqual(['behind']);
    expect(failures).toHaveLength(8);
    for (const [index, [error, event]] of failures.entries()) {
      expect(error).toBeInstanceOf(WebhookEventTimeoutError);
      expect(error).toMatchObject({ taskId: `stuck-${index}`, kind: 'accepted', timeoutMs: 30_000 });
      expect(event).toMatchObject({ taskId: `stuck-${index}`, kind: 'accepted' });
    }
    expect(handler.stats).toMatchObject({ processed: 1, failed: 8 });
  });

  it('lets the events of the same task queued behind it proceed, in arrival order', async () => {
    const processed: string[] = [];
    const failures: unknown[] = [];
    const handler = createWebhookHandler({
      eventTimeoutMs: 50,
      onEvent: (event) => (event.kind === 'accepted' ? never() : void processed.push(event.kind)),
      onError: (error) => void failures.push(error),
      logLevel: 'off',
    });
    for (const kind of ['accepted', 'pickedup', 'enroute', 'delivered']) {
      await handler.fetch(webhookRequest(webhookBody('t1', kind)));
    }
    const settled = await Promise.race([handler.idle().then(() => 'idle'), sleep(2000, 'still busy')]);
    expect(settled).toBe('idle');
    expect(processed).toEqual(['pickedup', 'enroute', 'delivered']);
    expect(failures).toEqual([expect.any(WebhookEventTimeoutError)]);
  });

  it('ignores the outcome of an onEvent that settles after its deadline', async () => {
    const failures: unknown[] = [];
    const handler = createWebhookHandler({
      eventTimeoutMs: 20,
      onEvent: async () => {
        await sleep(100);
        throw new Error('too late to matter');
      },
      onError: (error) => void failures.push(error),
      logLevel: 'off',
    });
    await handler.fetch(webhookRequest(webhookBody('t1', 'accepted')));
    await Promise.race([handler.idle(), sleep(2000)]);
    await sleep(150);
    expect(failures).toEqual([expect.any(WebhookEventTimeoutError)]);
    expect(handler.stats).toMatchObject({ processed: 0, failed: 1 });
  });
});
