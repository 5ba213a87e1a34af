/**
 * A response body read in decoded bytes against a cap, stopped by the attempt's signal, cancelled on failure.
 */

export type BodyText = { complete: true; text: string } | { complete: false };

/**
 * Reads `response.body` as UTF-8, counting decoded bytes (a compression bomb stops at `maxBytes`).
 * @throws the signal's reason when it aborts, or the stream's error.
 */
export async function readBodyText(
  response: Response,
  maxBytes: number,
  signal: AbortSignal,
): Promise<BodyText> {
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
