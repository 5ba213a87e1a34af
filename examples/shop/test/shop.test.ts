/**
 * The shop against the test kit (`delivery-task-sdk/testing`): the mock of the whole service, with its
 * webhooks POSTed over real HTTP to the shop's receiver on 127.0.0.1.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeliveryClient } from 'delivery-task-sdk';
import { createMockDeliveryService, type MockDeliveryService } from 'delivery-task-sdk/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createShop, type OrderView, type Shop } from '../src/app.js';
import type { ListingReport } from '../src/jobs.js';
import type { LowBalanceAlert, WalletReport, WalletSettings } from '../src/wallet.js';

const OPENING_BALANCE = 30;
let mock: MockDeliveryService;
let shop: Shop;
let base = '';
let alerts: LowBalanceAlert[] = [];
/** While set, the shop's server answers webhooks 503 without reading them: the service never resends. */
let dropWebhooks = false;

const server = createServer((req, res) => {
  if (dropWebhooks && req.url?.startsWith('/webhooks/')) {
    res.writeHead(503).end();
    return;
  }
  shop.app(req, res);
});

/** A shop over a new client: the client's memory of created orders must not outlive the mock's reset. */
function newShop(wallet: Partial<WalletSettings> = {}): Shop {
  const client = new DeliveryClient({
    apiKey: mock.apiKey,
    sellerId: mock.sellerId,
    baseUrl: mock.baseUrl,
    logLevel: 'off',
  });
  return createShop({
    client,
    wallet: { onLowBalance: (alert) => alerts.push(alert), ...wallet },
    log: () => {},
  });
}

function order(
  orderNumber: string,
  lines = [
    { name: 'Machboos', price: '3.750', quantity: 2 },
    { name: 'Laban', price: '0.350', quantity: 3 },
  ],
) {
  return {
    orderNumber,
    customerName: 'Fatima Al-Sabah',
    customerNumber: '+96550001234',
    collectCash: true,
    lines,
    destination: { latitude: 29.3339, longitude: 48.0761, fullAddress: ['Block 10, Street 5', 'Salmiya'] },
  };
}

/** One request to the shop; the body as the route answers it (an order unless said otherwise). */
async function call<T = OrderView & { error?: string }>(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as T };
}

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  mock = createMockDeliveryService({
    account: { type: 'wallet', balance: OPENING_BALANCE },
    webhookUrl: `${base}/webhooks/delivery`,
  });
  mock.listen({ onUnhandledFrame: 'bypass' }); // the tests call the shop on 127.0.0.1 as well
});

beforeEach(() => {
  shop = newShop();
});

afterEach(async () => {
  await shop.close();
  mock.reset(); // no tasks, the opening balance, no faults, an empty request log
  alerts = [];
  dropWebhooks = false;
});

afterAll(async () => {
  mock.close();
  await new Promise((resolve) => server.close(resolve));
});

describe('orders', () => {
  it('creates the delivery of a new order, with its total in KWD text to the fils', async () => {
    const placed = await call('POST', '/orders', order('SHOP-1001'));

    expect(placed.status).toBe(201);
    expect(placed.body.total).toBe('8.550'); // 2 × 3.750 + 3 × 0.350
    expect(placed.body.totalFormatted).toBe('KWD 8.550');
    expect(placed.body.delivery).toMatchObject({ state: 'created', status: 'pending', confirmed: true });
    expect(mock.tasks).toHaveLength(1);
    expect(mock.tasks[0]).toMatchObject({
      id: placed.body.delivery.taskId,
      orderNumber: 'SHOP-1001',
      totalAmount: '8.550',
    });
    expect(mock.wallet.feesCharged).toBe(1);
  });

  it('adds prices as decimal text, where floating point would not (0.1 + 0.2)', async () => {
    const placed = await call(
      'POST',
      '/orders',
      order('SHOP-1002', [
        { name: 'Water', price: '0.100', quantity: 1 },
        { name: 'Napkins', price: '0.2', quantity: 1 },
      ]),
    );

    expect(0.1 + 0.2).not.toBe(0.3);
    expect(placed.body.total).toBe('0.300');
    expect(mock.tasks[0]?.totalAmount).toBe('0.300');
  });

  it('refuses a price sent as a number, and sends nothing', async () => {
    const refused = await call(
      'POST',
      '/orders',
      order('SHOP-1003', [{ name: 'Tea', price: 0.25 as never, quantity: 1 }]),
    );

    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain('lines[0].price');
    expect(mock.requests).toHaveLength(0);
  });
});

describe('exactly once', () => {
  it('keeps one task and one fee when the create is committed and its answer dropped', async () => {
    mock.inject({ operation: 'tasks.create', kind: 'commit-then-drop' });

    const placed = await call('POST', '/orders', order('SHOP-2001'));

    expect(placed.status).toBe(201);
    expect(placed.body.delivery.state).toBe('created');
    expect(mock.tasks).toHaveLength(1);
    expect(placed.body.delivery.taskId).toBe(mock.tasks[0]?.id);
    expect(mock.wallet.feesCharged).toBe(1);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1); // found by its order number, not sent again
  });

  it('creates one task for two concurrent clicks on the same order', async () => {
    mock.inject({ operation: 'tasks.create', kind: 'delay', ms: 200 }); // the second click comes while the first is in flight

    const [first, second] = await Promise.all([
      call('POST', '/orders', order('SHOP-2002')),
      call('POST', '/orders', order('SHOP-2002')),
    ]);

    expect([first.status, second.status].sort()).toEqual([200, 201]);
    expect(mock.tasks).toHaveLength(1);
    expect(first.body.delivery.taskId).toBe(mock.tasks[0]?.id);
    expect(second.body.delivery.taskId).toBe(mock.tasks[0]?.id);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    expect(mock.wallet.feesCharged).toBe(1);
  });
});

describe('webhooks', () => {
  it('updates the order from each status webhook, through the receiver, confirmed when delivered', async () => {
    const placed = await call('POST', '/orders', order('SHOP-3001'));
    const taskId = placed.body.delivery.taskId ?? '';

    await mock.advance(taskId, 'enroute');
    await shop.webhooks.idle();
    expect((await call('GET', '/orders/SHOP-3001')).body.delivery).toMatchObject({ status: 'enroute' });

    await mock.advance(taskId, 'delivered');
    await shop.webhooks.idle();
    const shown = await call('GET', '/orders/SHOP-3001');

    expect(shown.body.delivery).toMatchObject({ taskId, status: 'delivered', confirmed: true });
    expect(mock.webhookDeliveries.length).toBeGreaterThanOrEqual(6);
    expect(shop.webhooks.stats.processed).toBeGreaterThanOrEqual(6);
    expect(mock.requestsFor('tasks.retrieve').length).toBeGreaterThanOrEqual(1); // the GET that confirmed `delivered`
  });
});

describe('the listing job', () => {
  it('walks every task of every page and catches the statuses whose webhooks were lost', async () => {
    const numbers = Array.from({ length: 12 }, (_, index) => `SHOP-40${String(index).padStart(2, '0')}`);
    for (const number of numbers) expect((await call('POST', '/orders', order(number))).status).toBe(201);
    dropWebhooks = true;
    for (const number of numbers.slice(0, 3)) {
      await mock.advance(shop.orders.get(number)?.delivery.taskId ?? '', 'delivered');
    }
    dropWebhooks = false;
    expect(shop.orders.get(numbers[0] ?? '')?.delivery.status).toBe('pending');

    // The job's own list requests (each order's create looked the order up once before sending it).
    const lists = mock.requestsFor('tasks.list').length;
    const report = await call<ListingReport>('POST', '/jobs/sync-tasks');

    expect(report.body).toMatchObject({ tasks: 12, updated: 3, byStatus: { delivered: 3, pending: 9 } });
    expect(mock.requestsFor('tasks.list').length - lists).toBe(2); // 10 tasks a page
    for (const number of numbers.slice(0, 3)) {
      expect(shop.orders.get(number)?.delivery).toMatchObject({ status: 'delivered', confirmed: true });
    }
    expect(shop.orders.get(numbers[3] ?? '')?.delivery.status).toBe('pending');
  });
});

describe('wallet', () => {
  it('reports a healthy balance without asking for a top-up link', async () => {
    const report = await call<WalletReport>('GET', '/wallet');

    expect(report.body).toEqual({ balance: '30.000', formatted: 'KWD 30.000', low: false });
    expect(alerts).toHaveLength(0);
    expect(mock.requestsFor('wallet.topUp')).toHaveLength(0);
  });

  it('alerts below the threshold with a top-up link that, once paid, raises the balance', async () => {
    await shop.close();
    shop = newShop({ lowBalance: '50.000', topUpAmount: '25.500' });

    const low = await call<WalletReport>('GET', '/wallet');

    expect(low.body).toMatchObject({ balance: '30.000', low: true });
    expect(low.body.topUpUrl).toMatch(/\/pay\//);
    expect(alerts).toEqual([{ balance: '30.000', threshold: '50.000', paymentUrl: low.body.topUpUrl }]);
    expect(mock.requestsFor('wallet.topUp')[0]?.body).toEqual({ amount: 25.5 });

    mock.completeTopUp(low.body.topUpUrl ?? '');
    const after = await call<WalletReport>('GET', '/wallet');
    expect(after.body).toMatchObject({ balance: '55.500', formatted: 'KWD 55.500', low: false });
  });
});

describe('between tests', () => {
  it('starts from a reset service: the order number of the first test makes a new task', async () => {
    expect(mock.tasks).toHaveLength(0);
    expect(mock.wallet.balance).toBe(OPENING_BALANCE);
    expect(shop.orders.all()).toHaveLength(0);

    const placed = await call('POST', '/orders', order('SHOP-1001'));

    expect(placed.status).toBe(201);
    expect(mock.requestsFor('tasks.create')).toHaveLength(1);
    expect(mock.tasks).toHaveLength(1);
  });
});
