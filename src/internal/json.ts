/**
 * JSON parsing of response bodies: `null` members are treated as absent (the spec calls every field
 * optional; a server writing `null` for "not set" must not fail validation), `__proto__` keys are
 * dropped so no parsed body can change an object's prototype, and text nested deeper than
 * {@link MAX_JSON_DEPTH} is refused before parsing, so no later step (validation, redaction, logging)
 * can overflow the stack on a hostile body.
 */

/** Deepest nesting of arrays and objects accepted in a response body (a task is about 5 levels deep). */
export const MAX_JSON_DEPTH = 64;

/** True when the JSON text nests arrays or objects deeper than `max` (brackets inside strings do not count). */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c)
        index++; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > max) return true;
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return false;
}

function reviver(key: string, value: unknown): unknown {
  if (key === '__proto__') return undefined;
  // In arrays a dropped element would leave a hole; keep nulls there.
  return value === null && key !== '' && !/^\d+$/.test(key) ? undefined : value;
}

/**
 * Result of {@link parseJsonBody}: the value, or why the text is not usable JSON (`too_deep`: nested
 * past {@link MAX_JSON_DEPTH}, a hostile answer rather than an error page).
 */
export type JsonParseResult = { ok: true; value: unknown } | { ok: false; reason: string; tooDeep: boolean };

/** Parses a response body. An empty body is `undefined`. Never throws. */
export function parseJsonBody(text: string): JsonParseResult {
  if (text.trim() === '') return { ok: true, value: undefined };
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    return { ok: false, reason: `nested deeper than ${MAX_JSON_DEPTH} levels`, tooDeep: true };
  }
  try {
    return { ok: true, value: JSON.parse(text, reviver) };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : 'not JSON', tooDeep: false };
  }
}
