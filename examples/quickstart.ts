/**
 * The main job (`npm start`): a realistic integration from estimate to delivery.
 *
 * With DELIVERY_BASE_URL, DELIVERY_API_KEY and DELIVERY_SELLER_ID set, it runs against that service:
 * only the read-only steps (estimate, balance, the latest tasks), unless `--live` (`npm start -- --live`)
 * or DELIVERY_QUICKSTART_LIVE=1 allows the paid ones (25 tasks, each a delivery fee, and a top-up link).
 * Otherwise it starts the embedded mock of the service in this process (msw) and runs every step.
 */
import { DeliveryClient, DeliveryError, kwd, type Task } from 'delivery-task-sdk';
import { createMockDeliveryService } from 'delivery-task-sdk/testing';

const KUWAIT_CITY = { latitude: 29.3759, longitude: 47.9774 };
const SALMIYA = { latitude: 29.3339, longitude: 48.0761 };
const TASKS_TO_CREATE = 25;

async function main(): Promise<void> {
  const live = process.env.DELIVERY_BASE_URL !== undefined;
  // On a real service, creating tasks costs money: only with an explicit --live.
  const paidSteps = !live || process.argv.includes('--live') || process.env.DELIVERY_QUICKSTART_LIVE === '1';
  const mock = live ? undefined : createMockDeliveryService({ account: { type: 'wallet', balance: 100 } });
  mock?.listen();
  const client = live
    ? new DeliveryClient()
    : new DeliveryClient({ apiKey: mock?.apiKey, sellerId: mock?.sellerId, baseUrl: mock?.baseUrl });
  console.log(
    live
      ? `Using the service at ${client.baseUrl}`
      : `No service configured: using the embedded mock at ${client.baseUrl}`,
  );
  if (!paidSteps) {
    console.log(
      `Read-only steps only: creating ${TASKS_TO_CREATE} tasks costs ${TASKS_TO_CREATE} delivery fees. ` +
        'Run `npm start -- --live` (or set DELIVERY_QUICKSTART_LIVE=1) to create them and request a top-up link.',
    );
  }

  try {
    const estimate = await client.tasks.estimate({ from: KUWAIT_CITY, to: SALMIYA });
    console.log(
      `1. Estimate Kuwait City → Salmiya: ${estimate.price === undefined ? 'no price' : kwd.format(estimate.price)}, ` +
        `totalDistance ${estimate.travelDetail?.totalDistance ?? '?'}, duration ${estimate.travelDetail?.duration ?? '?'} ` +
        '(units not stated by the service)',
    );

    const before = await client.wallet.retrieveBalance();
    console.log(`2. Wallet balance: ${kwd.format(before.walletAmount)}`);

    if (!paidSteps) {
      const latest = await client.tasks
        .list({ sortBy: 'createdAt', sortOrder: -1 })
        .toArray({ max: TASKS_TO_CREATE });
      console.log(`3. The ${latest.length} latest tasks, read with for await (nothing created):`);
      for (const task of latest)
        console.log(`   ${task.id}  ${task.orderNumber ?? '-'}  ${task.status ?? '?'}`);
      console.log('Done (read-only).');
      return;
    }

    const runId = Date.now().toString(36);
    const created: Task[] = [];
    for (let index = 1; index <= TASKS_TO_CREATE; index++) {
      const task = await client.tasks.create({
        orderNumber: `QS-${runId}-${String(index).padStart(3, '0')}`,
        customerName: `Customer ${index}`,
        customerNumber: `+9655000${String(index).padStart(4, '0')}`,
        collectCash: index % 2 === 0,
        ...(index % 2 === 0 ? { totalAmount: kwd.normalize(2.5 + index / 10) } : {}),
        deliveryLocation: { ...SALMIYA, fullAddress: [`Block ${index}, Street 5`, 'Salmiya, Kuwait'] },
      });
      created.push(task);
    }
    const after = await client.wallet.retrieveBalance();
    console.log(
      `3. Created ${created.length} tasks (first ${created[0]?.id}, status ${created[0]?.status}); ` +
        `fees charged ${kwd.format(kwd.subtract(before.walletAmount, after.walletAmount))}`,
    );

    // Literal search (the SDK sends ignoreRegex=true); 10 per page, so 25 tasks span 3 pages.
    const listing = client.tasks.list({ search: `QS-${runId}`, sortBy: 'orderNumber' });
    const firstPage = await listing;
    const walked: Task[] = [];
    for await (const task of listing) walked.push(task);
    console.log(
      `4. Walked ${walked.length} of ${firstPage.total} tasks with for await over ${firstPage.totalPages} pages ` +
        `(${walked[0]?.orderNumber} … ${walked.at(-1)?.orderNumber})`,
    );

    const first = created[0];
    if (!first?.id) throw new Error('The service returned a task without an id');
    const retrieved = await client.tasks.retrieve(first.id);
    console.log(`5. Retrieved ${retrieved.id}: order ${retrieved.orderNumber}, status ${retrieved.status}`);

    if (mock) {
      await mock.advance(first.id, 'delivered');
      const delivered = await client.tasks.retrieve(first.id);
      const path = delivered.statusHistory?.map((entry) => entry.status).join(' → ');
      console.log(`6. Moved through delivery (mock): ${path}`);
    } else {
      console.log('6. Skipped moving the task through delivery (only the mock can do that)');
    }

    const topUp = await client.wallet.topUp({ amount: 10 });
    console.log(
      `7. Top-up link for ${kwd.format(10)}: ${topUp.paymentUrl}${topUp.expiresAt ? ` (expires ${topUp.expiresAt})` : ''}`,
    );
    console.log('Done.');
  } finally {
    mock?.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof DeliveryError ? `${error.name}: ${error.message}` : error);
  process.exitCode = 1;
});
