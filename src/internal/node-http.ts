/**
 * Node HTTP plumbing shared by the mock's HTTP server and the tools' sandbox: bounded body reads,
 * request targets read as paths, the 413, 400 and last-resort 500 answers, listen and close, the check of
 * a Host allow-list.
 * @module
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { type AddressInfo, isIP } from 'node:net';
import * as z from 'zod/mini';
import { accepted } from './option-checks.js';

/** Largest request body read by default: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** A request body longer than the bytes allowed; see {@link answerBodyTooLarge}. */
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
}

/**
 * @returns the body's bytes, `undefined` when empty. @throws {BodyTooLargeError} past `maxBytes`, reading no
 * further.
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

/**
 * Answers 413 `{ message, code: 'PAYLOAD_TOO_LARGE' }` and closes the connection (the rest of the body is not
 * read).
 */
export function answerBodyTooLarge(response: ServerResponse, error: BodyTooLargeError): void {
  response
    .writeHead(413, { 'content-type': 'application/json', connection: 'close' })
    .end(JSON.stringify({ message: error.message, code: 'PAYLOAD_TOO_LARGE' }));
}

/**
 * A request target as a URL under `base`; `//x/tasks` stays a path, never the host `x`. `undefined`: answer
 * 400.
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

/** Answers 400 `{ message, code: 'BAD_REQUEST' }` to a request target that is not a URL path. */
export function answerBadTarget(response: ServerResponse): void {
  response
    .writeHead(400, { 'content-type': 'application/json' })
    .end('{"message":"The request target is not a URL path","code":"BAD_REQUEST"}');
}

/**
 * Last resort: 500 `INTERNAL_SERVER_ERROR` naming the failure, or destroys the socket once the answer
 * started.
 */
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
 * Connections waiting to be accepted (the OS caps it: `net.core.somaxconn`). Past it a connection waits
 * for TCP's retransmissions (1, 2, 4, 8 s…), and a request its client gave up on meanwhile is still
 * served when it arrives (docs/several-instances.md "Stalls").
 */
const ACCEPT_BACKLOG = 4096;

/** @returns `http://<host>:<port>` (IPv6 in brackets). @throws the server's `error` (`EADDRINUSE`). */
export async function listenOn(server: Server, host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen({ port, host, backlog: ACCEPT_BACKLOG }, () => {
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

/** Whether `name` can be an entry of `allowedHosts`: a host name or IPv6 address without a port, or `'*'`. */
export function isAllowedHost(name: unknown): name is string {
  return (
    typeof name === 'string' && (name === '*' || /^[A-Za-z0-9._-]{1,253}$/.test(name) || isIP(name) === 6)
  );
}

/** The `host` option of the mock's HTTP server and of the sandbox: the interface to listen on. */
export const hostOption = z.optional(
  accepted<string>((value) => typeof value === 'string' && value.trim() !== '', 'a host name or address'),
);

/**
 * The `allowedHosts` option of the mock's HTTP server and of the sandbox: host names without a port, or
 * `'*'` (see {@link isAllowedHost}).
 */
export const allowedHostsOption = z.optional(
  z.readonly(
    z.array(
      accepted<string>(isAllowedHost, 'a host name without a port, or "*" for any host'),
      'an array of host names',
    ),
  ),
);
