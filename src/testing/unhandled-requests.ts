/**
 * What `mock.listen()` does with a request none of its handlers answers (docs/testing.md "Testing an app
 * with the mock"). By default the mock is the service and nothing else: a request to the service's origin
 * that no handler matches fails (a wrong path never reaches a network), and every other request (the app
 * under test on 127.0.0.1, a webhook receiver, a database over HTTP) goes through, with one warning naming
 * the first one. `onUnhandledFrame` `'error'`, `'warn'` or `'bypass'` applies msw's own strategy to every
 * request instead.
 * @module
 */

/** msw's strategies for a request no handler matches. */
export type UnhandledStrategy = 'error' | 'warn' | 'bypass';

/** What becomes of one unmatched request: refused, or sent on. */
export type UnhandledDecision = 'error' | 'bypass';

/**
 * The default: `'error'` for the mock's own origin, `'bypass'` for any other, warning once (through
 * `warn`, `console.warn` by default) with the first request let through.
 */
export function serviceOnly(
  baseUrl: string,
  warn: (message: string) => void = (message) => console.warn(message),
): (request: Request) => UnhandledDecision {
  const serviceOrigin = new URL(baseUrl).origin;
  let warned = false;
  return (request) => {
    const url = new URL(request.url);
    if (url.origin === serviceOrigin) return 'error';
    if (!warned) {
      warned = true;
      warn(
        `mock.listen(): ${request.method} ${url.origin}${url.pathname} is not the mock service's (${serviceOrigin}); ` +
          "it and every later such request go through to the network (listen({ onUnhandledFrame: 'error' }) refuses them)",
      );
    }
    return 'bypass';
  };
}
