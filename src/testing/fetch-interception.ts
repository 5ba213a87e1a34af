/**
 * `mock.listen()` before Node.js 22.12: `globalThis.fetch` answered by the handlers (not `node:http`).
 * @module
 */
import { getResponse, type HttpHandler, isPassthroughResponse } from 'msw';
import type { UnhandledDecision, UnhandledStrategy } from './unhandled-requests.js';

/**
 * An interception in place. `close()` stops it answering: when it is still `globalThis.fetch`, the `fetch`
 * before it comes back (before every interception closed beneath it); otherwise (another took its place
 * since) it passes every request on, and is skipped when the one above it closes.
 */
export interface FetchInterception {
  close(): void;
}

/** Each closed interception still in the chain of `fetch`, to the `fetch` beneath it that is not one. */
const closedBeneath = new WeakMap<typeof globalThis.fetch, typeof globalThis.fetch>();

/**
 * Replaces `globalThis.fetch`; unmatched: `'error'` rejects with a `TypeError`, else the previous `fetch`
 * (a function decides per request).
 */
export function interceptFetch(
  handlers: readonly HttpHandler[],
  onUnhandled: UnhandledStrategy | ((request: Request) => UnhandledDecision),
): FetchInterception {
  const previous = globalThis.fetch;
  let closed = false;
  const intercepting: typeof globalThis.fetch = async (input, init) => {
    if (closed) return previous(input, init);
    const request = new Request(input, init);
    // getResponse reads the body: the original stays readable for a passthrough.
    const answer = await getResponse([...handlers], request.clone());
    if (answer === undefined) {
      const described = `${request.method} ${new URL(request.url).origin}${new URL(request.url).pathname}`;
      const onUnhandledFrame = typeof onUnhandled === 'function' ? onUnhandled(request) : onUnhandled;
      if (onUnhandledFrame === 'error') {
        throw new TypeError(`fetch failed: no handler of the mock matches ${described} (mock.listen())`);
      }
      if (onUnhandledFrame === 'warn')
        console.warn(`mock.listen(): no handler of the mock matches ${described}; sent on`);
      return previous(request);
    }
    if (isPassthroughResponse(answer)) return previous(request);
    if (answer.type === 'error')
      throw new TypeError('fetch failed', { cause: new Error('the mock dropped the connection') });
    return answer;
  };
  globalThis.fetch = intercepting;
  return {
    close() {
      closed = true;
      if (globalThis.fetch === intercepting) globalThis.fetch = closedBeneath.get(previous) ?? previous;
      else closedBeneath.set(intercepting, closedBeneath.get(previous) ?? previous);
    },
  };
}
