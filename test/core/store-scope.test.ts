/**
 * Store keys are scoped by the service's base URL and the seller (README "Running several instances"):
 * a staging and a production client of the same seller sharing one store never conflate their orders.
 * Two mocks served over HTTP on loopback play staging and production.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DeliveryClient, memoryStore } from '../../src/index.js';
import { createMockDeliveryService, type MockHttpServer, startMockHttpServer } from '../../src/testing.js';
import { orderParams } from '../support/order-params.js';

const staging = createMockDeliveryService({ baseUrl: 'http://staging.invalid/rest' });
const production = createMockDeliveryService({ baseUrl: 'http://production.invalid/rest' });
let servers: MockHttpServer[] = [];

beforeAll(async () => {
  servers = await Promise.all([startMockHttpServer(staging), startMockHttpServer(production)]);
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

it('gives the staging and the production client of one seller their own task for the same order numbers', async () => {
  const store = memoryStore();
  const [stagingUrl, productionUrl] = servers.map((server) => server.url);
  const clientOf = (baseUrl: string | undefined) =>
    new DeliveryClient({
      apiKey: staging.apiKey,
      sellerId: staging.sellerId,
      baseUrl,
      store,
      logLevel: 'off',
      reconciliation: { checks: 1, intervalMs: 5 },
    });
  expect(production.sellerId).toBe(staging.sellerId);
  const orders = Array.from({ length: 10 }, (_, index) => `SCOPE-${index}`);
  const stagingTasks = [];
  for (const order of orders) stagingTasks.push(await clientOf(stagingUrl).tasks.create(orderParams(order)));
  const productionTasks = [];
  for (const order of orders)
    productionTasks.push(await clientOf(productionUrl).tasks.create(orderParams(order)));
  expect(staging.tasks).toHaveLength(10);
  expect(production.tasks).toHaveLength(10);
  for (const [index, order] of orders.entries()) {
    expect(stagingTasks[index]?.id).toBe(staging.tasks.find((task) => task.orderNumber === order)?.id);
    expect(productionTasks[index]?.id).toBe(production.tasks.find((task) => task.orderNumber === order)?.id);
  }
});
