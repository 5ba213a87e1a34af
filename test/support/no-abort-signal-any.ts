/**
 * Runs the client in a process without `AbortSignal.any` (as on edge-runtime 4), removed before ky and
 * the SDK load: a caller signal with a total deadline, a caller abort, and a per-attempt timeout. Prints
 * one JSON line with what happened. Used by test/internal/abort.test.ts.
 */
Object.defineProperty(AbortSignal, 'any', { value: undefined, configurable: true });
const { DeliveryClient } = await import('../../src/index.js');

let hang = false;
/** Requests in flight, held as a real fetch holds them (fetch's signal follows its source through a WeakRef). */
const inFlight = new Set<unknown>();
const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
  const signal = input instanceof Request ? input.signal : init?.signal;
  inFlight.add(input);
  if (hang) {
    await new Promise((_, reject) =>
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true }),
    );
  }
  return new Response(JSON.stringify({ walletAmount: 7 }), {
    headers: { 'content-type': 'application/json' },
  });
};
const client = new DeliveryClient({
  apiKey: 'key-no-any',
  sellerId: 'seller-no-any',
  baseUrl: 'https://delivery.test',
  fetch,
  maxRetries: 0,
});
const outcome = (promise: Promise<unknown>) =>
  promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error: (error as Error).name }),
  );
const caller = new AbortController();
const answered = await outcome(client.wallet.retrieveBalance({ signal: caller.signal, totalTimeout: 5000 }));
hang = true;
const pending = outcome(client.wallet.retrieveBalance({ signal: caller.signal, totalTimeout: 5000 }));
setTimeout(() => caller.abort(), 20);
const aborted = await pending;
const timedOut = await outcome(client.wallet.retrieveBalance({ timeout: 30 }));
console.log(JSON.stringify({ any: typeof AbortSignal.any, answered, aborted, timedOut }));

export {};
