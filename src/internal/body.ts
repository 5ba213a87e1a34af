/**
 * Reading a response body with our own reader: counted in decoded bytes against a cap, stopped by the
 * attempt's signal, and cancelled on any failure so the transfer ends there (a body read with
 * `response.text()` keeps flowing after its request's signal fires once the headers are in).
 */

/** A body read to its end, or the sign that it went past the cap (the rest was not read). */
export type BodyText = { complete: true; text: string } | { complete: false };

/**
 * Reads `response.body` as UTF-8 text. Bytes are counted as the stream yields them, which is after
 * `Content-Encoding` is undone by fetch, so a compression bomb stops at `maxBytes` decoded bytes.
 * @returns `{ complete: false }` as soon as more than `maxBytes` arrive (the stream is cancelled).
 * @throws the signal's reason when `signal` aborts (the stream is cancelled), or the stream's own error.
 */
export async function readBodyText(response: Response, maxBytes: number, signal: AbortSignal): Promise<BodyText> {
  const stream = response.body;
  if (stream === null) return { complete: true, text: '' };
  const reader = stream.getReader();
  const cancel = (reason?: unknown) => {
    reader.cancel(reason).catch(() => {});
  };
  if (signal.aborted) {
    cancel(signal.reason);
    throw signal.reason;
  }
  // Cancelling settles a pending read at once, so an abort never waits for the next chunk.
  const onAbort = () => cancel(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (signal.aborted) throw signal.reason;
      if (done) return { complete: true, text: text + decoder.decode() };
      size += value.byteLength;
      if (size > maxBytes) {
        cancel();
        return { complete: false };
      }
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    cancel(error);
    throw error;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
