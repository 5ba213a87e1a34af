/**
 * The queue is bounded by bytes as well as by count (`maxQueueBytes`): large valid webhooks with a slow
 * `onEvent` are answered 503 beyond the bound instead of filling the heap.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookHandler, type WebhookHandlerOptions } from '../../src/webhooks/index.js';
import { gate, postWebhook, webhookBody } from './fixtures.js';
import { type Mounting, type Receiver, startReceiver } from './servers.js';

const MiB = 1024 * 1024;

/** A valid webhook body of exactly `size` bytes (ASCII, so its JSON length is its byte length too). */
function webhookOfSize(taskId: string, size: number): string {
  const base = JSON.stringify(webhookBody(taskId, 'accepted', { pad: '' }));
  const body = JSON.stringify(webhookBody(taskId, 'accepted', { pad: 'x'.repeat(size - base.length) }));
  if (body.length !== size) throw new Error(`webhook of ${body.length} bytes, wanted ${size}`);
  return body;
}

/** A handler whose `onEvent` holds every event until `release()`; `holdAgain()` holds the next ones. */
function hungHandler(options: Partial<WebhookHandlerOptions> = {}) {
  let hold = gate();
  const handler = createWebhookHandler({ onEvent: () => hold.promise, logLevel: 'off', ...options });
  return {
    handler,
    release: () => hold.open(),
    holdAgain: () => {
      hold = gate();
    },
  };
}

/** POSTs 1 MiB webhooks of distinct tasks one after another until one is not answered 200; the count answered 200. */
async function acceptedUntilRefused(
  url: string,
  prefix: string,
  limit: number,
): Promise<{ accepted: number; refusal?: number }> {
  for (let index = 0; index < limit; index++) {
    const response = await postWebhook(url, webhookOfSize(`${prefix}-${index}`, MiB));
    await response.arrayBuffer();
    if (response.status !== 200) return { accepted: index, refusal: response.status };
  }
  return { accepted: limit };
}

describe('the byte bound of the webhook queue', () => {
  let receiver: Receiver | undefined;
  const releases: (() => void)[] = [];
  afterEach(async () => {
    for (const release of releases.splice(0)) release();
    await receiver?.close();
    receiver = undefined;
  });

  it('answers 503 once the events waiting and running hold maxQueueBytes (64 MiB by default) of bodies, and accepts again once they finish', async () => {
    const { handler, release, holdAgain } = hungHandler();
    releases.push(() => release());
    receiver = await startReceiver('node:http', handler);
    const first = await acceptedUntilRefused(receiver.url, 'flood', 100);
    expect(first).toEqual({ accepted: 64, refusal: 503 });
    release();
    await handler.idle();
    expect(handler.stats).toMatchObject({ processed: 64, rejected: 1 });
    holdAgain();
    // The bytes of the finished events were given back: the same bound holds again, not a smaller one.
    const second = await acceptedUntilRefused(receiver.url, 'again', 100);
    expect(second).toEqual({ accepted: 64, refusal: 503 });
  }, 60_000);

  it.each([
    'node:http',
    'express with express.json()',
    'fastify with the parsed body',
    'hono',
  ] as const satisfies readonly Mounting[])(
    'counts the body size the same way in %s, parsed by a framework or read by the handler',
    async (mounting) => {
      const { handler, release } = hungHandler({ maxQueueBytes: 8 * MiB });
      releases.push(() => release());
      receiver = await startReceiver(mounting, handler, MiB);
      expect(await acceptedUntilRefused(receiver.url, mounting, 20)).toEqual({ accepted: 8, refusal: 503 });
    },
    30_000,
  );
});
