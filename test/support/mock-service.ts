/**
 * One mock service per test file, with a client factory bound to it. The mock is the one merchants
 * get from `delivery-task-sdk/testing`.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type ClientOptions, DeliveryClient } from '../../src/index.js';
import { stopLateCommitChecks } from '../../src/resources/task-creation/late-commit.js';
import {
  createMockDeliveryService,
  type MockDeliveryService,
  type MockDeliveryServiceOptions,
} from '../../src/testing.js';

export interface MockServiceFixture {
  mock: MockDeliveryService;
  /** A client of the mock; logging off unless overridden, fast reconciliation. */
  client(overrides?: ClientOptions): DeliveryClient;
}

/** A client of `mock` with logging off; `overrides` win. */
export function clientOf(mock: MockDeliveryService, overrides: ClientOptions = {}): DeliveryClient {
  return new DeliveryClient({
    apiKey: mock.apiKey,
    sellerId: mock.sellerId,
    baseUrl: mock.baseUrl,
    logLevel: 'off',
    ...overrides,
  });
}

/**
 * Starts a mock for the enclosing describe/file; after each test, stops the late-commit checks its creates
 * left waiting (they would reach the next test's request log) and resets the mock.
 */
export function useMockService(options: MockDeliveryServiceOptions = {}): MockServiceFixture {
  // The `/rest` form of the address; test/testing covers the bare form too.
  const mock = createMockDeliveryService({ baseUrl: 'https://delivery.test/rest', ...options });
  beforeAll(() => mock.listen());
  afterEach(() => {
    stopLateCommitChecks();
    mock.reset();
  });
  afterAll(() => mock.close());
  return {
    mock,
    client: (overrides = {}) =>
      clientOf(mock, { reconciliation: { checks: 2, intervalMs: 5 }, listingDelayMs: 20, ...overrides }),
  };
}

export { orderParams } from './order-params.js';
