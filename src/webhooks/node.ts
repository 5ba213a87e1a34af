/**
 * The node:http side of the webhook handler: reading a request body under a limit and a deadline, and
 * writing the answer to the response. Nothing here loads a Node module, and the request and response are
 * typed by what is used of them ({@link WebhookNodeRequest}, {@link WebhookNodeResponse}), not by
 * node:http's classes: the package's types then compile without `@types/node` (a browser, worker or
 * edge project), while node:http's, Express's and Fastify's raw request and response still fit.
 * @module
 */
import { type BodyRead, concatBytes, type WebhookAnswer } from './answer.js';

/**
 * The request the Node adapter reads: node:http's `IncomingMessage`, Express's `req` and Fastify's
 * `request.raw` all have this shape. Only these members are used.
 */
export interface WebhookNodeRequest {
  /** HTTP method; anything but POST is answered 405. */
  readonly method?: string | undefined;
  /** Request headers, names in lower case (`content-type`, `content-length` are read). */
  readonly headers: {
    readonly 'content-type'?: string | undefined;
    readonly 'content-length'?: string | undefined;
    readonly [name: string]: string | readonly string[] | undefined;
  };
  /** True once the body stream was read to its end (by a body parser, for instance). */
  readonly readableEnded: boolean;
  /** True once the request stream was destroyed. */
  readonly destroyed: boolean;
  /** The connection; destroyed after an answer that closes it (oversized or late body). */
  readonly socket?: { destroy(): unknown } | null | undefined;
  /** A body a parser already read (`express.json()` sets it); used instead of reading the stream. */
  readonly body?: unknown;
  /** Stream events: `data` chunks (bytes, or text after `setEncoding`), then `end`, or `error`/`close`. */
  on(event: 'data', listener: (chunk: Uint8Array | string) => void): unknown;
  on(event: 'end' | 'error' | 'close', listener: () => void): unknown;
  off(event: 'data', listener: (chunk: Uint8Array | string) => void): unknown;
  off(event: 'end' | 'error' | 'close', listener: () => void): unknown;
  /** Stops the flow of `data` events when reading is given up. */
  pause(): unknown;
}

/**
 * The response the Node adapter writes: node:http's `ServerResponse`, Express's `res` and Fastify's
 * `reply.raw` all have this shape. Only these members are used.
 */
export interface WebhookNodeResponse {
  /** True once the status line and headers were sent (then nothing is written). */
  readonly headersSent: boolean;
  /** True once `end()` was called (then nothing is written). */
  readonly writableEnded: boolean;
  /** True once the response stream was destroyed (then nothing is written). */
  readonly destroyed: boolean;
  /** `finish`: the answer was handed to the operating system; the connection may then be closed. */
  once(event: 'finish', listener: () => void): unknown;
  /** Sends the status and headers (all values strings). */
  writeHead(status: number, headers: Record<string, string>): unknown;
  /** Sends the body (JSON text) and ends the response. */
  end(body: string): unknown;
}

const encoder = new TextEncoder();

/**
 * Reads the body of `request`, stopping as soon as it exceeds `maxBodyBytes` or `bodyTimeoutMs` have
 * passed since the read began (a deadline for the whole body: bytes arriving slowly do not extend it).
 * On either, the stream is paused and its listeners removed; the answer then closes the connection. A
 * stream that was already read to its end (by a body parser that left nothing in `req.body`) reads as
 * zero bytes.
 */
export function readNodeBody(
  request: WebhookNodeRequest,
  maxBodyBytes: number,
  bodyTimeoutMs: number,
): Promise<BodyRead> {
  if (request.readableEnded) return Promise.resolve({ ok: true, bytes: new Uint8Array(0) });
  if (request.destroyed) return Promise.resolve({ ok: false, reason: 'unreadable' });
  return new Promise((resolve) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    const finish = (result: BodyRead): void => {
      clearTimeout(deadline);
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onFailure);
      request.off('close', onFailure);
      if (!result.ok) request.pause();
      resolve(result);
    };
    const deadline = setTimeout(() => finish({ ok: false, reason: 'timeout' }), bodyTimeoutMs);
    const onData = (chunk: Uint8Array | string): void => {
      const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
      size += bytes.byteLength;
      if (size > maxBodyBytes) {
        finish({ ok: false, reason: 'too_large' });
        return;
      }
      chunks.push(bytes);
    };
    const onEnd = (): void => finish({ ok: true, bytes: concatBytes(chunks, size) });
    const onFailure = (): void => finish({ ok: false, reason: 'unreadable' });
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onFailure);
    request.on('close', onFailure);
  });
}

/**
 * Writes the answer unless one was already sent. With `close`, the connection is closed once the answer
 * is out, so an oversized or late body is not read further and the socket is freed. Never throws.
 */
export function writeNodeAnswer(
  request: WebhookNodeRequest,
  response: WebhookNodeResponse,
  answer: WebhookAnswer,
): void {
  try {
    if (response.headersSent || response.writableEnded || response.destroyed) return;
    const headers: Record<string, string> = {
      ...answer.headers,
      'content-type': 'application/json',
      'content-length': String(encoder.encode(answer.body).byteLength),
    };
    if (answer.close === true) {
      headers.connection = 'close';
      response.once('finish', () => request.socket?.destroy());
    }
    response.writeHead(answer.status, headers);
    response.end(answer.body);
  } catch {
    // The connection is gone; there is no one left to answer.
  }
}
