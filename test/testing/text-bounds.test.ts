/** The mock's bound on a task's text fields (src/testing/text-bounds.ts): 400 naming the field, nothing stored. */
import { describe, expect, it } from 'vitest';
import { MAX_TASK_TEXT_CHARS } from '../../src/testing/text-bounds.js';
import { createMockDeliveryService, startMockHttpServer } from '../../src/testing.js';
import { orderParams } from '../support/order-params.js';

describe(`a task's text fields (at most ${MAX_TASK_TEXT_CHARS} characters)`, () => {
  it('refuses a longer one with 400 naming it, storing and charging nothing; accepts one of the bound', async () => {
    const mock = createMockDeliveryService({ account: { type: 'wallet', balance: 100 } });
    const server = await startMockHttpServer(mock);
    const create = async (params: unknown) => {
      const response = await fetch(`${server.url}/tasks`, {
        method: 'POST',
        headers: {
          authorization: `apikey ${mock.apiKey}`,
          'x-seller-id': mock.sellerId,
          'content-type': 'application/json',
        },
        body: JSON.stringify(params),
      });
      return { status: response.status, body: (await response.json()) as { message?: string } };
    };
    try {
      const base = orderParams('ORD-TEXT-1');
      const refused = await create({ ...base, customerName: 'a'.repeat(200_000) });
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(/^customerName: at most 1000 characters, got 200000/);
      const nested = await create({
        ...base,
        deliveryLocation: { ...base.deliveryLocation, fullAddress: ['Block 1', 'x'.repeat(1001)] },
      });
      expect(nested.status).toBe(400);
      expect(nested.body.message).toMatch(/^deliveryLocation\.fullAddress\[1\]: at most 1000 characters/);
      expect(mock.tasks).toHaveLength(0);
      expect(mock.wallet.balance).toBe(100);
      const accepted = await create({ ...base, customerName: 'a'.repeat(MAX_TASK_TEXT_CHARS) });
      expect(accepted.status).toBe(200);
      expect(mock.tasks).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});
