/**
 * The Web side of the webhook handler: reading a `Request` body under a limit and writing a
 * `Response`. Standard APIs only, so it runs on Node, Bun, Deno and edge workers.
 * @module
 */
import { type BodyRead, concatBytes, type WebhookAnswer } from './answer.js';

/**
 * Reads the body of `request`, stopping (and cancelling the stream) as soon as it exceeds `maxBodyBytes`.
 * A request without a body reads as zero bytes.
 */
export async function readRequestBody(request: Request, maxBodyBytes: number): Promise<BodyRead> {
  if (request.bodyUsed) return { ok: false, reason: 'unreadable' };
  const stream = request.body;
  if (stream === null) return { ok: true, bytes: new Uint8Array(0) };
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBodyBytes) {
        reader.cancel().catch(() => {});
        return { ok: false, reason: 'too_large' };
      }
      chunks.push(value);
    }
  } catch {
    return { ok: false, reason: 'unreadable' };
  }
  return { ok: true, bytes: concatBytes(chunks, size) };
}

/** The answer as a `Response` with a JSON body. */
export function toResponse(answer: WebhookAnswer): Response {
  const headers = new Headers(answer.headers);
  headers.set('content-type', 'application/json');
  if (answer.close === true) headers.set('connection', 'close');
  return new Response(answer.body, { status: answer.status, headers });
}
