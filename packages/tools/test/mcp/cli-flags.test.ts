/** `delivery-task mcp` flags → the policy. */
import { expect, it } from 'vitest';
import { mcpFlagsOf } from '../../src/cli/mcp.js';

it('is read-only without flags; --allow adds create and top-up', () => {
  expect(mcpFlagsOf([])).toEqual({ policy: { allow: ['read'] } });
  expect(mcpFlagsOf(['--allow', 'create,top-up'])?.policy.allow).toEqual(['read', 'create', 'topUp']);
  expect(mcpFlagsOf(['--help'])).toBeUndefined();
});

it('reads the money flags as KWD text, and the others', () => {
  const flags = mcpFlagsOf([
    '--max-fee-kwd',
    '2.5',
    '--daily-cap-kwd',
    '20',
    '--wallet-floor-kwd',
    'off',
    '--quote-max-age-seconds',
    '120',
    '--quote-margin-percent',
    '2.5',
    '--reveal-phones',
    '--redis',
    'redis://127.0.0.1:6379',
  ]);
  expect(flags).toEqual({
    policy: {
      allow: ['read'],
      maxFeeKwd: '2.500',
      dailyCapKwd: '20.000',
      walletFloorKwd: null,
      quoteMaxAgeSeconds: 120,
      quoteMarginPercent: 2.5,
      revealCustomerPhones: true,
    },
    redisUrl: 'redis://127.0.0.1:6379',
  });
});

it.each([
  [['--allow', 'delete']],
  [['--max-fee-kwd', '-1']],
  [['--daily-cap-kwd', '1.2345']],
  [['--quote-max-age-seconds', '0']],
  [['--quote-margin-percent', '101']],
  [['--redis', 'http://host']],
  [['--unknown']],
  [['positional']],
])('refuses %j', (argv) => {
  expect(() => mcpFlagsOf(argv)).toThrow();
});

it('lifts both limits with --no-limits, and only on its own', () => {
  expect(mcpFlagsOf(['--allow', 'create', '--no-limits'])?.policy).toMatchObject({
    maxFeeKwd: Number.POSITIVE_INFINITY,
    dailyCapKwd: Number.POSITIVE_INFINITY,
  });
  expect(() => mcpFlagsOf(['--no-limits', '--max-fee-kwd', '3'])).toThrow(/--no-limits lifts both limits/);
  expect(() => mcpFlagsOf(['--no-limits', '--daily-cap-kwd', '3'])).toThrow(/without --daily-cap-kwd/);
});

it('reads --confirmation and --store-file, and refuses a store file beside --redis', () => {
  expect(mcpFlagsOf(['--confirmation', 'elicitation'])?.policy.confirmation).toBe('elicitation');
  expect(() => mcpFlagsOf(['--confirmation', 'agent'])).toThrow(/--confirmation takes elicitation/);
  expect(mcpFlagsOf(['--store-file', '/tmp/x.json'])?.storeFile).toBe('/tmp/x.json');
  expect(() => mcpFlagsOf(['--store-file', '/tmp/x.json', '--redis', 'redis://h'])).toThrow(/give one/);
});
