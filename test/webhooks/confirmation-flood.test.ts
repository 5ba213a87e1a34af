/**
 * A flood of identical forged final-status webhooks costs one confirmation: the events of one task
 * waiting on a confirming `GET tasks/{id}` share it, and a 404 is remembered for a short time. Over real
 * sockets: a counting service on 127.0.0.1 answers the GETs (held until every copy was delivered), a real
 * `DeliveryClient` confirms, and the handler is mounted on node:http.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DeliveryClient } from '../../src/index.js';
import { createWebhookHandler, type WebhookHandler } from '../../src/webhooks/index.js';
import { gate, postWebhook, webhookBody } from './fixtures.js';
import { type Receiver, startReceiver } from './servers.js';

const COPIES = 2000;
const TASK_ID = '6650f0c2a1b2c3d4e5f60718';

interface CountingService {
  readonly url: string;
  /** `GET tasks/{id}` requests received. */
  gets: number;
  /** Lets the held GETs (and every later one) be answered. */
  release(): void;
  close(): Promise<void>;
}

/** A service whose `GET tasks/{id}` answers `status` (with a JSON error body) once released. */
async function countingService(status: 404 | 503): Promise<CountingService> {
  const released = gate();
  let open = false;
  const answer = (response: ServerResponse) => {
    response.writeHead(status, {
      'content-type': 'application/json',
      ...(status === 503 ? { 'retry-after-ms': '1' } : {}),
    });
    response.end(JSON.stringify({ message: status === 404 ? 'Task not found' : 'Unavailable', code: 'X' }));
  };
  const server: Server = createServer((request, response) => {
    if (request.method === 'GET' && request.url?.startsWith('/rest/tasks/')) service.gets++;
    if (open) answer(response);
    else void released.promise.then(() => answer(response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const service: CountingService = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/rest`,
    gets: 0,
    release() {
      open = true;
      released.open();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return service;
}

let service: CountingService | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  await service?.close();
});

/** Sends `COPIES` identical forged `delivered` webhooks, 50 at a time, each answered 200. */
async function flood(url: string): Promise<void> {
  const body = JSON.stringify(webhookBody(TASK_ID, 'delivered'));
  let next = 0;
  const sender = async () => {
    while (next < COPIES) {
      next++;
      const response = await postWebhook(url, body);
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 50 }, sender));
}

async function floodedHandler(status: 404 | 503): Promise<{ handler: WebhookHandler; failures: unknown[] }> {
  service = await countingService(status);
  const client = new DeliveryClient({
    apiKey: 'flood-key',
    sellerId: 'flood-seller',
    baseUrl: service.url,
    logLevel: 'off',
    maxRetries: 2,
    // The GET is held until the flood ends: over the default 10 s attempt timeout with both cores busy,
    // and a timed-out attempt's retry is a second GET that says nothing about sharing.
    timeout: 120_000,
  });
  const failures: unknown[] = [];
  const handler = createWebhookHandler({
    client,
    onEvent: () => {
      throw new Error('a forged event must not reach onEvent');
    },
    onError: (error) => {
      failures.push(error);
    },
    logLevel: 'off',
  });
  receiver = await startReceiver('node:http', handler);
  return { handler, failures };
}

// 2 000 webhooks over real sockets: about 2 s on an idle machine, over 20 s with both cores busy
// (npm run test:stress); the subject is the GETs they cost, not their speed.
describe('a flood of one forged final-status webhook', { timeout: 90_000 }, () => {
  it('to a task the service does not know costs one GET (the 404 is shared, then remembered)', async () => {
    const { handler, failures } = await floodedHandler(404);
    await flood(receiver?.url ?? '');
    service?.release();
    await handler.idle();
    expect(service?.gets).toBe(1);
    expect(handler.stats.processed).toBe(0);
    expect(failures).toHaveLength(COPIES);
    // A copy after the flood, within the remembered time: still no GET.
    await postWebhook(receiver?.url ?? '', webhookBody(TASK_ID, 'delivered'));
    await handler.idle();
    expect(service?.gets).toBe(1);
  });

  it('while the service answers 503 costs one confirmation (its GET and the client retries)', async () => {
    const { handler, failures } = await floodedHandler(503);
    await flood(receiver?.url ?? '');
    service?.release();
    await handler.idle();
    expect(service?.gets).toBe(3);
    expect(handler.stats.processed).toBe(0);
    expect(failures).toHaveLength(COPIES);
  });
});
