/**
 * `mock.listen()` exercised end to end in one process, printing one JSON line of what happened: run by
 * test/testing/listen-guard.test.ts under the system's Node.js (20 here), where msw's `setupServer`
 * cannot intercept. Not a test file itself (no vitest): `node --import tsx test/support/listen-anywhere.ts`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { APIConnectionError, DeliveryClient } from '../../src/index.js';
import { createMockDeliveryService } from '../../src/testing.js';
import { orderParams } from './order-params.js';

const received: unknown[] = [];
const receiver = createServer((request, response) => {
  let text = '';
  request.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  request.on('end', () => {
    received.push((JSON.parse(text) as { status: string }).status);
    response.end('ok');
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

const mock = createMockDeliveryService({ webhookUrl, account: { type: 'wallet', balance: 50 } });
const originalFetch = globalThis.fetch;
mock.listen();
const client = new DeliveryClient({
  apiKey: mock.apiKey,
  sellerId: mock.sellerId,
  baseUrl: mock.baseUrl,
  logLevel: 'off',
  reconciliation: { checks: 1, intervalMs: 5 },
});
const task = await client.tasks.create(orderParams('N20-1'));
await mock.advance(task.id);
mock.inject({ operation: 'tasks.create', kind: 'network-error' });
const afterDrop = await client.tasks.create(orderParams('N20-2'));
mock.inject({ operation: 'wallet.retrieveBalance', kind: 'delay', ms: 5_000 });
const timedOut = await client.wallet.retrieveBalance({ timeout: 100, maxRetries: 0 }).then(
  () => 'answered',
  (error: unknown) => (error as Error).name,
);
// A path of the mock's own origin that no handler serves is refused, never sent on.
const unhandled = await fetch(`${mock.baseUrl}/not-a-route`).then(
  () => 'answered',
  (error: unknown) => (error as Error).name,
);
const result = {
  node: process.versions.node,
  created: mock.task(task.id)?.orderNumber,
  retrieved: (await client.tasks.retrieve(task.id)).status,
  listed: (await client.tasks.list().toArray()).length,
  balance: (await client.wallet.retrieveBalance()).walletAmount,
  afterDrop: afterDrop.orderNumber,
  creates: mock.requestsFor('tasks.create').length,
  tasks: mock.tasks.length,
  timedOut,
  webhooks: received,
  unhandled,
  patchedWhileListening: globalThis.fetch !== originalFetch,
  restoredOnClose: (() => {
    mock.close();
    return globalThis.fetch === originalFetch;
  })(),
  connectionErrorAfterClose: await client.wallet.retrieveBalance({ maxRetries: 0 }).then(
    () => false,
    (error: unknown) => error instanceof APIConnectionError,
  ),
};
receiver.close();
console.log(JSON.stringify(result));
