/**
 * Receiving status webhooks (`npm run example:webhooks`, or `npx tsx examples/webhook-receiver.ts`).
 *
 * Starts a node:http webhook receiver on 127.0.0.1, starts the embedded mock of the service with its
 * webhook URL pointing at that receiver, creates a task, drives it to `delivered` (one real HTTP POST
 * per status change, like the service), prints each event as it arrives, and confirms `delivered` with
 * `GET tasks/{id}` before acting on it. Then it loses the webhooks of a second task on purpose (the
 * service does not resend) and catches up with `handler.sync()`, which reads `GET tasks` and passes on
 * what no webhook brought. Exits 0 when both tasks' `delivered` reached `onEvent`, confirmed.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeliveryClient } from 'delivery-task-sdk';
import { createMockDeliveryService } from 'delivery-task-sdk/testing';
import { createWebhookHandler, type WebhookEvent } from 'delivery-task-sdk/webhooks';

const SALMIYA = { latitude: 29.3339, longitude: 48.0761 };

function describeEvent(event: WebhookEvent): string {
  const confirmation = event.confirmed ? `, confirmed by GET tasks: ${event.status}` : '';
  return `${event.receivedAt.toISOString()}  task ${event.taskId}  ${event.kind} (${event.source})${confirmation}`;
}

async function main(): Promise<void> {
  // 1. The receiver's address first: the mock needs it.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const webhookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/delivery`;
  console.log(`Webhook receiver listening at ${webhookUrl}`);

  // 2. The mock service POSTs each status change there (msw intercepts the client's requests to it).
  const mock = createMockDeliveryService({ webhookUrl });
  mock.listen();
  const client = new DeliveryClient({ apiKey: mock.apiKey, sellerId: mock.sellerId, baseUrl: mock.baseUrl });

  // 3. The handler: answers 200 at once, then calls onEvent; `delivered` is confirmed by GET first.
  const events: WebhookEvent[] = [];
  const handler = createWebhookHandler({
    client,
    confirm: ['delivered', 'cancelled'],
    onEvent: (event) => {
      events.push(event);
      console.log(describeEvent(event));
    },
  });
  // While `losingWebhooks` is set, the receiver answers 503 without reading: the webhook is lost.
  let losingWebhooks = false;
  server.on('request', (req, res) => {
    if (losingWebhooks) {
      res.writeHead(503).end();
      return;
    }
    void handler.node(req, res);
  });

  try {
    const task = await client.tasks.create({
      orderNumber: `WH-${Date.now().toString(36)}`,
      customerName: 'Fatima Al-Sabah',
      customerNumber: '+96550001234',
      deliveryLocation: { ...SALMIYA, fullAddress: ['Block 10, Street 5', 'Salmiya, Kuwait'] },
    });
    const taskId = task.id;
    console.log(`Created task ${taskId} (${task.status}); driving it to delivered…`);

    await mock.advance(taskId, 'delivered');
    await handler.idle();

    const delivered = events.find((event) => event.taskId === taskId && event.kind === 'delivered');
    const answers = mock.webhookDeliveries.map((delivery) => delivery.responseStatus);
    console.log(`Webhooks sent: ${answers.length}, answered: ${answers.join(', ')}`);
    console.log(`Handler stats: ${JSON.stringify(handler.stats)}`);
    if (delivered?.confirmed !== true || delivered.status !== 'delivered') {
      throw new Error(
        `delivered was not confirmed (got ${delivered ? describeEvent(delivered) : 'no event'})`,
      );
    }
    console.log(`Delivered confirmed by GET tasks/${taskId}: safe to release the payment.`);

    // 4. Lost webhooks: a second task is delivered while the receiver refuses them all.
    losingWebhooks = true;
    const second = await client.tasks.create({
      orderNumber: `WH-${Date.now().toString(36)}-2`,
      deliveryLocation: SALMIYA,
    });
    const secondId = second.id;
    await mock.advance(secondId, 'delivered');
    losingWebhooks = false;
    console.log(`Task ${secondId} was delivered, its webhooks lost; catching up with handler.sync()…`);
    const result = await handler.sync();
    console.log(`sync: ${JSON.stringify({ ...result, checkpoint: result.checkpoint?.toISOString() })}`);
    const caught = events.find((event) => event.taskId === secondId && event.kind === 'delivered');
    if (caught?.source !== 'sync' || caught.confirmed !== true) {
      throw new Error(
        `sync did not pass on the lost delivered (got ${caught ? describeEvent(caught) : 'no event'})`,
      );
    }
  } finally {
    mock.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
