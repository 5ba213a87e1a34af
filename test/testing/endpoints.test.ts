import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { kwd } from '../../src/kwd.js';
import { haversineKm } from '../../src/testing/geo.js';
import { createMockDeliveryService, MOCK_DEFAULTS } from '../../src/testing.js';
import { callService, createTask, type TaskShape, taskBody } from './calls.js';

const HEX_OBJECT_ID = /^[0-9a-f]{24}$/;
const salmiya = { latitude: 29.3339, longitude: 48.0761 };
const jahra = { latitude: 29.3375, longitude: 47.6581 };

/** The fee of a trip of `km` km under the default pricing, in fils, half-up (independent of the mock). */
function defaultFeeFils(km: number): number {
  const perKmFils = kwd.toFils(MOCK_DEFAULTS.pricing.perKm);
  return kwd.toFils(MOCK_DEFAULTS.pricing.baseFee) + Math.round(perKmFils * km);
}

const clock = Date.parse('2026-03-01T08:00:00.000Z');
const now = () => new Date(clock);

describe('tasks on a wallet account', () => {
  const mock = createMockDeliveryService({ now });
  beforeAll(() => mock.listen());
  afterEach(() => mock.reset());
  afterAll(() => mock.close());

  it('creates a pending task that echoes the request and fills in the service fields', async () => {
    const body = taskBody('ORD-1', {
      alternateCustomerNumber: '+96560000000',
      deliveryZone: 'Salmiya',
      collectCash: true,
      totalAmount: '12.500',
      specialNotes: 'Ring twice',
      pickupName: 'Front desk',
    });
    const result = await callService(mock, 'POST', 'tasks', { json: body });
    expect(result.status).toBe(200);
    const task = (result.body as { data: { createTask: TaskShape } }).data.createTask;
    expect(task).toMatchObject(body);
    expect(task.id).toMatch(HEX_OBJECT_ID);
    expect(task).toMatchObject({
      sellerId: mock.sellerId,
      status: 'pending',
      createdAt: now().toISOString(),
      updatedAt: now().toISOString(),
      deliveryDispatched: false,
      pickupLocation: MOCK_DEFAULTS.origin,
    });
    expect(task.statusHistory).toEqual([
      { id: expect.stringMatching(HEX_OBJECT_ID), status: 'pending', timestamp: now().toISOString() },
    ]);
    expect(task.deliveryId).toEqual(expect.any(String));
    expect(task.sellerDetail).toEqual(expect.objectContaining({ shopName: expect.any(String) }));
    expect(task.addressDetails).toMatchObject({ toAddr: { address: 'Block 10, Street 5, Salmiya' } });
    expect(task.travelDetail.totalDistance).toBeCloseTo(haversineKm(MOCK_DEFAULTS.origin, salmiya), 3);
  });

  it('gives every task its own id', async () => {
    const first = await createTask(mock, taskBody('ORD-A'));
    const second = await createTask(mock, taskBody('ORD-B'));
    expect(first.id).not.toBe(second.id);
    expect(second.statusHistory[0]?.id).not.toBe(first.statusHistory[0]?.id);
  });

  it('retrieves and lists a created task as created', async () => {
    const created = await createTask(mock, taskBody('ORD-2'));
    const retrieved = await callService(mock, 'GET', `tasks/${created.id}`);
    expect(retrieved).toMatchObject({ status: 200, body: created });
    const list = await callService(mock, 'GET', 'tasks');
    expect(list.body).toEqual({ tasks: [created], page: 1, limit: 10, totalPages: 1, total: 1 });
  });

  it('measures the distance from a custom pickup point', async () => {
    const task = await createTask(
      mock,
      taskBody('ORD-CUSTOM', {
        customPickup: true,
        pickupLocation: { ...jahra, fullAddress: ['Jahra souq'] },
      }),
    );
    expect(task.pickupLocation).toEqual(jahra);
    expect(task.travelDetail.totalDistance).toBeCloseTo(haversineKm(jahra, salmiya), 3);
  });

  it('picks up at the selected branch', async () => {
    const branch = MOCK_DEFAULTS.branches[2];
    const task = await createTask(
      mock,
      taskBody('ORD-BRANCH', { customPickup: true, selectedBranch: branch.name }),
    );
    expect(task.pickupLocation).toEqual({ latitude: branch.latitude, longitude: branch.longitude });
    expect(task.selectedBranch).toBe(branch.name);
  });

  it('refuses an unknown branch and a branch without customPickup', async () => {
    const unknown = await callService(mock, 'POST', 'tasks', {
      json: taskBody('ORD-X', { customPickup: true, selectedBranch: 'Atlantis' }),
    });
    expect(unknown).toMatchObject({
      status: 400,
      body: { code: 'BAD_REQUEST', message: expect.stringMatching(/^selectedBranch: /) },
    });
    const withoutPickup = await callService(mock, 'POST', 'tasks', {
      json: taskBody('ORD-Y', { selectedBranch: MOCK_DEFAULTS.branches[0].name }),
    });
    expect(withoutPickup).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/^selectedBranch: /) },
    });
    expect(mock.tasks).toEqual([]);
  });

  it('answers 400 with the path of the problem for malformed bodies, storing nothing', async () => {
    const cases: [string, Parameters<typeof callService>[3], RegExp][] = [
      [
        'not JSON',
        { text: '{"orderNumber":', extraHeaders: { 'content-type': 'application/json' } },
        /^body: /,
      ],
      [
        'no JSON content type',
        { text: JSON.stringify(taskBody('ORD-T')), extraHeaders: { 'content-type': 'text/plain' } },
        /^body: /,
      ],
      [
        'latitude out of range',
        { json: taskBody('ORD-L', { deliveryLocation: { latitude: 100, longitude: 48 } }) },
        /^deliveryLocation\.latitude: /,
      ],
      [
        'address line not text',
        { json: taskBody('ORD-F', { deliveryLocation: { ...salmiya, fullAddress: [1] } }) },
        /^deliveryLocation\.fullAddress\[0\]: /,
      ],
      [
        'totalAmount with 4 decimals',
        { json: taskBody('ORD-M', { totalAmount: '1.2345' }) },
        /^totalAmount: /,
      ],
      ['unknown field', { json: taskBody('ORD-U', { colour: 'red' }) }, /colour/],
      ['array body', { json: [1] }, /^body: /],
      [
        'other seller in the body',
        { json: taskBody('ORD-S', { sellerId: 'another-seller' }) },
        /^sellerId: /,
      ],
    ];
    for (const [label, options, message] of cases) {
      const result = await callService(mock, 'POST', 'tasks', options);
      expect({ label, status: result.status, code: (result.body as { code?: string }).code }).toEqual({
        label,
        status: 400,
        code: 'BAD_REQUEST',
      });
      expect((result.body as { message: string }).message).toMatch(message);
    }
    expect(mock.tasks).toEqual([]);
    expect(mock.wallet.feesCharged).toBe(0);
  });

  it('answers 404 for an unknown task id', async () => {
    const result = await callService(mock, 'GET', 'tasks/0123456789abcdef01234567');
    expect(result).toMatchObject({ status: 404, body: { message: 'Task not found', code: 'NOT_FOUND' } });
  });

  it('treats an encoded ../wallet-balance as a task id, never as the balance', async () => {
    const result = await callService(mock, 'GET', `tasks/${encodeURIComponent('../wallet-balance')}`);
    expect(result).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    expect(result.body).not.toHaveProperty('walletAmount');
    expect(mock.requestsFor('wallet.retrieveBalance')).toEqual([]);
    expect(mock.requestsFor('tasks.retrieve')).toHaveLength(1);
  });

  it('deducts the fee from the wallet exactly, in fils', async () => {
    const opening = mock.wallet;
    const near = await createTask(mock, taskBody('ORD-NEAR', { deliveryLocation: undefined }));
    const far = await createTask(mock, taskBody('ORD-FAR'));
    const fees = [near, far].map((task) => defaultFeeFils(task.travelDetail.totalDistance));
    expect(fees[0]).toBe(kwd.toFils(MOCK_DEFAULTS.pricing.baseFee));
    const expectedFils = opening.balanceFils - (fees[0] ?? 0) - (fees[1] ?? 0);
    expect(mock.wallet).toMatchObject({
      balanceFils: expectedFils,
      balance: expectedFils / 1000,
      feesChargedFils: (fees[0] ?? 0) + (fees[1] ?? 0),
      feesCharged: 2,
    });
    const balance = await callService(mock, 'GET', 'tasks/wallet-balance');
    expect(kwd.toFils((balance.body as { walletAmount: number }).walletAmount)).toBe(expectedFils);
  });

  it('serves the branches with ids and names', async () => {
    const result = await callService(mock, 'GET', 'tasks/branches');
    expect(result).toMatchObject({ status: 200, body: { branches: [...MOCK_DEFAULTS.branches] } });
  });

  it('estimates distance, time and price without creating a task', async () => {
    const result = await callService(mock, 'POST', 'tasks/estimate', {
      json: { from: MOCK_DEFAULTS.origin, to: salmiya },
    });
    const km = haversineKm(MOCK_DEFAULTS.origin, salmiya);
    const { travelDetail, price } = result.body as { travelDetail: TaskShape['travelDetail']; price: number };
    expect(result.status).toBe(200);
    expect(travelDetail.totalDistance).toBeCloseTo(km, 3);
    expect(travelDetail.duration).toBeCloseTo((km / 30) * 60, 1);
    expect(kwd.toFils(price)).toBe(defaultFeeFils(travelDetail.totalDistance));
    expect(mock.tasks).toEqual([]);
  });

  it('answers 400 for an estimate without both points', async () => {
    const result = await callService(mock, 'POST', 'tasks/estimate', { json: { from: salmiya } });
    expect(result).toMatchObject({
      status: 400,
      body: { code: 'BAD_REQUEST', message: expect.stringMatching(/^to: /) },
    });
  });
});

describe('a wallet below the fee', () => {
  const baseFeeFils = kwd.toFils(MOCK_DEFAULTS.pricing.baseFee);
  const mock = createMockDeliveryService({
    account: { type: 'wallet', balance: kwd.fromFils(baseFeeFils * 2 - 1) },
  });
  beforeAll(() => mock.listen());
  afterEach(() => mock.reset());
  afterAll(() => mock.close());

  it('rejects the create with 402, storing and charging nothing', async () => {
    await createTask(mock, taskBody('ORD-OK', { deliveryLocation: undefined }));
    const before = mock.wallet;
    expect(before.balanceFils).toBe(baseFeeFils - 1);
    const result = await callService(mock, 'POST', 'tasks', {
      json: taskBody('ORD-LOW', { deliveryLocation: undefined }),
    });
    expect(result).toEqual({
      status: 402,
      headers: expect.any(Headers),
      body: {
        message: `Insufficient wallet balance: ${kwd.fromFils(baseFeeFils - 1)} KWD available, ${kwd.fromFils(baseFeeFils)} KWD required`,
        code: 'INSUFFICIENT_BALANCE',
      },
    });
    expect(mock.wallet).toEqual(before);
    expect(mock.tasks.map((task) => task.orderNumber)).toEqual(['ORD-OK']);
  });
});

describe('a wallet holding exactly the fee', () => {
  const mock = createMockDeliveryService({
    account: { type: 'wallet', balance: MOCK_DEFAULTS.pricing.baseFee },
  });
  beforeAll(() => mock.listen());
  afterAll(() => mock.close());

  it('accepts the create: the minimum balance is the fee itself', async () => {
    await createTask(mock, taskBody('ORD-EXACT', { deliveryLocation: undefined }));
    expect(mock.wallet.balanceFils).toBe(0);
  });
});

describe('an invoice account', () => {
  const mock = createMockDeliveryService({ account: { type: 'invoice' }, pricing: { baseFee: 1000 } });
  beforeAll(() => mock.listen());
  afterEach(() => mock.reset());
  afterAll(() => mock.close());

  it('creates tasks without a balance check or deduction, invoicing the fees', async () => {
    await createTask(mock, taskBody('ORD-INV-1', { deliveryLocation: undefined }));
    await createTask(mock, taskBody('ORD-INV-2', { deliveryLocation: undefined }));
    expect(mock.wallet).toMatchObject({
      type: 'invoice',
      balanceFils: 0,
      feesCharged: 0,
      feesChargedFils: 0,
      invoiced: 2,
      invoicedFils: 2 * kwd.toFils(1000),
    });
  });

  it('reads a balance of 0 and refuses top-ups', async () => {
    expect((await callService(mock, 'GET', 'tasks/wallet-balance')).body).toEqual({ walletAmount: 0 });
    const topUp = await callService(mock, 'POST', 'tasks/wallet-topup', { json: { amount: 10 } });
    expect(topUp).toMatchObject({ status: 400, body: { code: 'INVOICE_ACCOUNT' } });
  });
});

describe('top-ups', () => {
  const issuedAt = Date.parse('2026-04-01T10:00:00.000Z');
  let time = issuedAt;
  const mock = createMockDeliveryService({
    now: () => new Date(time),
    account: { type: 'wallet', balance: 1 },
  });
  beforeAll(() => mock.listen());
  afterEach(() => {
    mock.reset();
    time = issuedAt;
  });
  afterAll(() => mock.close());

  async function requestTopUp(amount: unknown) {
    return callService(mock, 'POST', 'tasks/wallet-topup', { json: { amount } });
  }

  it('issues a payment link on the service origin that expires after 24 hours', async () => {
    const result = await requestTopUp(12.5);
    expect(result.status).toBe(200);
    const body = result.body as { paymentUrl: string; amount: number; expiresAt: string };
    expect(new URL(body.paymentUrl).origin).toBe(new URL(mock.baseUrl).origin);
    expect(body.amount).toBe(12.5);
    expect(Date.parse(body.expiresAt) - issuedAt).toBe(24 * 60 * 60 * 1000);
    expect(mock.wallet.balanceFils).toBe(kwd.toFils(1));
  });

  it('credits the wallet once when the payment completes', async () => {
    const { paymentUrl } = (await requestTopUp(5.125)).body as { paymentUrl: string };
    const expected = kwd.toNumber(kwd.add(1, 5.125));
    expect(mock.completeTopUp(paymentUrl)).toBe(expected);
    expect(mock.wallet.balance).toBe(expected);
    expect(() => mock.completeTopUp(paymentUrl)).toThrow(/already used/);
    expect(mock.wallet.balance).toBe(expected);
  });

  it('refuses an unknown or expired link', async () => {
    expect(() => mock.completeTopUp(`${mock.baseUrl}/pay/unknown`)).toThrow(/Unknown/);
    const { paymentUrl } = (await requestTopUp(5)).body as { paymentUrl: string };
    time = issuedAt + 24 * 60 * 60 * 1000;
    expect(() => mock.completeTopUp(paymentUrl)).toThrow(/expired/);
    expect(mock.wallet.balanceFils).toBe(kwd.toFils(1));
  });

  it('answers 400 for amounts below 5 KWD or with more than 3 decimals', async () => {
    for (const amount of [4.999, 0, -5, 5.0001, '10', null]) {
      const result = await requestTopUp(amount);
      expect({ amount, status: result.status, code: (result.body as { code?: string }).code }).toEqual({
        amount,
        status: 400,
        code: 'BAD_REQUEST',
      });
    }
    expect((await requestTopUp(5)).status).toBe(200);
  });
});

describe('a mock with branches given by name', () => {
  const mock = createMockDeliveryService({
    branches: ['Hawally', { name: 'Fahaheel', id: 'fh-1', area: 'Ahmadi' }],
  });
  beforeAll(() => mock.listen());
  afterAll(() => mock.close());

  it('turns names into { id, name } and keeps the fields of objects', async () => {
    const result = await callService(mock, 'GET', 'tasks/branches');
    expect(result.body).toEqual({
      branches: [
        { id: 'branch-1', name: 'Hawally' },
        { id: 'fh-1', name: 'Fahaheel', area: 'Ahmadi' },
      ],
    });
  });

  it('picks up at the origin for a branch without coordinates', async () => {
    const task = await createTask(
      mock,
      taskBody('ORD-HW', { customPickup: true, selectedBranch: 'Hawally' }),
    );
    expect(task.pickupLocation).toEqual(MOCK_DEFAULTS.origin);
  });
});
