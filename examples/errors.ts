/**
 * Handling errors (`npx tsx examples/errors.ts`): each failure is a typed DeliveryError subclass.
 */
import {
  APIConnectionError,
  APIError,
  DeliveryClient,
  InsufficientBalanceError,
  NotFoundError,
  RequestValidationError,
} from 'delivery-task-sdk';
import { createMockDeliveryService } from 'delivery-task-sdk/testing';

async function main(): Promise<void> {
  const mock = createMockDeliveryService({ account: { type: 'wallet', balance: 1 } });
  mock.listen();
  const client = new DeliveryClient({
    apiKey: mock.apiKey,
    sellerId: mock.sellerId,
    baseUrl: mock.baseUrl,
    logLevel: 'off',
  });
  try {
    // Bad input: every problem, with its path; nothing is sent.
    await client.tasks
      .estimate({ from: { latitude: 95, longitude: 48 }, to: { latitude: 29.3, longitude: 200 } })
      .catch((error: unknown) => {
        if (!(error instanceof RequestValidationError)) throw error;
        console.log(`${error.name}: ${error.issues.map((issue) => issue.path).join(', ')}`);
      });

    // Unknown task id.
    await client.tasks.retrieve('000000000000000000000000').catch((error: unknown) => {
      if (!(error instanceof NotFoundError)) throw error;
      console.log(`${error.name} ${error.status}: ${error.message}`);
    });

    // A wallet below the fee: no task is created, nothing is charged.
    await client.tasks
      .create({ orderNumber: 'ORD-LOW-1', deliveryLocation: { latitude: 29.3339, longitude: 48.0761 } })
      .catch((error: unknown) => {
        if (!(error instanceof InsufficientBalanceError)) throw error;
        console.log(`${error.name} (${error.code}): top up before creating more tasks`);
      });

    // The service is down: reads are retried, then a typed error.
    mock.inject({ operation: 'wallet.retrieveBalance', kind: 'network-error', times: 3 });
    await client.wallet.retrieveBalance().catch((error: unknown) => {
      if (error instanceof APIConnectionError) console.log(`${error.name} after ${error.attempts} attempts`);
      else if (error instanceof APIError) console.log(`${error.name} ${error.status}`);
      else throw error;
    });
  } finally {
    mock.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
