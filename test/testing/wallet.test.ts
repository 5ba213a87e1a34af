import { describe, expect, it } from 'vitest';
import { Account, MAX_TOP_UP_LINKS, TopUpLinkError } from '../../src/testing/wallet.js';

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
