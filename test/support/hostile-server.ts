/**
 * A hostile service on 127.0.0.1: each test says how to answer, with the real mock (served over HTTP)
 * behind it to forward to, so an answer can lie after the service has really committed. Tracks the
 * responses still open, so a test can see when a client stopped a transfer (idle keep-alive sockets do
 * not count).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type ClientOptions, DeliveryClient } from '../../src/index.js';
import { createMockDeliveryService, type MockHttpServer, startMockHttpServer } from '../../src/testing.js';

/** What the mock answered to a forwarded request. */
export interface Forwarded {
  status: number;
  headers: Headers;
  body: string;
}

/** Answers one request; `body` is the request body, `forward` sends it on to the mock. */
export type HostileHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  context: { body: Buffer; forward(): Promise<Forwarded> },
) => void | Promise<void>;

export interface HostileServer {
  /** Base URL for the client (with the `/rest` form). */
  readonly url: string;
  readonly mock: ReturnType<typeof createMockDeliveryService>;
  /** Sets how the next requests are answered (default: forwarded as they are). */
  use(handler: HostileHandler): void;
  /** Resolves once every response has ended or its connection closed, or rejects after `ms`. */
  responsesClosed(ms: number): Promise<void>;
  /**
   * Each request as its headers arrived, in order (`POST /rest/tasks`), with how its body ended:
   * ` (read)` once whole, ` (cut)` when its connection ended first; the last 50. For a failure's message.
   */
  requestsBegun(): readonly string[];
  close(): Promise<void>;
}

const passThrough: HostileHandler = async (_request, response, { forward }) => {
  const answer = await forward();
  response.writeHead(answer.status, Object.fromEntries(answer.headers));
  response.end(answer.body);
};

/** A client of `hostile` with its credentials, logging off, and `overrides` on top. */
export function hostileClient(hostile: HostileServer, overrides: ClientOptions = {}): DeliveryClient {
  return new DeliveryClient({
    apiKey: hostile.mock.apiKey,
    sellerId: hostile.mock.sellerId,
    baseUrl: hostile.url,
    logLevel: 'off',
    ...overrides,
  });
}

export async function startHostileServer(): Promise<HostileServer> {
  const mock = createMockDeliveryService({
    baseUrl: 'http://mock.invalid/rest',
    account: { type: 'wallet', balance: 5000 },
  });
  const backend: MockHttpServer = await startMockHttpServer(mock);
  let handler: HostileHandler = passThrough;
  const sockets = new Set<Socket>();
  const open = new Set<ServerResponse>();
  const begun: { line: string; body: string }[] = [];
  const server = createServer(async (request, response) => {
    open.add(response);
    response.once('close', () => open.delete(response));
    const begin = { line: `${request.method} ${new URL(request.url ?? '/', 'http://x').pathname}`, body: '' };
    begun.push(begin);
    if (begun.length > 50) begun.shift();
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of request) chunks.push(chunk as Buffer);
    } catch (error) {
      begin.body = ' (cut)';
      throw error;
    }
    begin.body = ' (read)';
    const body = Buffer.concat(chunks);
    const forward = async (): Promise<Forwarded> => {
      const target = new URL(request.url ?? '/', backend.url.replace(/\/rest$/, ''));
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === 'string' && name !== 'host' && name !== 'content-length')
          headers.set(name, value);
      }
      const answer = await fetch(target, {
        method: request.method ?? 'GET',
        headers,
        ...(body.length > 0 ? { body } : {}),
      });
      const text = await answer.text();
      const forwardedHeaders = new Headers(answer.headers);
      forwardedHeaders.delete('content-length');
      forwardedHeaders.delete('transfer-encoding');
      return { status: answer.status, headers: forwardedHeaders, body: text };
    };
    try {
      await handler(request, response, { body, forward });
    } catch {
      response.destroy();
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // Room for every connection the multi-process tests open at once: a full accept queue holds one back by
  // TCP's retransmissions, and the request its client gave up on reaches the mock seconds later.
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/rest`,
    mock,
    use: (next) => {
      handler = next;
    },
    responsesClosed: async (ms) => {
      const until = Date.now() + ms;
      while (open.size > 0) {
        if (Date.now() > until) throw new Error(`${open.size} response(s) still open after ${ms} ms`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    requestsBegun: () => begun.map(({ line, body }) => line + body),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await backend.close();
      mock.close();
    },
  };
}
