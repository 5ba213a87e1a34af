/**
 * The Web side of the webhook handler: reading a `Request` body under a limit and a deadline, and
 * writing a `Response`. Standard APIs only, so it runs on Node, Bun, Deno and edge workers.
 * @module
 */
import { type BodyRead, concatBytes, type WebhookAnswer } from './answer.js';

/**
 * Reads the body of `request`, stopping (and cancelling the stream) as soon as it exceeds `maxBodyBytes`
 * or `bodyTimeoutMs` have passed since the read began (a deadline for the whole body, not per chunk). A
 * request without a body reads as zero bytes.
 */
export async function readRequestBody(
  request: Request,
  maxBodyBytes: number,
  bodyTimeoutMs: number,
): Promise<BodyRead> {
  if (request.bodyUsed) return { ok: false, reason: 'unreadable' };
  const stream = request.body;
  if (stream === null) return { ok: true, bytes: new Uint8Array(0) };
  const reader = stream.getReader();
  const stop = (reason: 'too_large' | 'timeout'): BodyRead => {
    reader.cancel().catch(() => {});
    return { ok: false, reason };
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), bodyTimeoutMs);
  });
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), deadline]);
      if (next === 'timeout') return stop('timeout');
      if (next.done) break;
      size += next.value.byteLength;
      if (size > maxBodyBytes) return stop('too_large');
      chunks.push(next.value);
    }
  } catch {
    return { ok: false, reason: 'unreadable' };
  } finally {
    clearTimeout(timer);
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
