import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readBodyText } from '../../src/internal/body.js';

/** A response whose body arrives as `chunks`, one per read; `cancelled` records a cancel. */
function chunked(chunks: readonly Uint8Array[]): { response: Response; cancelled: () => boolean } {
  let cancelled = false;
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[next++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
    cancel() {
      cancelled = true;
    },
  });
  return { response: new Response(body), cancelled: () => cancelled };
}

/** `bytes` cut at `cuts` (offsets, any order, repeats allowed). */
function cut(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const offsets = [...new Set([0, ...cuts.map((at) => at % (bytes.length + 1)), bytes.length])].sort(
    (a, b) => a - b,
  );
  return offsets.slice(1).map((end, index) => bytes.subarray(offsets[index], end));
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('readBodyText', () => {
  it('reads any bytes, cut anywhere, as the whole-input UTF-8 decoder reads them', async () => {
    const text = fc
      .string({ unit: 'grapheme', maxLength: 40 })
      .map((value) => new TextEncoder().encode(value));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(text, fc.uint8Array({ maxLength: 64 })),
        fc.array(fc.nat(), { maxLength: 6 }),
        async (bytes, cuts) => {
          const { response } = chunked(cut(bytes, cuts));
          const read = await readBodyText(response, 1_000, new AbortController().signal);
          expect(read).toEqual({ complete: true, text: new TextDecoder().decode(bytes) });
        },
      ),
    );
  });

  it('keeps a character whose bytes arrive in two chunks, and drops a leading byte-order mark', async () => {
    const bytes = new TextEncoder().encode('\uFEFF{"zone":"حولي"}');
    const { response } = chunked([bytes.subarray(0, 2), bytes.subarray(2, 13), bytes.subarray(13)]);
    expect(await readBodyText(response, 1_000, new AbortController().signal)).toEqual({
      complete: true,
      text: '{"zone":"حولي"}',
    });
  });

  it('stops at the byte past maxBytes, counted over all chunks, and cancels the body', async () => {
    const chunk = new Uint8Array(40).fill(0x61);
    const atCap = chunked([chunk, chunk.subarray(0, 20)]);
    expect(await readBodyText(atCap.response, 60, new AbortController().signal)).toEqual({
      complete: true,
      text: 'a'.repeat(60),
    });
    const past = chunked([chunk, chunk.subarray(0, 21), chunk]);
    expect(await readBodyText(past.response, 60, new AbortController().signal)).toEqual({ complete: false });
    expect(past.cancelled()).toBe(true);
  });

  it('decodes the body once, whole, not chunk by chunk as a stream', async () => {
    const decode = vi.spyOn(TextDecoder.prototype, 'decode');
    const bytes = new TextEncoder().encode(JSON.stringify({ tasks: ['x'.repeat(5_000)] }));
    const { response } = chunked(cut(bytes, [1_000, 2_000, 3_000]));
    const read = await readBodyText(response, 10_000, new AbortController().signal);
    expect(read.complete && read.text.length).toBe(bytes.length);
    expect(decode).toHaveBeenCalledTimes(1);
    expect(decode.mock.calls[0]?.[1]).toBeUndefined();
  });

  it('throws the signal’s reason when it aborts between chunks, and cancels the body', async () => {
    const controller = new AbortController();
    const reason = new Error('attempt deadline');
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(stream) {
        stream.enqueue(new Uint8Array([0x7b]));
      },
      pull() {
        controller.abort(reason);
      },
      cancel() {
        cancelled = true;
      },
    });
    await expect(readBodyText(new Response(body), 1_000, controller.signal)).rejects.toBe(reason);
    expect(cancelled).toBe(true);
  });
});
