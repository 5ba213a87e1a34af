/**
 * A `fetch` that never settles and ignores its signal (a caller's wrapper that drops it, a runtime's or a
 * mock's interception that misses an abort) cannot hold a call: each attempt ends at its deadline, the
 * call at `totalTimeout`, and a caller's abort at once.
 */
import { describe, expect, it } from 'vitest';
import { APIConnectionTimeoutError, APIUserAbortError, DeliveryClient } from '../../src/index.js';

/** A client whose `fetch` returns a promise that never settles, counting its calls. */
function stuckClient(options: { timeout: number; maxRetries: number; totalTimeout?: number }) {
  let calls = 0;
  const client = new DeliveryClient({
    apiKey: 'key-of-the-stuck-client',
    sellerId: 'seller-of-the-stuck-client',
    baseUrl: 'https://delivery.test/rest',
    logLevel: 'off',
    ...options,
    fetch: () => {
      calls++;
      return new Promise<Response>(() => {});
    },
  });
  return { client, calls: () => calls };
}

describe('a fetch that never settles and ignores its signal', () => {
  it('ends each attempt at its timeout, and the call after its retries', async () => {
    const { client, calls } = stuckClient({ timeout: 100, maxRetries: 1 });
    const started = performance.now();
    const error = await client.tasks.retrieve('t1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(error).toMatchObject({ attempts: 2 });
    expect(calls()).toBe(2);
    // Two attempts of 100 ms and a backoff of at most 500 ms, with room for a busy machine.
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it('ends the call at its totalTimeout', async () => {
    const { client } = stuckClient({ timeout: 60_000, maxRetries: 2, totalTimeout: 200 });
    const started = performance.now();
    const error = await client.wallet.retrieveBalance().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it("ends the call at once when the caller aborts, with the caller's reason", async () => {
    const { client } = stuckClient({ timeout: 60_000, maxRetries: 0 });
    const controller = new AbortController();
    const reason = new Error('the caller left');
    setTimeout(() => controller.abort(reason), 50);
    const error = await client.tasks
      .retrieve('t1', { signal: controller.signal })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as APIUserAbortError).cause).toBe(reason);
  });
});
