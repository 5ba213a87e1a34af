import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockDeliveryService } from '../../src/testing.js';

// Under mock.listen(), msw 3.0 keeps about 45 KB per request of an answer sent without a length (a
// chunked body), for as long as the process lives: every answer of the mock states its length.
const mock = createMockDeliveryService({ account: { type: 'wallet', balance: 100 } });
const headers = {
  authorization: `apikey ${mock.apiKey}`,
  'x-seller-id': mock.sellerId,
  'content-type': 'application/json',
};
const create = {
  orderNumber: 'LEN-1',
  customerName: 'Fatima Al-Sabah',
  customerNumber: '+96550000001',
  deliveryLocation: { latitude: 29.3, longitude: 48.0, fullAddress: ['Block 1', 'Street 2'] },
  collectCash: false,
};

beforeAll(() => mock.listen());
afterAll(() => mock.close());

/** The declared length of the answer and the bytes of its body. */
async function lengths(
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; declared: string | null; actual: number }> {
  const response = await fetch(`${mock.baseUrl}${path}`, { ...init, headers });
  const declared = response.headers.get('content-length');
  const actual = (await response.arrayBuffer()).byteLength;
  return { status: response.status, declared, actual };
}

describe('every answer of the mock states its length', () => {
  it('for success answers: create, retrieve, list, estimate, branches, balance, top-up', async () => {
    const created = await fetch(`${mock.baseUrl}/tasks`, {
      method: 'POST',
      headers,
      body: JSON.stringify(create),
    });
    expect(created.headers.get('content-length')).toBe(
      String((await created.clone().arrayBuffer()).byteLength),
    );
    const { data } = (await created.json()) as { data: { createTask: { id: string } } };
    const answers = [
      await lengths(`/tasks/${data.createTask.id}`),
      await lengths('/tasks?page=1&limit=10'),
      await lengths('/tasks/estimate', {
        method: 'POST',
        body: JSON.stringify({
          from: { latitude: 29.37, longitude: 47.97 },
          to: { latitude: 29.33, longitude: 48.07 },
        }),
      }),
      await lengths('/tasks/branches'),
      await lengths('/tasks/wallet-balance'),
      await lengths('/tasks/wallet-topup', { method: 'POST', body: JSON.stringify({ amount: 5 }) }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.declared).toBe(String(answer.actual));
    }
  });

  it('for error answers and injected faults', async () => {
    const notFound = await lengths('/tasks/does-not-exist');
    expect(notFound.status).toBe(404);
    expect(notFound.declared).toBe(String(notFound.actual));
    mock.inject({ kind: 'status', status: 503, operation: 'wallet.retrieveBalance' });
    const injected = await lengths('/tasks/wallet-balance');
    expect(injected.status).toBe(503);
    expect(injected.declared).toBe(String(injected.actual));
    mock.inject({ kind: 'invalid-json', operation: 'wallet.retrieveBalance' });
    const notJson = await lengths('/tasks/wallet-balance');
    expect(notJson.status).toBe(200);
    expect(notJson.declared).toBe(String(notJson.actual));
    expect(notJson.actual).toBeGreaterThan(0);
  });
});
