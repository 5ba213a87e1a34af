import { describe, expect, it } from 'vitest';
import { kwd } from '../../src/kwd.js';
import { MAX_KWD_AMOUNT } from '../../src/schemas/primitives.js';
import { Account, MAX_TOP_UP_LINKS, TopUpLinkError } from '../../src/testing/wallet.js';
import {
  createMockDeliveryService,
  type MockDeliveryService,
  observersOf,
  startMockHttpServer,
} from '../../src/testing.js';

describe('the mock account’s payment links', () => {
  it(`remembers at most ${MAX_TOP_UP_LINKS} links: one more forgets the oldest, which then reads as unknown`, () => {
    const account = new Account('wallet', 0);
    const issuedAt = new Date('2026-11-22T08:00:00Z');
    for (let index = 0; index <= MAX_TOP_UP_LINKS; index++) {
      account.issueTopUp(`https://delivery.test/pay/${index}`, 5000, issuedAt);
    }
    const at = new Date(issuedAt.getTime() + 1000);
    const oldest = (() => {
      try {
        account.completeTopUp('https://delivery.test/pay/0', at);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(oldest).toBeInstanceOf(TopUpLinkError);
    expect((oldest as TopUpLinkError).problem).toBe('unknown');
    expect(account.completeTopUp('https://delivery.test/pay/1', at)).toBe(5000);
    expect(account.completeTopUp(`https://delivery.test/pay/${MAX_TOP_UP_LINKS}`, at)).toBe(10_000);
  });
});

describe('amounts at the largest amount (MAX_KWD_AMOUNT)', () => {
  const headersOf = (mock: MockDeliveryService) => ({
    authorization: `apikey ${mock.apiKey}`,
    'x-seller-id': mock.sellerId,
    'content-type': 'application/json',
  });

  async function serve(balance: number) {
    const mock = createMockDeliveryService({ account: { type: 'wallet', balance } });
    const server = await startMockHttpServer(mock);
    const call = async (method: string, path: string, body?: string) => {
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: headersOf(mock),
        body: body ?? null,
      });
      return { status: response.status, text: await response.text() };
    };
    return { mock, server, call };
  }

  it('refuses with 400, storing nothing, a top-up that would take a wallet holding money past it', async () => {
    const { mock, server, call } = await serve(10);
    try {
      const refused = await call('POST', '/tasks/wallet-topup', `{"amount":${MAX_KWD_AMOUNT}}`);
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.text)).toMatchObject({
        code: 'BAD_REQUEST',
        message: expect.stringMatching(/^amount: /),
      });
      expect(observersOf(mock)?.topUps()).toEqual([]);
      const balance = await call('GET', '/tasks/wallet-balance');
      expect(balance.status).toBe(200);
      expect(JSON.parse(balance.text)).toEqual({ walletAmount: 10 });
    } finally {
      await server.close();
    }
  });

  it('refuses to credit a link whose payment would pass it, and every read still answers', async () => {
    const { mock, server, call } = await serve(0);
    try {
      const first = await call('POST', '/tasks/wallet-topup', `{"amount":${MAX_KWD_AMOUNT}}`);
      const second = await call('POST', '/tasks/wallet-topup', '{"amount":5}');
      expect([first.status, second.status]).toEqual([200, 200]);
      mock.completeTopUp(JSON.parse(second.text).paymentUrl);
      expect(() => mock.completeTopUp(JSON.parse(first.text).paymentUrl)).toThrow(RangeError);
      expect(mock.wallet.balanceFils).toBe(5000);
      expect((await call('GET', '/tasks/wallet-balance')).status).toBe(200);
      // The refused link can still be paid once the balance leaves room for it.
      expect(observersOf(mock)?.topUps()[0]?.paidAt).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it('issues a link for the exact amount asked, to the fil', async () => {
    const { mock, server, call } = await serve(0);
    try {
      for (const amount of [
        MAX_KWD_AMOUNT,
        '9007199254740.990',
        '9007199254739.999',
        '123456789012.345',
        '5.005',
      ]) {
        const answer = await call('POST', '/tasks/wallet-topup', `{"amount":${amount}}`);
        expect(answer.status, amount).toBe(200);
        const link = observersOf(mock)?.topUps().at(-1);
        expect(link?.amountFils, amount).toBe(kwd.toFils(amount));
        expect(answer.text).toContain(`"amount":${amount.replace(/\.?0+$/, '')}`);
        mock.reset();
      }
    } finally {
      await server.close();
    }
  });
});
