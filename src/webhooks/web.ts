/**
 * The Web side of the webhook handler, standard APIs only (Node, Bun, Deno, edge workers).
 * @module
 */
import { type BodyRead, concatBytes, type WebhookAnswer } from './answer.js';

/**
 * Reads the body up to `maxBodyBytes` within `bodyTimeoutMs` of the start, cancelling the stream past either.
 */
export async function readRequestBody(
  request: Request,
  maxBodyBytes: number,
  bodyTimeoutMs: number,
): Promise<BodyRead> {
  if (request.bodyUsed) return { ok: false, reason: 'consumed' };
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

export function toResponse(answer: WebhookAnswer): Response {
  const headers = new Headers(answer.headers);
  headers.set('content-type', 'application/json');
  if (answer.close === true) headers.set('connection', 'close');
  return new Response(answer.body, { status: answer.status, headers });
}
