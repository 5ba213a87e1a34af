/**
 * KWD amounts in requests have a stated maximum (`MAX_KWD_AMOUNT`): the SDK refuses more before
 * sending, the tools' MCP server reuses it (packages/tools/test/mcp/amount-maximum.test.ts), and the mock answers 400 beyond it.
 */
import { describe, expect, it } from 'vitest';
import { kwd, RequestValidationError } from '../../src/index.js';
import { KwdNumber, KwdText, Latitude, Longitude, MAX_KWD_AMOUNT } from '../../src/schemas.js';
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

  it('refuses a totalAmount too long to measure (101, 200, 60,000 digits) as over the maximum, sending nothing', async () => {
    for (const digits of [101, 200, 60_000]) {
      for (const amount of ['9'.repeat(digits), `${'1'.repeat(digits)}.5`, `${'0'.repeat(digits)}1`]) {
        expect(KwdText.safeParse(amount).success, `${digits} digits`).toBe(false);
        const error = await client()
          .tasks.create({ ...orderParams(`MAX-LONG-${digits}`), totalAmount: amount })
          .catch((caught: unknown) => caught);
        expect(error, `${digits} digits`).toBeInstanceOf(RequestValidationError);
        expect((error as RequestValidationError).issues.map((issue) => issue.path)).toEqual(['totalAmount']);
        expect((error as Error).message).toContain(MAX_KWD_AMOUNT);
      }
    }
    expect(mock.requestsFor('tasks.create')).toHaveLength(0);
    // What can be measured still passes: the maximum itself, with leading zeros within 100 digits.
    expect(KwdText.safeParse(MAX_KWD_AMOUNT).success).toBe(true);
    expect(KwdText.safeParse(`${'0'.repeat(80)}12.5`).success).toBe(true);
    expect(KwdText.safeParse('9007199254740.992').success).toBe(false);
  });

  it('refuses, in every bound, a number it cannot measure (NaN, ±Infinity) and an amount kwd cannot read', () => {
    for (const amount of [
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      1e101,
      Number.MAX_VALUE,
    ]) {
      expect(KwdNumber.safeParse(amount).success, String(amount)).toBe(false);
    }
    for (const coordinate of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(Latitude.safeParse(coordinate).success, String(coordinate)).toBe(false);
      expect(Longitude.safeParse(coordinate).success, String(coordinate)).toBe(false);
    }
    expect(kwd.isValid('9'.repeat(101))).toBe(false);
    expect(() => kwd.compare('9'.repeat(101), MAX_KWD_AMOUNT)).toThrow(RangeError);
    expect(() => kwd.toFils('9'.repeat(60_000))).toThrow(RangeError);
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
