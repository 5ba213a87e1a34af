/**
 * The `logger` option with the loggers merchants run: `console`-style (message, fields) and pino's
 * structured style (fields, message), through the whole client against the mock.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DeliveryClient } from '../../src/index.js';
import { createMockDeliveryService } from '../../src/testing.js';
import { createWebhookHandler } from '../../src/webhooks.js';
import { orderParams } from '../support/order-params.js';

const mock = createMockDeliveryService();
beforeAll(() => mock.listen());
afterEach(() => mock.reset());
afterAll(() => mock.close());

/** A real pino logger writing its JSON lines into an array. */
function pinoInto(lines: Record<string, unknown>[], level = 'debug') {
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const text of String(chunk).split('\n'))
        if (text) lines.push(JSON.parse(text) as Record<string, unknown>);
      done();
    },
  });
  return pino({ level }, destination);
}

describe('a pino logger', () => {
  it('gets (fields, message): the message as msg, the fields as JSON fields, secrets redacted', async () => {
    const lines: Record<string, unknown>[] = [];
    const client = new DeliveryClient({
      apiKey: mock.apiKey,
      sellerId: mock.sellerId,
      baseUrl: mock.baseUrl,
      logger: pinoInto(lines),
      logLevel: 'debug',
    });
    mock.inject({
      kind: 'status',
      status: 503,
      times: 1,
      operation: 'wallet.retrieveBalance',
      headers: { 'retry-after-ms': '1' },
    });
    await client.wallet.retrieveBalance();
    const retry = lines.find((line) => String(line.msg).startsWith('Retrying GET'));
    expect(retry).toMatchObject({ level: 40, component: 'delivery-task-sdk' });
    const request = lines.find((line) => String(line.msg).startsWith('→ GET'));
    expect(request).toMatchObject({ component: 'delivery-task-sdk', operation: 'wallet.retrieveBalance' });
    expect((request?.headers as Record<string, string> | undefined)?.authorization).toMatch(/\[redacted\]/);
    const text = JSON.stringify(lines);
    expect(text).not.toContain(mock.apiKey);
    expect(text).not.toContain(mock.sellerId);
  });

  it('is used the same way by the webhook handler', async () => {
    const lines: Record<string, unknown>[] = [];
    const handler = createWebhookHandler({ logger: pinoInto(lines, 'warn'), onEvent: () => {} });
    const answer = await handler.fetch(new Request('http://127.0.0.1/webhooks', { method: 'GET' }));
    expect(answer.status).toBe(405);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        component: 'delivery-task-sdk',
        msg: 'Webhook rejected with 405',
      }),
    ]);
  });
});

describe('a console-style logger', () => {
  it('still gets (message, fields) with the [delivery-task-sdk] prefix', async () => {
    const calls: unknown[][] = [];
    const logger = {
      debug: (...args: unknown[]) => void calls.push(['debug', ...args]),
      info: (...args: unknown[]) => void calls.push(['info', ...args]),
      warn: (...args: unknown[]) => void calls.push(['warn', ...args]),
      error: (...args: unknown[]) => void calls.push(['error', ...args]),
    };
    const client = new DeliveryClient({
      apiKey: mock.apiKey,
      sellerId: mock.sellerId,
      baseUrl: mock.baseUrl,
      logger,
    });
    mock.inject({
      kind: 'status',
      status: 503,
      times: 1,
      operation: 'wallet.retrieveBalance',
      headers: { 'retry-after-ms': '1' },
    });
    await client.wallet.retrieveBalance();
    expect(calls).toEqual([['warn', expect.stringMatching(/^\[delivery-task-sdk\] Retrying GET /)]]);
  });
});

describe('the webhook handler beside a client', () => {
  const badWebhook = () =>
    new Request('http://127.0.0.1/webhooks', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'delivered' }),
    });

  /** A console-style logger that joins its arguments into one text, as many do. */
  function joining() {
    const lines: string[] = [];
    const write = (...args: unknown[]) => void lines.push(args.join(' '));
    return { lines, logger: { debug: write, info: write, warn: write, error: write } };
  }

  it("is silent with a client at logLevel 'off': rejections and the sync's gap warning alike", async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const client = new DeliveryClient({
        apiKey: mock.apiKey,
        sellerId: mock.sellerId,
        baseUrl: mock.baseUrl,
        logLevel: 'off',
      });
      const task = await client.tasks.create(orderParams('ORD-LOG-OFF-1'));
      await mock.advance(task.id, 'delivered');
      const handler = createWebhookHandler({ client, onEvent: () => {} });
      expect((await handler.fetch(badWebhook())).status).toBe(400);
      expect((await handler.sync()).processed).toBe(1);
      expect(warn).not.toHaveBeenCalled();
      expect(error).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
  });

  it("writes to the client's logger at the client's level, unless given its own", async () => {
    const fromClient = joining();
    const client = new DeliveryClient({
      apiKey: mock.apiKey,
      sellerId: mock.sellerId,
      baseUrl: mock.baseUrl,
      logger: fromClient.logger,
      logLevel: 'warn',
    });
    await createWebhookHandler({ client, onEvent: () => {} }).fetch(badWebhook());
    expect(fromClient.lines).toEqual([
      expect.stringMatching(/^\[delivery-task-sdk\] Webhook rejected with 400/),
    ]);

    const own = joining();
    await createWebhookHandler({ client, logger: own.logger, onEvent: () => {} }).fetch(badWebhook());
    expect(own.lines).toHaveLength(1);
    await createWebhookHandler({ client, logLevel: 'error', onEvent: () => {} }).fetch(badWebhook());
    expect(fromClient.lines).toHaveLength(1);
  });

  it('never writes an object as [object Object], and still redacts the fields', async () => {
    const { lines, logger } = joining();
    const client = new DeliveryClient({
      apiKey: mock.apiKey,
      sellerId: mock.sellerId,
      baseUrl: mock.baseUrl,
      logger,
      logLevel: 'debug',
    });
    await createWebhookHandler({ client, onEvent: () => {} }).fetch(badWebhook());
    await client.wallet.retrieveBalance();
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) expect(line).not.toContain('[object Object]');
    expect(lines[0]).toMatch(/Webhook rejected with 400 \{"answer":.*Missing task id/);
    expect(lines.some((line) => line.includes('"authorization":"[redacted]"'))).toBe(true);
    const text = lines.join('\n');
    expect(text).not.toContain(mock.apiKey);
    expect(text).not.toContain(mock.sellerId);
  });
});
