/**
 * `startMockHttpServer`: serves a mock over real HTTP on a loopback port, for clients that msw cannot
 * intercept (another process, another language, or a test of real socket behaviour). Faults keep their
 * network meaning: `network-error` and `commit-then-drop` destroy the socket, `stall-body` leaves the
 * response unfinished, `delay` holds it.
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getResponse } from 'msw';
import type { MockDeliveryService } from './types.js';

/** Options of {@link startMockHttpServer}. */
export interface MockHttpServerOptions {
  /** Interface to listen on. Default `'127.0.0.1'` (loopback only). */
  host?: string;
  /** Port; default 0 (any free port). */
  port?: number;
}

/** A running HTTP front of a mock. */
export interface MockHttpServer {
  /** Base URL to give the client: `http://<host>:<port>` plus the mock's base path (e.g. `/rest`). */
  readonly url: string;
  /** Stops listening and ends open connections. */
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return chunks.length === 0 ? undefined : new Uint8Array(Buffer.concat(chunks));
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
 * Serves `mock` over HTTP until `close()`. The mock need not `listen()`: requests are answered with its
 * handlers directly (msw's `getResponse`), rewritten from the server's address to `mock.baseUrl`.
 * Node.js only.
 */
export async function startMockHttpServer(
  mock: MockDeliveryService,
  options: MockHttpServerOptions = {},
): Promise<MockHttpServer> {
  const target = new URL(mock.baseUrl);
  const handlers = [...mock.handlers];
  const server = createServer((request, response) => {
    const closed = new AbortController();
    response.on('close', () => {
      if (!response.writableFinished) closed.abort();
    });
    void (async () => {
      try {
        const url = new URL(request.url ?? '/', target.origin);
        const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await readBody(request);
        const headers = new Headers();
        for (const [name, value] of Object.entries(request.headers)) {
          if (typeof value === 'string') headers.set(name, value);
          else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
        }
        const answer = await getResponse(
          handlers,
          new Request(url, { method: request.method ?? 'GET', headers, body: body ?? null, signal: closed.signal }),
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
      } catch {
        request.socket.destroy();
      }
    })();
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const path = target.pathname === '/' ? '' : target.pathname.replace(/\/$/, '');
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
