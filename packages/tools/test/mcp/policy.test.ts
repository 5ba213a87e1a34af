/** The policy of `createMcpServer`: defaults, and every bad field refused with a `ConfigurationError` naming it. */

import { ConfigurationError, DeliveryClient, kwd, memoryStore } from 'delivery-task-sdk';
import { describe, expect, it } from 'vitest';
import { resolvePolicy } from '../../src/mcp/policy.js';
import {
  createMcpServer,
  DEFAULT_DAILY_CAP_KWD,
  DEFAULT_MAX_FEE_KWD,
  type McpPolicy,
} from '../../src/mcp.js';

const client = new DeliveryClient({
  apiKey: 'key',
  sellerId: 'seller',
  baseUrl: 'https://delivery.test',
  logLevel: 'off',
});

describe('resolvePolicy', () => {
  it('is read-only by default, with the stated limits, a wallet floor of 0, 10-minute quotes and no margin', () => {
    const policy = resolvePolicy(client);
    expect([...policy.allow]).toEqual(['read']);
    expect(policy).toMatchObject({
      maxFeeFils: kwd.toFils(DEFAULT_MAX_FEE_KWD),
      dailyCapFils: kwd.toFils(DEFAULT_DAILY_CAP_KWD),
      confirmation: 'elicitation-or-token',
      walletFloorFils: 0,
      quoteMaxAgeMs: 600_000,
      quoteMarginPercent: 0,
      revealCustomerPhones: false,
      subscriptionPollMs: 15_000,
    });
  });

  it('keeps the limits when bookings are allowed without them; Infinity lifts each', () => {
    const bounded = resolvePolicy(client, { allow: ['read', 'create'] });
    expect(bounded).toMatchObject({ maxFeeFils: 5000, dailyCapFils: 20_000 });
    const lifted = resolvePolicy(client, {
      allow: ['read', 'create'],
      maxFeeKwd: Number.POSITIVE_INFINITY,
      dailyCapKwd: Number.POSITIVE_INFINITY,
    });
    expect(lifted).toMatchObject({ maxFeeFils: undefined, dailyCapFils: undefined });
    expect(resolvePolicy(client, { dailyCapKwd: Number.POSITIVE_INFINITY }).maxFeeFils).toBe(5000);
  });

  it('reads amounts as exact fils, from numbers or text; null skips the wallet check', () => {
    const policy = resolvePolicy(client, { maxFeeKwd: 2.5, dailyCapKwd: '20.125', walletFloorKwd: null });
    expect(policy).toMatchObject({ maxFeeFils: 2500, dailyCapFils: 20_125, walletFloorFils: undefined });
  });

  it('shares one default store between the servers of one client', async () => {
    const first = resolvePolicy(client);
    const second = resolvePolicy(client);
    await first.store.setIfAbsent('k', 'v', 1000);
    expect(await second.store.get('k')).toBe('v');
  });

  it.each<[string, McpPolicy]>([
    ['policy.allow', { allow: ['read', 'delete' as 'read'] }],
    ['policy.allow', { allow: ['create'] }],
    ['policy.allow', { allow: 'create' } as unknown as McpPolicy],
    ['policy.maxFeeKwd', { maxFeeKwd: 1.2345 }],
    ['policy.maxFeeKwd', { maxFeeKwd: Number.NEGATIVE_INFINITY }],
    ['policy.dailyCapKwd', { dailyCapKwd: 'Infinity' }],
    ['policy.confirmation', { confirmation: 'agent' } as unknown as McpPolicy],
    ['policy.dailyCapKwd', { dailyCapKwd: -1 }],
    ['policy.dailyCapKwd', { dailyCapKwd: 'ten' }],
    ['policy.walletFloorKwd', { walletFloorKwd: Number.NaN }],
    ['policy.quoteMaxAgeSeconds', { quoteMaxAgeSeconds: 0 }],
    ['policy.quoteMarginPercent', { quoteMarginPercent: 101 }],
    ['policy.store', { store: {} } as unknown as McpPolicy],
    ['policy.deliverTopUpLink', { deliverTopUpLink: 'mail' } as unknown as McpPolicy],
    ['policy.maxFee', { maxFee: 2 } as McpPolicy],
  ])('refuses %s in %j', (option, policy) => {
    const thrown = (() => {
      try {
        resolvePolicy(client, policy);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(thrown).toBeInstanceOf(ConfigurationError);
    expect((thrown as ConfigurationError).option).toBe(option);
    expect((thrown as ConfigurationError).message).toMatch(
      new RegExp(`^Invalid ${option.replace('.', '\\.')}: expected .+, got .+$`),
    );
  });

  it.each<[McpPolicy, string]>([
    [
      { maxFee: 2 } as McpPolicy,
      'Invalid policy.maxFee: expected a known option (did you mean maxFeeKwd?), got a number',
    ],
    [
      { quoteMaxAgeSeconds: 0 },
      'Invalid policy.quoteMaxAgeSeconds: expected an integer from 1 to 86400, got 0',
    ],
    [
      { confirmation: 'agent' } as unknown as McpPolicy,
      "Invalid policy.confirmation: expected 'elicitation' or 'elicitation-or-token', got \"agent\"",
    ],
  ])('says what %j should be', (policy, message) => {
    expect(() => resolvePolicy(client, policy)).toThrow(message);
  });

  it('keeps the client secrets out of the message of an unknown field', () => {
    const apiKey = 'sk_live_policy_secret_4321';
    const keyed = new DeliveryClient({ apiKey, sellerId: 'seller', baseUrl: 'https://delivery.test' });
    expect(() => resolvePolicy(keyed, { [apiKey]: 1 } as McpPolicy)).toThrow(
      expect.objectContaining({
        option: 'policy.[redacted]',
        message: 'Invalid policy.[redacted]: expected a known option, got a number',
      }),
    );
  });

  it('accepts a store with the four operations', () => {
    expect(() => resolvePolicy(client, { store: memoryStore() })).not.toThrow();
  });
});

describe('createMcpServer', () => {
  it('needs a DeliveryClient of this SDK', () => {
    expect(() => createMcpServer({ tasks: {} } as unknown as DeliveryClient)).toThrow(ConfigurationError);
  });
});
