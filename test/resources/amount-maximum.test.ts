/**
 * KWD amounts in requests have a stated maximum (`MAX_KWD_AMOUNT`): the SDK refuses more before
 * sending, the tools' MCP server reuses it (packages/tools/test/mcp/amount-maximum.test.ts), and the mock answers 400 beyond it.
 */
import { describe, expect, it } from 'vitest';
import { MAX_KWD_AMOUNT, RequestValidationError } from '../../src/index.js';
import { orderParams, useMockService } from '../support/mock-service.js';

describe('the maximum KWD amount of a request', () => {
  const { mock, client } = useMockService({ account: { type: 'wallet', balance: '20' } });

  it('is the safe range of fils, and a top-up beyond it is refused without sending', async () => {
    expect(MAX_KWD_AMOUNT).toBe('9007199254740.991');
    for (const amount of [1e21, 9007199254741, Number.MAX_VALUE]) {
      const error = await client()
        .wallet.topUp({ amount })
        .catch((caught: unknown) => caught);
      expect(error, String(amount)).toBeInstanceOf(RequestValidationError);
      expect((error as RequestValidationError).issues[0]?.path).toBe('amount');
      expect((error as Error).message).toContain(MAX_KWD_AMOUNT);
    }
    expect(mock.requestsFor('wallet.topUp')).toHaveLength(0);
    await expect(client().wallet.topUp({ amount: 1_000_000 })).resolves.toMatchObject({ amount: 1_000_000 });
  });

  it('bounds totalAmount too', async () => {
    const error = await client()
      .tasks.create({ ...orderParams('MAX-1'), totalAmount: '10000000000000' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(mock.requestsFor('tasks.create')).toHaveLength(0);
  });

  it('is answered by the mock with a 400 beyond it', async () => {
    const response = await fetch(`${mock.baseUrl}/tasks/wallet-topup`, {
      method: 'POST',
      headers: {
        authorization: `apikey ${mock.apiKey}`,
        'x-seller-id': mock.sellerId,
        'content-type': 'application/json',
      },
      body: '{"amount":1e21}',
    });
    expect(response.status).toBe(400);
  });
});
