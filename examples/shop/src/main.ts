/**
 * Runs the shop (`npx tsx examples/shop/src/main.ts`, from the repository's root).
 *
 * With DELIVERY_BASE_URL, DELIVERY_API_KEY and DELIVERY_SELLER_ID set, it serves the shop against that
 * service on PORT (default 3000); register `http(s)://<your host>/webhooks/delivery` as the webhook URL.
 * Otherwise it starts the sandbox in this process (`startSandbox` of the test kit: no fees, a courier
 * moving every task along every 300 ms, webhooks POSTed to the shop), and prints its dashboard's address.
 *
 * `--demo` places one order over HTTP, waits for its delivery, checks the wallet, runs the listing job,
 * prints each step and exits (0 once the order is delivered): what `npm run examples` runs.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeliveryClient } from 'delivery-task-sdk';
import { type Sandbox, startSandbox } from 'delivery-task-tools/sandbox';
import { createShop, type Shop } from './app.js';

const demo = process.argv.includes('--demo');
const live = process.env.DELIVERY_BASE_URL !== undefined;

async function listen(server: Server, port: number): Promise<string> {
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function runDemo(base: string, shop: Shop): Promise<boolean> {
  const orderNumber = `DEMO-${Date.now().toString(36)}`;
  const placed = await fetch(`${base}/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      orderNumber,
      customerName: 'Fatima Al-Sabah',
      customerNumber: '+96550001234',
      collectCash: true,
      lines: [
        { name: 'Machboos', price: '3.750', quantity: 2 },
        { name: 'Laban', price: '0.350', quantity: 3 },
      ],
      destination: { latitude: 29.3339, longitude: 48.0761, fullAddress: ['Block 10, Street 5', 'Salmiya'] },
    }),
  });
  const created = (await placed.json()) as { totalFormatted: string; delivery: { taskId?: string } };
  console.log(
    `1. Order ${orderNumber} placed (${placed.status}): ${created.totalFormatted}, task ${created.delivery.taskId}`,
  );
  for (let waited = 0; waited < 10_000; waited += 100) {
    if (shop.orders.get(orderNumber)?.delivery.status === 'delivered') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await shop.webhooks.idle();
  const delivery = shop.orders.get(orderNumber)?.delivery;
  console.log(
    `2. Delivery status from the webhooks: ${delivery?.status} (confirmed: ${delivery?.confirmed})`,
  );
  const wallet = (await (await fetch(`${base}/wallet`)).json()) as { formatted: string; low: boolean };
  console.log(`3. Wallet: ${wallet.formatted}${wallet.low ? ' (low)' : ''}`);
  const report = (await (await fetch(`${base}/jobs/sync-tasks`, { method: 'POST' })).json()) as {
    tasks: number;
  };
  console.log(`4. Listing job: ${report.tasks} task(s) walked with for await`);
  return delivery?.status === 'delivered';
}

async function main(): Promise<void> {
  let shop: Shop | undefined;
  const server = createServer((req, res) => {
    if (shop) shop.app(req, res);
    else res.writeHead(503).end();
  });
  const base = await listen(server, demo ? 0 : Number(process.env.PORT ?? 3000));
  let sandbox: Sandbox | undefined;
  let client: DeliveryClient;
  if (live && !demo) {
    client = new DeliveryClient();
  } else {
    sandbox = await startSandbox({ webhookUrl: `${base}/webhooks/delivery`, autoAdvanceMs: 300 });
    client = new DeliveryClient({
      apiKey: sandbox.apiKey,
      sellerId: sandbox.sellerId,
      baseUrl: sandbox.baseUrl,
    });
    console.log(`Sandbox at ${sandbox.baseUrl} (dashboard ${sandbox.dashboardUrl})`);
  }
  const current = createShop({ client });
  shop = current;
  console.log(`Shop at ${base} (POST /orders, GET /orders/:orderNumber, GET /wallet, POST /jobs/sync-tasks)`);

  const stop = async (code: number) => {
    clearInterval(job);
    await current.close();
    await new Promise((resolve) => server.close(resolve));
    await sandbox?.close();
    process.exit(code);
  };
  // The listing job, every minute: catches what no webhook brought.
  const job = setInterval(() => {
    current
      .syncAllTasks()
      .catch((error: unknown) => console.error(`listing job failed: ${(error as Error).message}`));
  }, 60_000);

  if (demo) {
    const delivered = await runDemo(base, current);
    console.log(delivered ? 'Done.' : 'The order was not delivered in time.');
    await stop(delivered ? 0 : 1);
    return;
  }
  process.once('SIGINT', () => void stop(0));
  process.once('SIGTERM', () => void stop(0));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
