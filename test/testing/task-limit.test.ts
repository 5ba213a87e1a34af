import { afterEach, describe, expect, it } from 'vitest';
import { ConfigurationError, DeliveryClient, NotFoundError } from '../../src/index.js';
import {
  createMockDeliveryService,
  type MockDeliveryService,
  type MockDeliveryServiceOptions,
} from '../../src/testing.js';

let mock: MockDeliveryService | undefined;
afterEach(() => mock?.close());

const order = (number: number) => ({
  orderNumber: `LIMIT-${number}`,
  customerName: 'Fatima Al-Sabah',
  customerNumber: '+96550000001',
  deliveryLocation: { latitude: 29.3, longitude: 48.0, fullAddress: ['Block 1', 'Street 2'] },
  collectCash: false,
});

describe('the task limit of the mock', () => {
  it('keeps the most recently created tasks, forgetting the oldest', async () => {
    mock = createMockDeliveryService({ account: { type: 'invoice' }, taskLimit: 3 });
    mock.listen();
    const client = new DeliveryClient({
      apiKey: mock.apiKey,
      sellerId: mock.sellerId,
      baseUrl: mock.baseUrl,
    });
    const ids: string[] = [];
    for (let number = 1; number <= 5; number++) ids.push((await client.tasks.create(order(number))).id ?? '');
    expect(mock.tasks.map((task) => task.orderNumber)).toEqual(['LIMIT-3', 'LIMIT-4', 'LIMIT-5']);
    const listed = await client.tasks.list().toArray();
    expect(listed.map((task) => task.id).sort()).toEqual(ids.slice(2).sort());
    await expect(client.tasks.retrieve(ids[0] ?? '')).rejects.toBeInstanceOf(NotFoundError);
    expect((await client.tasks.retrieve(ids[4] ?? '')).orderNumber).toBe('LIMIT-5');
  });

  it('keeps its seed tasks first in line to be forgotten, and has them back after reset()', async () => {
    mock = createMockDeliveryService({
      account: { type: 'invoice' },
      taskLimit: 2,
      tasks: [{ id: 'seed-1' }],
    });
    mock.listen();
    const client = new DeliveryClient({
      apiKey: mock.apiKey,
      sellerId: mock.sellerId,
      baseUrl: mock.baseUrl,
    });
    await client.tasks.create(order(1));
    expect(mock.tasks.map((task) => task.id)).toContain('seed-1');
    await client.tasks.create(order(2));
    expect(mock.tasks.map((task) => task.id)).not.toContain('seed-1');
    mock.reset();
    expect(mock.tasks.map((task) => task.id)).toEqual(['seed-1']);
  });

  it('refuses a limit that is not a positive integer or is below the seed tasks', () => {
    const cases: Array<[MockDeliveryServiceOptions, string]> = [
      [{ taskLimit: 0 }, 'Invalid taskLimit: expected an integer ≥ 1, got 0'],
      [{ taskLimit: 1.5 }, 'Invalid taskLimit: expected an integer ≥ 1, got 1.5'],
      [
        { taskLimit: 1, tasks: [{ id: 'a' }, { id: 'b' }] },
        'Invalid taskLimit: expected an integer ≥ the number of seed tasks (2), got 1',
      ],
    ];
    for (const [options, message] of cases) {
      const build = () => createMockDeliveryService(options);
      expect(build).toThrow(ConfigurationError);
      expect(build).toThrow(expect.objectContaining({ option: 'taskLimit', message }));
    }
  });
});
