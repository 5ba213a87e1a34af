/**
 * The SDK over real sockets: the mock served by node:http on 127.0.0.1 (no msw interception in this
 * process), so dropped connections, stalled bodies and timeouts are the network's own.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  DeliveryClient,
  NotFoundError,
  TaskCreationOutcomeUnknownError,
} from '../../src/index.js';
import { createMockDeliveryService, type MockHttpServer, startMockHttpServer } from '../../src/testing.js';
import { orderParams } from '../support/mock-service.js';
import { REFUSED_URL } from '../support/refused-url.js';

const mock = createMockDeliveryService({ account: { type: 'wallet', balance: 500 } });
let server: MockHttpServer;
const client = (overrides: ConstructorParameters<typeof DeliveryClient>[0] = {}) =>
  new DeliveryClient({
    apiKey: mock.apiKey,
    sellerId: mock.sellerId,
    baseUrl: server.url,
    logLevel: 'off',
    reconciliation: { checks: 2, intervalMs: 10 },
    // The service lists a task at once: a lookup before a resend need not wait the default 10 s.
    listingDelayMs: 100,
    ...overrides,
  });

beforeAll(async () => {
  server = await startMockHttpServer(mock);
});
afterEach(() => mock.reset());
afterAll(async () => {
  await server.close();
  mock.close();
});

describe('over real HTTP', () => {
  it('serves every endpoint on both path forms', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const baseUrl of [server.url, `${server.url}/rest`]) {
      const sdk = client({ baseUrl });
      const task = await sdk.tasks.create(orderParams(`HTTP-${baseUrl.length}`));
      expect((await sdk.tasks.retrieve(task.id ?? '')).id).toBe(task.id);
      expect((await sdk.tasks.list().toArray()).map((listed) => listed.id)).toContain(task.id);
      expect(
        (
          await sdk.tasks.estimate({
            from: { latitude: 29.37, longitude: 47.97 },
            to: { latitude: 29.33, longitude: 48.07 },
          })
        ).price,
      ).toBeGreaterThan(0);
      expect((await sdk.branches.list()).length).toBeGreaterThan(0);
      expect((await sdk.wallet.retrieveBalance()).walletAmount).toBeLessThan(500);
      expect((await sdk.wallet.topUp({ amount: 5 })).paymentUrl).toMatch(/^https:/);
      await expect(sdk.tasks.retrieve('000000000000000000000000')).rejects.toBeInstanceOf(NotFoundError);
    }
    expect(mock.requests.map((request) => request.path)).toContain('/rest/tasks');
    expect(mock.requests.map((request) => request.path)).toContain('/tasks');
  });

  it.each([
    ['commit-then-drop', { kind: 'commit-then-drop' }],
    ['drop-before-commit', { kind: 'network-error' }],
    ['headers then a stalled body', { kind: 'stall-body' }],
    ['delay past the timeout', { kind: 'delay', ms: 600 }],
    ['503', { kind: 'status', status: 503 }],
  ] as const)('creates exactly one task after %s on a real socket', async (name, fault) => {
    mock.inject({ operation: 'tasks.create', ...fault });
    const task = await client({ timeout: 300 }).tasks.create(orderParams(`REAL-${name}`));
    const stored = mock.tasks.filter((each) => each.orderNumber === `REAL-${name}`);
    expect(stored.map((each) => each.id)).toEqual([task.id]);
    expect(mock.wallet.feesCharged).toBe(1);
  });

  it('reports a dropped create without an order number as an unknown outcome', async () => {
    mock.inject({ operation: 'tasks.create', kind: 'commit-then-drop' });
    const { orderNumber: _none, ...params } = orderParams('x');
    const error = await client()
      .tasks.create(params)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TaskCreationOutcomeUnknownError);
    expect((error as Error).cause).toBeInstanceOf(APIConnectionError);
  });

  it('times out a stalled body and retries a dropped read', async () => {
    mock.inject({ operation: 'wallet.retrieveBalance', kind: 'stall-body', times: 3 });
    const error = await client({ timeout: 200, maxRetries: 2 })
      .wallet.retrieveBalance()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect((error as APIConnectionTimeoutError).attempts).toBe(3);
    mock.inject({ operation: 'wallet.retrieveBalance', kind: 'network-error' });
    expect((await client().wallet.retrieveBalance()).walletAmount).toBe(500);
  });

  it('refuses a closed port at once and names the system error', async () => {
    const error = await client({ baseUrl: REFUSED_URL, maxRetries: 0 })
      .wallet.retrieveBalance()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as APIConnectionError).code).toBe('ECONNREFUSED');
  });

  it('runs the main job with --live against a configured service, skipping the mock-only step', async () => {
    const tsx = createRequire(import.meta.url).resolve('tsx/cli');
    const child = spawn(process.execPath, [tsx, 'examples/quickstart.ts', '--live'], {
      env: {
        ...process.env,
        DELIVERY_BASE_URL: `${server.url}/rest`,
        DELIVERY_API_KEY: mock.apiKey,
        DELIVERY_SELLER_ID: mock.sellerId,
      },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(output).toContain(`Using the service at ${server.url}/rest/`);
    expect(output).toContain('Walked 25 of 25 tasks with for await over 3 pages');
    expect(output).toContain('6. Skipped');
    expect(output).toContain('Done.');
    expect(code).toBe(0);
    expect(mock.tasks).toHaveLength(25);
  }, 60_000);
});
