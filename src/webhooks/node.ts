/**
 * The node:http side of the webhook handler. The request and response are typed by what is used of them,
 * not by node:http's classes, so the package's types compile without `@types/node`.
 * @module
 */
import { type BodyRead, concatBytes, type WebhookAnswer } from './answer.js';

/**
 * What the Node adapter uses of node:http's `IncomingMessage`, Express's `req` or Fastify's `request.raw`.
 */
export interface WebhookNodeRequest {
  readonly method?: string | undefined;
  /** Lower-case names (`content-type`, `content-length` are read). */
  readonly headers: {
    readonly 'content-type'?: string | undefined;
    readonly 'content-length'?: string | undefined;
    readonly [name: string]: string | readonly string[] | undefined;
  };
  readonly readableEnded: boolean;
  readonly destroyed: boolean;
  /** Destroyed after an answer that closes the connection. */
  readonly socket?: { destroy(): unknown } | null | undefined;
  /** A body a parser already read (`express.json()`); used instead of the stream. */
  readonly body?: unknown;
  on(event: 'data', listener: (chunk: Uint8Array | string) => void): unknown;
  on(event: 'end' | 'error' | 'close', listener: () => void): unknown;
  off(event: 'data', listener: (chunk: Uint8Array | string) => void): unknown;
  off(event: 'end' | 'error' | 'close', listener: () => void): unknown;
  pause(): unknown;
}

/** What the Node adapter uses of node:http's `ServerResponse`, Express's `res` or Fastify's `reply.raw`. */
export interface WebhookNodeResponse {
  readonly headersSent: boolean;
  readonly writableEnded: boolean;
  readonly destroyed: boolean;
  once(event: 'finish', listener: () => void): unknown;
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body: string): unknown;
}

const encoder = new TextEncoder();

/**
 * Reads the body up to `maxBodyBytes` within `bodyTimeoutMs` of the start (the whole body); a stream that
 * already ended was read by someone else (`consumed`).
 */
export function readNodeBody(
  request: WebhookNodeRequest,
  maxBodyBytes: number,
  bodyTimeoutMs: number,
): Promise<BodyRead> {
  if (request.readableEnded) return Promise.resolve({ ok: false, reason: 'consumed' });
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
 * Writes the answer unless one was sent; with `close`, closes the connection once it is out. Never throws.
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
  } catch {}
}
