/**
 * The mock's `drift` fault (README "Schema drift"): answers drift from their documented types, and a
 * client reading tolerantly sees the same values, each drift reported.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryClient, type SchemaDrift } from '../../src/index.js';
import { createMockDeliveryService } from '../../src/testing.js';
import { orderParams } from '../support/order-params.js';
import { callService } from './calls.js';

const mock = createMockDeliveryService({ account: { type: 'wallet', balance: 50 } });
beforeAll(() => mock.listen());
afterEach(() => mock.reset());
afterAll(() => mock.close());

function client(drifts: SchemaDrift[] = [], validation: 'tolerant' | 'strict' = 'tolerant') {
  return new DeliveryClient({
    apiKey: mock.apiKey,
    sellerId: mock.sellerId,
    baseUrl: mock.baseUrl,
    logLevel: 'off',
    validation,
    onDrift: (drift) => drifts.push(drift),
  });
}

/** `value` without the `x-drift` members the `unknown-fields` mutation adds, at every level. */
function withoutUnknownFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUnknownFields);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'x-drift')
      .map(([key, member]) => [key, withoutUnknownFields(member)]),
  );
}

describe('the drift fault', () => {
  it('sends numbers as text, booleans as text and unknown fields, by default all of its mutations', async () => {
    mock.inject({ kind: 'drift', operation: 'wallet.retrieveBalance' });
    const { body } = await callService(mock, 'GET', 'tasks/wallet-balance');
    expect(body).toStrictEqual({
      walletAmount: '50',
      'x-drift': { note: 'a field the contract does not list' },
    });
    expect(mock.requests[0]?.fault).toBe('drift');
  });

  it('applies only the mutations named', async () => {
    const { id } = await client().tasks.create({
      ...orderParams('ORD-F1'),
      totalAmount: '12.500',
      collectCash: true,
    });
    mock.inject({
      kind: 'drift',
      operation: 'tasks.retrieve',
      mutations: ['money-as-numbers', 'booleans-as-numbers'],
    });
    const { body } = await callService(mock, 'GET', `tasks/${id}`);
    const task = body as Record<string, unknown>;
    expect(task.totalAmount).toBe(12.5);
    expect(task.collectCash).toBe(1);
    expect(typeof (task.travelDetail as Record<string, unknown>).totalDistance).toBe('number');
    expect(task['x-drift']).toBeUndefined();
  });

  it('refuses an unknown mutation', () => {
    expect(() => mock.inject({ kind: 'drift', mutations: ['upside-down' as 'numbers-as-text'] })).toThrow(
      TypeError,
    );
  });

  it('leaves a tolerant client reading the same values, with every drift reported', async () => {
    const sdk = client();
    const created = await sdk.tasks.create({
      ...orderParams('ORD-F2'),
      totalAmount: '12.500',
      collectCash: true,
    });
    const plain = await sdk.tasks.retrieve(created.id);
    const drifts: SchemaDrift[] = [];
    mock.inject({ kind: 'drift', times: Number.POSITIVE_INFINITY });
    const drifted = await client(drifts).tasks.retrieve(created.id);
    // `deliveryLocation` is not a field of the Task resource: unknown to the schema, it is kept as it came.
    const { deliveryLocation, ...documented } = withoutUnknownFields(drifted) as typeof drifted;
    const { deliveryLocation: sent, ...plainDocumented } = plain;
    expect(documented).toStrictEqual({ ...plainDocumented, totalAmount: '12.5' });
    expect(deliveryLocation).toStrictEqual({
      ...(sent as object),
      latitude: '29.3339',
      longitude: '48.0761',
    });
    expect(drifts.map((drift) => drift.path)).toEqual(
      expect.arrayContaining(['totalAmount', 'collectCash', 'pickupLocation.latitude']),
    );
    const page = await client().tasks.list();
    expect(page.page).toBe(1);
    expect(page.tasks[0]?.id).toBe(created.id);
  });

  it('makes a strict client throw, so a merchant can see which mode their code needs', async () => {
    mock.inject({ kind: 'drift', operation: 'wallet.retrieveBalance' });
    await expect(client([], 'strict').wallet.retrieveBalance()).rejects.toThrow(/walletAmount/);
  });
});
