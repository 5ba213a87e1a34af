/**
 * One run of a merchant backend without a store, for the restart test: a process of its own creates the
 * orders it is given, one after another, then ends (as a process killed or redeployed would).
 *
 * Usage: node --import tsx test/support/restart-worker.ts '<json RestartConfig>'
 * Prints one JSON line: each order's task id, or the name of the error it ended with.
 */
import { DeliveryClient } from '../../src/index.js';
import { orderParams } from './order-params.js';

/** What the parent process asks of a run. */
export interface RestartConfig {
  baseUrl: string;
  apiKey: string;
  sellerId: string;
  orders: string[];
  /** The client's `lookupFirst`; absent: the default. */
  lookupFirst?: boolean;
}

/** One order's outcome in a run. */
export interface RestartOutcome {
  orderNumber: string;
  taskId?: string;
  error?: string;
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? '{}') as RestartConfig;
  const client = new DeliveryClient({
    apiKey: config.apiKey,
    sellerId: config.sellerId,
    baseUrl: config.baseUrl,
    logLevel: 'off',
    ...(config.lookupFirst === undefined ? {} : { lookupFirst: config.lookupFirst }),
  });
  const outcomes: RestartOutcome[] = [];
  for (const orderNumber of config.orders) {
    try {
      outcomes.push({ orderNumber, taskId: (await client.tasks.create(orderParams(orderNumber))).id });
    } catch (error) {
      outcomes.push({ orderNumber, error: error instanceof Error ? error.name : String(error) });
    }
  }
  process.stdout.write(`${JSON.stringify(outcomes)}\n`);
}

void main();
