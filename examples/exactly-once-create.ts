/**
 * Exactly-once task creation under failure (`npx tsx examples/exactly-once-create.ts`).
 *
 * The mock drops the connection right after storing the task, the worst case for an API without
 * idempotency keys. The SDK looks the order number up instead of sending the create again, and returns
 * the task that was stored: one task, one fee.
 */
import { DeliveryClient, kwd, TaskCreationOutcomeUnknownError } from 'delivery-task-sdk';
import { createMockDeliveryService } from 'delivery-task-sdk/testing';

async function main(): Promise<void> {
  const mock = createMockDeliveryService({ account: { type: 'wallet', balance: 20 } });
  mock.listen();
  const client = new DeliveryClient({
    apiKey: mock.apiKey,
    sellerId: mock.sellerId,
    baseUrl: mock.baseUrl,
    logLevel: 'info',
  });
  try {
    mock.inject({ operation: 'tasks.create', kind: 'commit-then-drop' });
    const task = await client.tasks.create({
      orderNumber: 'ORD-2026-0001',
      customerName: 'Fatima Al-Sabah',
      deliveryLocation: { latitude: 29.3339, longitude: 48.0761 },
    });
    console.log(`Returned task ${task.id} for ${task.orderNumber}`);
    console.log(
      `Tasks stored: ${mock.tasks.length}; fees charged: ${mock.wallet.feesCharged}; balance ${kwd.format(mock.wallet.balance)}`,
    );

    // Without an orderNumber there is nothing to look up: the SDK says so instead of guessing.
    mock.inject({ operation: 'tasks.create', kind: 'commit-then-drop' });
    try {
      await client.tasks.create({
        customerName: 'No order number',
        deliveryLocation: { latitude: 29.3, longitude: 48 },
      });
    } catch (error) {
      if (!(error instanceof TaskCreationOutcomeUnknownError)) throw error;
      console.log(`Without an orderNumber: ${error.name}: ${error.message}`);
    }
  } finally {
    mock.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
