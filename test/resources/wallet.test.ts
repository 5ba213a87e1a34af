import { describe, expect, expectTypeOf, it } from 'vitest';
import { BadRequestError, kwd, RequestValidationError } from '../../src/index.js';
import type { WalletBalance, WalletTopUp } from '../../src/schemas.js';
import { orderParams, useMockService } from '../support/mock-service.js';

describe('wallet on a wallet account', () => {
  const { mock, client } = useMockService({ account: { type: 'wallet', balance: '20.125' } });

  it('reads the balance from tasks/wallet-balance with both auth headers', async () => {
    const balance = await client().wallet.retrieveBalance();
    expect(balance).toEqual({ walletAmount: 20.125 });
    const [request] = mock.requestsFor('wallet.retrieveBalance');
    expect(request?.method).toBe('GET');
    expect(request?.path).toBe('/rest/tasks/wallet-balance');
    expect(request?.headers.authorization).toBe(`apikey ${mock.apiKey}`);
    expect(request?.headers['x-seller-id']).toBe(mock.sellerId);
  });

  it('requests a top-up link, and the wallet is credited once the payment completes', async () => {
    const topUp = await client().wallet.topUp({ amount: 12.5 });
    const [request] = mock.requestsFor('wallet.topUp');
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/rest/tasks/wallet-topup');
    expect(request?.body).toEqual({ amount: 12.5 });
    expect(topUp.paymentUrl).toMatch(/^https:\/\//);
    expect(topUp.amount).toBe(12.5);
    const expiresIn = Date.parse(topUp.expiresAt ?? '') - Date.now();
    expect(expiresIn).toBeGreaterThan(23.9 * 3600_000);
    expect(expiresIn).toBeLessThanOrEqual(24 * 3600_000);

    expect((await client().wallet.retrieveBalance()).walletAmount).toBe(20.125);
    mock.completeTopUp(topUp.paymentUrl);
    expect((await client().wallet.retrieveBalance()).walletAmount).toBe(
      kwd.toNumber(kwd.add('20.125', '12.5')),
    );
  });

  it('rejects a top-up under 5 KWD, with more than 3 decimals, or not finite, without sending', async () => {
    for (const amount of [
      4.999,
      5.0001,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      -10,
      '10' as unknown as number,
    ]) {
      const error = await client()
        .wallet.topUp({ amount })
        .catch((caught: unknown) => caught);
      expect(error, String(amount)).toBeInstanceOf(RequestValidationError);
      expect((error as RequestValidationError).issues[0]?.path).toBe('amount');
    }
    expect(mock.requests).toHaveLength(0);
  });

  it('never retries a top-up', async () => {
    mock.inject({ operation: 'wallet.topUp', kind: 'status', status: 503 });
    await expect(client().wallet.topUp({ amount: 5 })).rejects.toMatchObject({ status: 503 });
    expect(mock.requestsFor('wallet.topUp')).toHaveLength(1);
  });

  it('types balance and top-up', () => {
    expectTypeOf(client().wallet.retrieveBalance).returns.resolves.toEqualTypeOf<WalletBalance>();
    expectTypeOf(client().wallet.topUp).returns.resolves.toEqualTypeOf<WalletTopUp>();
    expectTypeOf<WalletBalance['walletAmount']>().toEqualTypeOf<number>();
  });
});

describe('wallet on an invoice account', () => {
  const { mock, client } = useMockService({ account: { type: 'invoice' } });

  it('creates tasks without a balance check and reads a zero balance', async () => {
    const sdk = client();
    for (let index = 0; index < 3; index++) await sdk.tasks.create(orderParams(`INV-${index}`));
    expect(mock.tasks).toHaveLength(3);
    expect((await sdk.wallet.retrieveBalance()).walletAmount).toBe(0);
  });

  it('refuses a top-up with BadRequestError', async () => {
    const error = await client()
      .wallet.topUp({ amount: 10 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).code).toBe('INVOICE_ACCOUNT');
  });
});
