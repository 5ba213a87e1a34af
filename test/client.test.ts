import { inspect } from 'node:util';
import { afterEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import packageJson from '../package.json' with { type: 'json' };
import { type ClientOptions, ConfigurationError, DeliveryClient } from '../src/index.js';
import { VERSION } from '../src/internal.js';

const valid = {
  apiKey: 'sk_live_client_test_key',
  sellerId: 'seller-client-test',
  baseUrl: 'https://delivery.test/rest',
};

function configurationErrorOf(build: () => unknown): ConfigurationError {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as ConfigurationError;
  }
  throw new Error('expected a ConfigurationError');
}

describe('DeliveryClient configuration', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.unstubAllGlobals();
  });

  it.each([
    ['apiKey', 'DELIVERY_API_KEY'],
    ['sellerId', 'DELIVERY_SELLER_ID'],
    ['baseUrl', 'DELIVERY_BASE_URL'],
  ] as const)('names the option %s and its env variable %s when it is missing', (option, env) => {
    vi.stubEnv(env, '');
    const error = configurationErrorOf(() => new DeliveryClient({ ...valid, [option]: undefined }));
    expect(error.option).toBe(option);
    expect(error.message).toContain(option);
    expect(error.message).toContain(env);
  });

  it.each([
    [
      'apiKey',
      { apiKey: 123 },
      /^Invalid apiKey: expected an API key of 1 to 4096 .*DELIVERY_API_KEY\), got a number$/,
    ],
    [
      'sellerId',
      { sellerId: { id: 1 } },
      /^Invalid sellerId: expected a seller id .*DELIVERY_SELLER_ID\), got an object$/,
    ],
    ['baseUrl', { baseUrl: 42 }, /^Invalid baseUrl: expected an https URL .*DELIVERY_BASE_URL\), got 42$/],
    [
      'maxRetry',
      { maxRetry: 3 },
      /^Invalid maxRetry: expected a known option \(did you mean maxRetries\?\), got a number$/,
    ],
    [
      'baseURL',
      { baseURL: 'https://delivery.test' },
      /^Invalid baseURL: expected a known option \(did you mean baseUrl\?\), got a string of 21 characters$/,
    ],
    [
      'somethingElse',
      { somethingElse: true },
      /^Invalid somethingElse: expected a known option, got a boolean$/,
    ],
    [
      'baseUrl',
      { baseUrl: 'https://delivery.test/rest?key=x' },
      /query or fragment.*, got "https:\/\/delivery.test\/rest\?key=x"$/,
    ],
    ['baseUrl', { baseUrl: 'https://delivery.test/rest#top' }, /query or fragment/],
    ['baseUrl', { baseUrl: 'https://delivery.test/rest?' }, /query or fragment/],
    ['fetch', { fetch: 'fetch' }, /^Invalid fetch: expected a function, got "fetch"$/],
    ['reconciliation', { reconciliation: null }, /^Invalid reconciliation: expected an object, got null$/],
    [
      'apiKy',
      { apiKy: 'sk_live_a_misspelt_secret' },
      /^Invalid apiKy: expected a known option \(did you mean apiKey\?\), got a string of 25 characters$/,
    ],
    [
      'reconciliation.checks',
      { reconciliation: { checks: 0 } },
      /^Invalid reconciliation.checks: expected an integer from 1 to 10, got 0$/,
    ],
    [
      'reconciliation.check',
      { reconciliation: { check: 1 } },
      /^Invalid reconciliation.check: expected a known option \(did you mean checks\?\), got a number$/,
    ],
    [
      'store',
      { store: {} },
      /^Invalid store: expected a DeliveryStore, e.g. memoryStore\(\), got an object$/,
    ],
    ['baseUrl', { baseUrl: 'https://user:pw@delivery.test' }, /, got "https:\/\/…@delivery.test"$/],
  ] as const)(
    'refuses %s given as %o with a ConfigurationError naming it, before anything is sent',
    (option, bad, message) => {
      const error = configurationErrorOf(
        () => new DeliveryClient({ ...valid, ...(bad as unknown as ClientOptions) }),
      );
      expect(error.option).toBe(option);
      expect(error.message).toMatch(message);
      expect(error.message).not.toContain(valid.apiKey);
    },
  );

  it('refuses options that are not an object, and names no secret in any message', () => {
    const error = configurationErrorOf(() => new DeliveryClient(5 as unknown as ClientOptions));
    expect(error.option).toBe('options');
    expect(error.message).toBe('Invalid options: expected an object, got 5');
    for (const [option, value] of [
      ['apiKey', 'sk_live\u0000secret-value'],
      ['sellerId', 'seller\u0007secret-value'],
    ] as const) {
      const refused = configurationErrorOf(() => new DeliveryClient({ ...valid, [option]: value }));
      expect(refused.message).toMatch(
        new RegExp(`^Invalid ${option}: expected .*, got a string of ${value.length} characters$`),
      );
      expect(refused.message).not.toContain('secret-value');
    }
  });

  it('reads the key, seller id, base URL and log level from the environment', () => {
    vi.stubEnv('DELIVERY_API_KEY', valid.apiKey);
    vi.stubEnv('DELIVERY_SELLER_ID', valid.sellerId);
    vi.stubEnv('DELIVERY_BASE_URL', 'https://env.delivery.test');
    const client = new DeliveryClient();
    expect(client.baseUrl).toBe('https://env.delivery.test/');
  });

  it('rejects a non-https base URL unless the host is loopback', () => {
    expect(
      configurationErrorOf(() => new DeliveryClient({ ...valid, baseUrl: 'http://delivery.example.com' }))
        .message,
    ).toMatch(/https/);
    expect(
      configurationErrorOf(() => new DeliveryClient({ ...valid, baseUrl: 'ftp://delivery.test' })).option,
    ).toBe('baseUrl');
    expect(configurationErrorOf(() => new DeliveryClient({ ...valid, baseUrl: 'not a url' })).option).toBe(
      'baseUrl',
    );
    for (const baseUrl of ['http://localhost:8080', 'http://127.0.0.1:3000/rest', 'http://[::1]:9000']) {
      expect(new DeliveryClient({ ...valid, baseUrl }).baseUrl.startsWith('http://')).toBe(true);
    }
  });

  it('normalises the base URL to end with one slash, with or without /rest', () => {
    expect(new DeliveryClient({ ...valid, baseUrl: 'https://h.test/rest' }).baseUrl).toBe(
      'https://h.test/rest/',
    );
    expect(new DeliveryClient({ ...valid, baseUrl: 'https://h.test/rest/' }).baseUrl).toBe(
      'https://h.test/rest/',
    );
    expect(new DeliveryClient({ ...valid, baseUrl: 'https://h.test' }).baseUrl).toBe('https://h.test/');
  });

  it.each([
    ['https://h.test/rest//', 'https://h.test/rest/'],
    ['https://h.test//', 'https://h.test/'],
    ['https://h.test//rest', 'https://h.test/rest/'],
    ['https://h.test///rest///v1//', 'https://h.test/rest/v1/'],
  ])('collapses repeated slashes in the base URL path: %s → %s', (baseUrl, normalised) => {
    expect(new DeliveryClient({ ...valid, baseUrl }).baseUrl).toBe(normalised);
  });

  it('sends requests under a base URL with a doubled slash to the single-slash path', async () => {
    const urls: string[] = [];
    const client = new DeliveryClient({
      ...valid,
      baseUrl: 'https://h.test/rest//',
      logLevel: 'off',
      fetch: async (input, init) => {
        urls.push(new Request(input, init).url);
        return Response.json({ walletAmount: 1, id: 'a/b' });
      },
    });
    await client.wallet.retrieveBalance();
    await client.tasks.retrieve('a/b');
    expect(urls).toEqual(['https://h.test/rest/tasks/wallet-balance', 'https://h.test/rest/tasks/a%2Fb']);
  });

  it('rejects invalid timeout, retry count, validation mode and log level', () => {
    expect(configurationErrorOf(() => new DeliveryClient({ ...valid, timeout: 0 })).option).toBe('timeout');
    expect(configurationErrorOf(() => new DeliveryClient({ ...valid, timeout: 1.5 })).option).toBe('timeout');
    expect(configurationErrorOf(() => new DeliveryClient({ ...valid, maxRetries: -1 })).option).toBe(
      'maxRetries',
    );
    expect(
      configurationErrorOf(() => new DeliveryClient({ ...valid, totalTimeout: Number.NaN })).option,
    ).toBe('totalTimeout');
    expect(
      configurationErrorOf(
        () => new DeliveryClient({ ...valid, validation: 'loose' as ClientOptions['validation'] & string }),
      ).option,
    ).toBe('validation');
    expect(
      configurationErrorOf(
        () => new DeliveryClient({ ...valid, logLevel: 'verbose' as ClientOptions['logLevel'] & string }),
      ).option,
    ).toBe('logLevel');
  });

  it('rejects a key or seller id no header can carry at construction, without showing it', () => {
    for (const [option, value] of [
      ['apiKey', 'sk_live_’quote'],
      ['apiKey', 'sk_live\r\nx-injected: 1'],
      ['sellerId', 'seller-٣'],
    ] as const) {
      const error = configurationErrorOf(() => new DeliveryClient({ ...valid, [option]: value }));
      expect(error.option).toBe(option);
      expect(error.message).not.toContain(value.trim());
    }
  });

  it('rejects maxResponseBytes out of range, and caps at 4 MiB by default', () => {
    expect(configurationErrorOf(() => new DeliveryClient({ ...valid, maxResponseBytes: 10 })).option).toBe(
      'maxResponseBytes',
    );
    expect(new DeliveryClient(valid).maxResponseBytes).toBe(4 * 1024 * 1024);
  });

  it('rejects reconciliation settings out of range, naming the setting', () => {
    expect(
      configurationErrorOf(() => new DeliveryClient({ ...valid, reconciliation: { checks: 0 } })).option,
    ).toBe('reconciliation.checks');
    expect(
      configurationErrorOf(() => new DeliveryClient({ ...valid, reconciliation: { intervalMs: -1 } })).option,
    ).toBe('reconciliation.intervalMs');
  });

  it('uses the documented defaults', () => {
    const client = new DeliveryClient(valid);
    expect(client.timeout).toBe(30_000);
    expect(client.maxRetries).toBe(2);
    expect(client.validation).toBe('tolerant');
  });

  it('refuses to construct in a browser unless dangerouslyAllowBrowser is set', () => {
    vi.stubGlobal('window', { document: {} });
    expect(configurationErrorOf(() => new DeliveryClient(valid)).option).toBe('dangerouslyAllowBrowser');
    expect(new DeliveryClient({ ...valid, dangerouslyAllowBrowser: true })).toBeInstanceOf(DeliveryClient);
  });

  it('never shows the API key or seller id when printed, inspected or serialised', () => {
    const client = new DeliveryClient(valid);
    for (const shown of [
      String(client),
      inspect(client, { depth: 10, showHidden: true }),
      JSON.stringify(client),
      `${client}`,
    ]) {
      expect(shown).not.toContain(valid.apiKey);
      expect(shown).not.toContain(valid.sellerId);
    }
    expect(inspect(client)).toContain('https://delivery.test/rest/');
  });

  it('keeps its version equal to package.json', () => {
    expect(VERSION).toBe(packageJson.version);
    expect(DeliveryClient.VERSION).toBe(packageJson.version);
  });

  it('types its options without any', () => {
    expectTypeOf<ClientOptions['apiKey']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<ClientOptions['timeout']>().toEqualTypeOf<number | undefined>();
    expectTypeOf(new DeliveryClient(valid).tasks.retrieve).returns.resolves.toHaveProperty('id');
  });
});
