/** The mock over real HTTP, for clients msw cannot intercept; faults act on the socket. @module */
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { getResponse } from 'msw';
import {
  allowedHostsOption,
  answerBadTarget,
  answerBodyTooLarge,
  answerFailure,
  BodyTooLargeError,
  closeServer,
  DEFAULT_MAX_BODY_BYTES,
  hostOption,
  listenOn,
  readBody,
  requestTarget,
} from '../internal/node-http.js';
import { optionsObject, upTo } from '../internal/option-checks.js';
import { readOptions } from '../internal/read-options.js';
import { routeOf, type ServiceAddress, segmentsAfterCollection, serviceAddress } from './routes.js';
import type { MockDeliveryService } from './types.js';

/** Options of {@link startMockHttpServer}. */
export interface MockHttpServerOptions {
  /** Interface to listen on. Default `'127.0.0.1'` (loopback only). */
  host?: string;
  /** Port; default 0 (any free port). */
  port?: number;
  /** Largest request body read, bytes; a longer one gets 413 `PAYLOAD_TOO_LARGE`. Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Host names (no port) answered besides `localhost`, `127.0.0.1`, `[::1]` and {@link host}, e.g.
   * `['mock']` for a container of that name; `'*'` answers any. A request whose `Host` names anything else
   * gets 403 `FOREIGN_HOST`, so that a web page whose name resolves to this machine (DNS rebinding) cannot
   * use the mock (docs/testing.md). Default: none.
   */
  allowedHosts?: readonly string[];
}

/** The shape of {@link MockHttpServerOptions}, its defaults applied. */
const MockHttpServerOptionsSchema = optionsObject(
  { host: hostOption, port: upTo(0, 65_535), maxBodyBytes: upTo(1), allowedHosts: allowedHostsOption },
  { host: '127.0.0.1', port: 0, maxBodyBytes: DEFAULT_MAX_BODY_BYTES, allowedHosts: [] },
);

/** A running HTTP front of a mock. */
export interface MockHttpServer {
  /** Base URL to give the client: `http://<host>:<port>` plus the mock's base path (e.g. `/rest`). */
  readonly url: string;
  /** Stops listening and ends open connections. */
  close(): Promise<void>;
}

async function pipeBody(
  body: ReadableStream<Uint8Array>,
  response: ServerResponse,
  closed: AbortSignal,
): Promise<void> {
  const reader = body.getReader();
  closed.addEventListener('abort', () => void reader.cancel().catch(() => {}), { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      response.write(value);
    }
    response.end();
  } catch {
    response.destroy();
  }
}

/**
 * Methods a fetch `Request` refuses to carry (the Fetch standard's forbidden methods): answered 405 before
 * one is made.
 */
const UNCARRIED_METHODS: ReadonlySet<string> = new Set(['CONNECT', 'TRACE', 'TRACK']);

/**
 * `Allow` of a 405 where no path says more (a `CONNECT`, whose target is no path): what the service serves.
 */
const SERVED_METHODS = 'GET, POST';

/**
 * Answers 405 `METHOD_NOT_ALLOWED` with `allow`, or 404 when nothing is served at `url`. The body is not
 * read:
 * the connection is closed after the answer when one was announced.
 */
function answerUncarriedMethod(
  request: IncomingMessage,
  response: ServerResponse,
  address: ServiceAddress,
  url: URL,
): void {
  const segments = segmentsAfterCollection(address, url);
  const route = segments === undefined ? undefined : routeOf(request.method ?? '', segments);
  if (request.headers['content-length'] !== undefined || request.headers['transfer-encoding'] !== undefined) {
    response.shouldKeepAlive = false;
  }
  if (route === undefined || (route.operation === 'unknown' && route.problem === 'not-found')) {
    response
      .writeHead(404, { 'content-type': 'application/json' })
      .end('{"message":"No mock route","code":"NOT_FOUND"}');
    return;
  }
  const allow =
    route.operation === 'unknown' && route.problem === 'method-not-allowed' ? route.allow : SERVED_METHODS;
  response.writeHead(405, { 'content-type': 'application/json', allow }).end(
    JSON.stringify({
      message: `Method ${request.method} is not allowed on ${url.pathname}`,
      code: 'METHOD_NOT_ALLOWED',
    }),
  );
}

/**
 * Answers a `CONNECT` (a server's `connect` event: no request listener sees it) with 405 and `allow`, then
 * closes the socket; without a listener Node closes it unanswered.
 */
function answerConnect(socket: Duplex, allow: string = SERVED_METHODS): void {
  const body = '{"message":"Method CONNECT is not allowed","code":"METHOD_NOT_ALLOWED"}';
  socket.on('error', () => socket.destroy());
  socket.end(
    `HTTP/1.1 405 Method Not Allowed\r\nallow: ${allow}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * A `node:http` listener serving `mock` (README "Testing your integration"); 413 over `maxBodyBytes` (1 MiB).
 */
export function mockRequestListener(
  mock: MockDeliveryService,
  maxBodyBytes: number = DEFAULT_MAX_BODY_BYTES,
): RequestListener {
  const target = new URL(mock.baseUrl);
  const address = serviceAddress(mock.baseUrl);
  const handlers = [...mock.handlers];
  return (request, response) => {
    const closed = new AbortController();
    response.on('close', () => {
      if (!response.writableFinished) closed.abort();
    });
    void (async () => {
      try {
        const url = requestTarget(request.url, target.origin);
        if (url === undefined) {
          answerBadTarget(response);
          return;
        }
        if (UNCARRIED_METHODS.has((request.method ?? '').toUpperCase())) {
          answerUncarriedMethod(request, response, address, url);
          return;
        }
        const body =
          request.method === 'GET' || request.method === 'HEAD'
            ? undefined
            : await readBody(request, maxBodyBytes);
        const headers = new Headers();
        for (const [name, value] of Object.entries(request.headers)) {
          if (typeof value === 'string') headers.set(name, value);
          else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
        }
        const answer = await getResponse(
          handlers,
          new Request(url, {
            method: request.method ?? 'GET',
            headers,
            body: body ?? null,
            signal: closed.signal,
          }),
        );
        if (!answer) {
          response
            .writeHead(404, { 'content-type': 'application/json' })
            .end('{"message":"No mock route","code":"NOT_FOUND"}');
          return;
        }
        if (answer.type === 'error') {
          request.socket.destroy();
          return;
        }
        const responseHeaders: Record<string, string> = {};
        answer.headers.forEach((value, name) => {
          responseHeaders[name] = value;
        });
        response.writeHead(answer.status, responseHeaders);
        response.flushHeaders();
        if (answer.body) await pipeBody(answer.body, response, closed.signal);
        else response.end();
      } catch (error) {
        if (error instanceof BodyTooLargeError && !response.headersSent) answerBodyTooLarge(response, error);
        else if (closed.signal.aborted) request.socket.destroy();
        else answerFailure(response, error);
      }
    })();
  };
}

/**
 * The `Host` values (`name:port`, lower case) a server on `host`:`port` answers: loopback names, `host`, and
 * `allowed`; `'any'` when `allowed` holds `'*'`.
 */
function answeredHosts(host: string, port: number, allowed: readonly string[]): ReadonlySet<string> | 'any' {
  if (allowed.includes('*')) return 'any';
  const bracketed = (name: string) => (name.includes(':') ? `[${name}]` : name);
  const names = ['localhost', '127.0.0.1', '[::1]', bracketed(host), ...allowed.map(bracketed)];
  return new Set(names.map((name) => `${name}:${port}`.toLowerCase()));
}

/**
 * Answers 403 `FOREIGN_HOST` once the body is read and discarded (at most `maxBytes` of it, then at once and
 * the connection closed): a client still sending when the connection closed would see a reset.
 */
function refuseForeignHost(request: IncomingMessage, response: ServerResponse, maxBytes: number): void {
  let length = 0;
  const answer = () => {
    if (response.headersSent) return;
    response.shouldKeepAlive = false;
    refuse(response);
  };
  request.on('data', (chunk: Buffer) => {
    length += chunk.length;
    if (length > maxBytes) answer();
  });
  request.once('end', answer);
  request.once('error', () => response.destroy());
}

function refuse(response: ServerResponse): void {
  response.writeHead(403, { 'content-type': 'application/json', connection: 'close' }).end(
    JSON.stringify({
      message:
        'The mock answers requests addressed to its own host name only (localhost, 127.0.0.1); give startMockHttpServer allowedHosts to answer another',
      code: 'FOREIGN_HOST',
    }),
  );
}

/**
 * Serves `mock` over HTTP until `close()`; Node.js only. A request whose `Host` is not the server's own
 * (see {@link MockHttpServerOptions.allowedHosts}) gets 403 `FOREIGN_HOST`, its body unread.
 * @throws {ConfigurationError} for a bad or unknown option, as `Invalid <path>: expected <what>, got <value>`
 * (`maxBodyBytes`, `allowedHosts.0`, …); the server's `EADDRINUSE`.
 */
export async function startMockHttpServer(
  mock: MockDeliveryService,
  options: MockHttpServerOptions = {},
): Promise<MockHttpServer> {
  const {
    host,
    port,
    maxBodyBytes,
    allowedHosts: allowed,
  } = readOptions(MockHttpServerOptionsSchema, options);
  const listener = mockRequestListener(mock, maxBodyBytes);
  let hosts: ReadonlySet<string> | 'any' = new Set();
  const server = createServer((request, response) => {
    const named = request.headers.host?.toLowerCase();
    if (hosts !== 'any' && named !== undefined && !hosts.has(named))
      refuseForeignHost(request, response, maxBodyBytes);
    else listener(request, response);
  });
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => answerConnect(socket));
  const origin = await listenOn(server, host, port);
  hosts = answeredHosts(host, (server.address() as AddressInfo).port, allowed);
  const { pathname } = new URL(mock.baseUrl);
  const path = pathname === '/' ? '' : pathname.replace(/\/$/, '');
  return {
    url: `${origin}${path}`,
    close: () => closeServer(server),
  };
}
