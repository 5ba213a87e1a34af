import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookHandler, type WebhookEvent, type WebhookHandler } from '../../src/webhooks/index.js';
import { gate, postWebhook, webhookBody } from './fixtures.js';
import { MOUNTINGS, type Mounting, type Receiver, startReceiver } from './servers.js';

const MAX_BODY_BYTES = 4096;

/** Log lines of the handlers in this file: rejections are expected here, so they are kept, not printed. */
const logged: string[] = [];
const logger = {
  debug() {},
  info() {},
  warn: (message: string) => void logged.push(message),
  error: (message: string) => void logged.push(message),
};

/** Sends raw bytes with node:http (chunked when `chunks` is given), resolving with the status. */
function sendRaw(
  url: string,
  chunks: readonly Uint8Array[],
  headers: Record<string, string>,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: 'POST', headers }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
    for (const chunk of chunks) request.write(chunk);
    request.end();
  });
}

describe.each(MOUNTINGS)('the handler mounted in %s', (mounting: Mounting) => {
  let receiver: Receiver | undefined;
  const releases: (() => void)[] = [];

  afterEach(async () => {
    for (const release of releases.splice(0)) release();
    await receiver?.close();
    receiver = undefined;
  });

  async function start(handler: WebhookHandler): Promise<string> {
    receiver = await startReceiver(mounting, handler, MAX_BODY_BYTES);
    return receiver.url;
  }

  it('receives a webhook over HTTP and passes the parsed event to onEvent', async () => {
    const events: WebhookEvent[] = [];
    const handler = createWebhookHandler({
      logger,
      onEvent: (event) => void events.push(event),
    });
    const url = await start(handler);
    const response = await postWebhook(url, webhookBody('task-http-1', 'pickedup'));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true });
    await handler.idle();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ taskId: 'task-http-1', kind: 'pickedup', confirmed: false });
    expect(events[0]?.payload.deliveryLocation?.kwAddress).toEqual(['Block 10', 'Street 5', 'Building 12']);
  });

  it('answers before a slow onEvent finishes', async () => {
    const release = gate();
    releases.push(release.open);
    const started = gate();
    let finished = false;
    const handler = createWebhookHandler({
      logger,
      onEvent: async () => {
        started.open();
        await release.promise;
        finished = true;
      },
    });
    const url = await start(handler);
    const response = await postWebhook(url, webhookBody('task-slow', 'accepted'));
    expect(response.status).toBe(200);
    await started.promise;
    expect(finished).toBe(false);
    release.open();
    await handler.idle();
    expect(finished).toBe(true);
  });

  it('drops duplicates and out-of-order events, still answering 200', async () => {
    const events: WebhookEvent[] = [];
    const handler = createWebhookHandler({
      logger,
      onEvent: (event) => void events.push(event),
    });
    const url = await start(handler);
    const statuses: number[] = [];
    for (const kind of ['accepted', 'accepted', 'enroute', 'pickedup', 'enroute', 'delivered']) {
      statuses.push((await postWebhook(url, webhookBody('task-order', kind))).status);
    }
    await handler.idle();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    expect(events.map((event) => event.kind)).toEqual(['accepted', 'enroute', 'delivered']);
    expect(handler.stats).toMatchObject({ duplicates: 2, outOfOrder: 1, processed: 3 });
  });

  it.each([
    ['405 to a GET', 405, { method: 'GET', body: null }],
    ['415 to a text/plain body', 415, { headers: { 'content-type': 'text/plain' } }],
    ['400 to a body that is not JSON', 400, { body: '{"_id": "t1", "status": ' }],
    ['400 to a body that is not a webhook', 400, { body: JSON.stringify({ hello: 'world' }) }],
    ['400 to a bad task id', 400, { body: JSON.stringify(webhookBody('bad\u0001id', 'accepted')) }],
    [
      '413 to a body over the limit',
      413,
      { body: JSON.stringify(webhookBody('t', 'accepted', { pad: 'x'.repeat(MAX_BODY_BYTES) })) },
    ],
  ] as const)('answers %s', async (_title, status, init) => {
    logged.length = 0;
    let called = false;
    const handler = createWebhookHandler({
      logger,
      maxBodyBytes: MAX_BODY_BYTES,
      onEvent: () => {
        called = true;
      },
    });
    const url = await start(handler);
    const response = await postWebhook(url, webhookBody('t1', 'accepted'), init);
    expect(response.status).toBe(status);
    if (status === 405) expect(response.headers.get('allow')).toContain('POST');
    await handler.idle();
    expect(called).toBe(false);
    // Logged by the handler, unless the framework's own body parser answered before it.
    expect(logged.filter((line) => line !== `[delivery-task-sdk] Webhook rejected with ${status}`)).toEqual(
      [],
    );
    expect(logged.length).toBeLessThanOrEqual(1);
  });

  it('answers 413 to a chunked body that grows over the limit', async () => {
    const handler = createWebhookHandler({
      logger,
      maxBodyBytes: MAX_BODY_BYTES,
      onEvent: () => {},
    });
    const url = await start(handler);
    const chunk = new Uint8Array(1024).fill(0x20);
    const status = await sendRaw(
      url,
      Array.from({ length: 8 }, () => chunk),
      {
        'content-type': 'application/json',
        'transfer-encoding': 'chunked',
      },
    );
    expect(status).toBe(413);
  });

  it('answers 503 when the queue is full', async () => {
    const release = gate();
    releases.push(release.open);
    const started = gate();
    const handler = createWebhookHandler({
      logger,
      concurrency: 1,
      maxQueue: 1,
      onEvent: async () => {
        started.open();
        await release.promise;
      },
    });
    const url = await start(handler);
    expect((await postWebhook(url, webhookBody('q1', 'accepted'))).status).toBe(200);
    await started.promise;
    expect((await postWebhook(url, webhookBody('q2', 'accepted'))).status).toBe(200);
    expect((await postWebhook(url, webhookBody('q3', 'accepted'))).status).toBe(503);
    release.open();
    await handler.idle();
    expect(handler.stats.processed).toBe(2);
  });
});

describe('the Node adapter with a framework that already parsed the body', () => {
  it('answers 500 and calls onError when the request object breaks, without throwing', async () => {
    const errors: unknown[] = [];
    const handler = createWebhookHandler({
      logger,
      onEvent: () => {},
      onError: (error) => void errors.push(error),
    });
    const written: { status?: number; body?: string } = {};
    const req = {
      get method(): string {
        throw new Error('broken request');
      },
    };
    const res = {
      headersSent: false,
      writableEnded: false,
      destroyed: false,
      writeHead(status: number) {
        written.status = status;
        return this;
      },
      end(body: string) {
        written.body = body;
      },
    };
    await expect(handler.node(req as never, res as never)).resolves.toBeUndefined();
    expect(written.status).toBe(500);
    expect(errors).toHaveLength(1);
  });

  it('takes the body from options.body, then from req.body, and ignores an Express `next` function', async () => {
    const events: WebhookEvent[] = [];
    const handler = createWebhookHandler({
      logger,
      onEvent: (event) => void events.push(event),
    });
    const answers: number[] = [];
    const fakeRes = () => ({
      headersSent: false,
      writableEnded: false,
      destroyed: false,
      writeHead(status: number) {
        answers.push(status);
        return this;
      },
      end() {},
    });
    const fakeReq = (body?: unknown) => ({
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      readableEnded: true,
      body,
    });
    await handler.node(fakeReq() as never, fakeRes() as never, {
      body: webhookBody('from-options', 'accepted'),
    });
    await handler.node(fakeReq(webhookBody('from-req-body', 'accepted')) as never, fakeRes() as never);
    const next = () => {};
    await handler.node(
      fakeReq(JSON.stringify(webhookBody('next-ignored', 'accepted'))) as never,
      fakeRes() as never,
      next as never,
    );
    await handler.node(fakeReq() as never, fakeRes() as never);
    await handler.idle();
    expect(answers).toEqual([200, 200, 200, 400]);
    expect(events.map((event) => event.taskId)).toEqual(['from-options', 'from-req-body', 'next-ignored']);
  });
});
