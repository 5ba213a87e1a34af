/**
 * Memory the mock keeps per request under `mock.listen()` (msw's interception of fetch): heap growth
 * over 3 000 balance reads, and over 3 000 creates (each stored task stays until `reset()`). Run with
 * `npx tsx --expose-gc bench/mock-memory.ts`; `npm run bench` runs it. Prints figures, asserts nothing.
 * @module
 */
import { createMockDeliveryService } from '../src/testing.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');
const collect = gc;

/** Heap used after two collections a macrotask apart, bytes. */
async function settledHeap(): Promise<number> {
  collect();
  await new Promise((resolve) => setTimeout(resolve, 50));
  collect();
  return process.memoryUsage().heapUsed;
}

const mock = createMockDeliveryService({ account: { type: 'invoice' }, recordLimit: 1 });
mock.listen();
const headers = {
  authorization: `apikey ${mock.apiKey}`,
  'x-seller-id': mock.sellerId,
  'content-type': 'application/json',
};
const readBalance = async () => {
  await (await fetch(`${mock.baseUrl}/tasks/wallet-balance`, { headers })).json();
};
let order = 0;
const createTask = async () => {
  order++;
  const body = JSON.stringify({
    orderNumber: `MEM-${order}`,
    customerName: 'Fatima Al-Sabah',
    customerNumber: '+96550000001',
    deliveryLocation: { latitude: 29.3, longitude: 48.0, fullAddress: ['Block 1', 'Street 2'] },
    collectCash: false,
  });
  await (await fetch(`${mock.baseUrl}/tasks`, { method: 'POST', headers, body })).json();
};

const COUNT = 3000;
console.log(`Mock memory under mock.listen() (recordLimit 1), heap growth over ${COUNT} requests:`);
for (const [name, request] of [
  ['balance reads', readBalance],
  ['creates (each task kept)', createTask],
] as const) {
  for (let index = 0; index < 200; index++) await request();
  const before = await settledHeap();
  for (let index = 0; index < COUNT; index++) await request();
  const growth = (await settledHeap()) - before;
  console.log(`  ${name.padEnd(26)} ${(growth / COUNT / 1024).toFixed(2)} KB per request`);
}
mock.close();
