/**
 * The options of `startMockHttpServer` are read by a schema: each bad one throws `ConfigurationError` in the
 * one form, `Invalid <path>: expected <what>, got <value>`, before anything listens.
 */
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/index.js';
import {
  createMockDeliveryService,
  type MockHttpServerOptions,
  startMockHttpServer,
} from '../../src/testing.js';

describe('startMockHttpServer options', () => {
  it.each<[object, string, string]>([
    [{ maxBodyBytes: 0 }, 'maxBodyBytes', 'Invalid maxBodyBytes: expected an integer ≥ 1, got 0'],
    [{ port: 70_000 }, 'port', 'Invalid port: expected an integer from 0 to 65535, got 70000'],
    [{ host: '' }, 'host', 'Invalid host: expected a host name or address, got ""'],
    [
      { allowedHosts: 'mock' },
      'allowedHosts',
      'Invalid allowedHosts: expected an array of host names, got "mock"',
    ],
    [
      { allowedHosts: ['mock', 'mock:8080'] },
      'allowedHosts.1',
      'Invalid allowedHosts.1: expected a host name without a port, or "*" for any host, got "mock:8080"',
    ],
    [
      { allowedHost: ['mock'] },
      'allowedHost',
      'Invalid allowedHost: expected a known option (did you mean allowedHosts?), got an array',
    ],
  ])('refuses %o as ConfigurationError naming %s', async (options, option, message) => {
    const mock = createMockDeliveryService();
    const failure = await startMockHttpServer(mock, options as MockHttpServerOptions).then(
      (server) => server.close().then(() => undefined),
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ConfigurationError);
    expect(failure).toMatchObject({ option, message });
  });
});
