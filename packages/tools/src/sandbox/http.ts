/** The sandbox's HTTP plumbing: bounded body reads, request targets, the last-resort 500, listen and close. */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

/** Largest request body read by default, bytes. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
}

/**
 * Reads a request body, at most `maxBytes` of it; `undefined` when empty.
 * @throws {BodyTooLargeError} as soon as the body (or its `content-length`) exceeds `maxBytes`.
 */
export async function readBody(
  request: IncomingMessage,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const tooLarge = () => new BodyTooLargeError(`The request body exceeds ${maxBytes} bytes`);
  if (Number(request.headers['content-length'] ?? 0) > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of request) {
    length += (chunk as Buffer).length;
    if (length > maxBytes) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return chunks.length === 0 ? undefined : new Uint8Array(Buffer.concat(chunks));
}

/** Answers 413 `PAYLOAD_TOO_LARGE` and closes the connection. */
export function answerBodyTooLarge(response: ServerResponse, error: BodyTooLargeError): void {
  response
    .writeHead(413, { 'content-type': 'application/json', connection: 'close' })
    .end(JSON.stringify({ message: error.message, code: 'PAYLOAD_TOO_LARGE' }));
}

/**
 * A request target as a URL under `base`, read as a path (`//x/tasks` is that path, never the host `x`);
 * an absolute-form target keeps its path and query. `undefined` otherwise: see {@link answerBadTarget}.
 */
export function requestTarget(target: string | undefined, base: string): URL | undefined {
  const origin = new URL(base).origin;
  try {
    if (target?.startsWith('/')) {
      new URL(target, origin); // throws for a target no URL parser reads (`//[`)
      return new URL(`${origin}${target}`);
    }
    if (target === undefined || !/^https?:\/\//i.test(target)) return undefined;
    const absolute = new URL(target);
    return new URL(`${origin}${absolute.pathname}${absolute.search}`);
  } catch {
    return undefined;
  }
}

/** Answers 400 `BAD_REQUEST` to a request target that is not a URL path. */
export function answerBadTarget(response: ServerResponse): void {
  response
    .writeHead(400, { 'content-type': 'application/json' })
    .end('{"message":"The request target is not a URL path","code":"BAD_REQUEST"}');
}

/**
 * Discards an unneeded request body (at most `maxBytes`, else closes after answering), then runs `run`:
 * a client still sending when the connection closed would see a reset. Exceptions go to {@link answerFailure}.
 */
export function answerAfterBody(
  request: IncomingMessage,
  response: ServerResponse,
  run: () => void,
  maxBytes: number = DEFAULT_MAX_BODY_BYTES,
): void {
  const answer = () => {
    try {
      run();
    } catch (error) {
      answerFailure(response, error);
    }
  };
  const declared = request.headers['content-length'];
  const framed = declared !== undefined || request.headers['transfer-encoding'] !== undefined;
  if (request.readableEnded || !framed || Number(declared ?? 0) > maxBytes) {
    if (framed && !request.readableEnded) response.shouldKeepAlive = false;
    answer();
    return;
  }
  let length = 0;
  let answered = false;
  const once = () => {
    if (answered) return;
    answered = true;
    answer();
  };
  request.on('data', (chunk: Buffer) => {
    length += chunk.length;
    if (length > maxBytes) {
      response.shouldKeepAlive = false;
      once();
    }
  });
  request.once('end', once);
  request.once('error', () => response.destroy());
}

/** `Allow` of the 405 answering a `CONNECT`: the methods the sandbox serves somewhere. */
export const SANDBOX_METHODS = 'GET, HEAD, POST, DELETE';

/**
 * Answers a `CONNECT` (the server's `connect` event, which no request listener sees; unheard, Node closes
 * the socket unanswered) with 405 and `Allow`, then closes the socket.
 */
export function answerConnect(socket: Duplex): void {
  const body = '{"message":"Method CONNECT is not allowed","code":"METHOD_NOT_ALLOWED"}';
  socket.on('error', () => socket.destroy());
  socket.end(
    `HTTP/1.1 405 Method Not Allowed\r\nallow: ${SANDBOX_METHODS}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** Last resort: answers 500 `INTERNAL_SERVER_ERROR` naming the failure, or destroys a started answer. */
export function answerFailure(response: ServerResponse, error: unknown): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const message = `The mock failed: ${error instanceof Error ? error.message : String(error)}`;
  response
    .writeHead(500, { 'content-type': 'application/json', connection: 'close' })
    .end(JSON.stringify({ message, code: 'INTERNAL_SERVER_ERROR' }));
}

/**
 * Listens on `host`:`port` and returns `http://<host>:<port>` (IPv6 in brackets).
 * @throws the server's `error` (e.g. `EADDRINUSE`) when it cannot listen.
 */
export async function listenOn(server: Server, host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

/** Stops listening, ends every open connection, resolves once closed. */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
