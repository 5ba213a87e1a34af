/**
 * The node:http side of the webhook handler: reading an `IncomingMessage` body under a limit and a
 * deadline, and writing the answer to a `ServerResponse`. Types only from node:http: nothing here loads
 * a Node module.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type BodyRead, concatBytes, type WebhookAnswer } from './answer.js';

const encoder = new TextEncoder();

/**
 * Reads the body of `request`, stopping as soon as it exceeds `maxBodyBytes` or `bodyTimeoutMs` have
 * passed since the read began (a deadline for the whole body: bytes arriving slowly do not extend it).
 * On either, the stream is paused and its listeners removed; the answer then closes the connection. A
 * stream that was already read to its end (by a body parser that left nothing in `req.body`) reads as
 * zero bytes.
 */
export function readNodeBody(request: IncomingMessage, maxBodyBytes: number, bodyTimeoutMs: number): Promise<BodyRead> {
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
export function writeNodeAnswer(request: IncomingMessage, response: ServerResponse, answer: WebhookAnswer): void {
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
