/**
 * JSON parsing of response bodies: `null` members are treated as absent (the spec calls every field
 * optional; a server writing `null` for "not set" must not fail validation), and `__proto__` keys are
 * dropped so no parsed body can change an object's prototype.
 */

function reviver(key: string, value: unknown): unknown {
  if (key === '__proto__') return undefined;
  // In arrays a dropped element would leave a hole; keep nulls there.
  return value === null && key !== '' && !/^\d+$/.test(key) ? undefined : value;
}

/** Result of {@link parseJsonBody}: the value, or the reason the text is not JSON. */
export type JsonParseResult = { ok: true; value: unknown } | { ok: false; reason: string };

/** Parses a response body. An empty body is `undefined`. */
export function parseJsonBody(text: string): JsonParseResult {
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text, reviver) };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : 'not JSON' };
  }
}
