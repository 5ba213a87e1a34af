/**
 * A process that creates one order through the client and then exits with its late-commit check still
 * waiting, for test/resources/task-creation/late-commit.test.ts. Argument: JSON `{ baseUrl, apiKey,
 * sellerId, orderNumber, exit }`; `exit: true` calls `process.exit(0)` after the create, else the process
 * ends when its event loop is empty. The client logs with its default logger (stderr); stdout gets the task
 * id.
 */
import { DeliveryClient } from '../../src/index.js';
import { orderParams } from './order-params.js';

const { baseUrl, apiKey, sellerId, orderNumber, exit } = JSON.parse(process.argv[2] ?? '{}') as {
  baseUrl: string;
  apiKey: string;
  sellerId: string;
  orderNumber: string;
  exit: boolean;
};
const client = new DeliveryClient({ baseUrl, apiKey, sellerId, listingDelayMs: 300, maxRetries: 2 });
const task = await client.tasks.create(orderParams(orderNumber), { lookupFirst: false });
process.stdout.write(`${task.id}\n`);
if (exit) process.exit(0);
