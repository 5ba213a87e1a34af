/**
 * JSON parsing of response bodies: `null` members read as absent (the spec calls every field optional),
 * `__proto__` keys dropped, and a body nested deeper than {@link MAX_JSON_DEPTH} refused, so no later
 * step can overflow the stack.
 */

/** Deepest nesting of arrays and objects accepted in a response body (a task is about 5 levels deep). */
export const MAX_JSON_DEPTH = 64;

/** Longest body parsed without first scanning its nesting ({@link nestsDeeperThan}), in characters. */
export const UNSCANNED_JSON_CHARS = 16_384;

const PROTO_KEY = '__proto__';

/** Result of {@link parseJsonBody}: the value, or why the text is not usable JSON. */
export type JsonParseResult = { ok: true; value: unknown } | { ok: false; reason: string; tooDeep: boolean };

/**
 * Whether `value` (at nesting level `depth`) nests at most {@link MAX_JSON_DEPTH} levels; removes `null`
 * members and `__proto__` keys from it, in place.
 */
export function withinDepth(value: object, depth: number): boolean {
  if (depth > MAX_JSON_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      if (typeof item === 'object' && item !== null && !withinDepth(item, depth + 1)) return false;
    }
    return true;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const item = record[key];
    // A `__proto__` own key, copied later by assignment, would set the copy's prototype.
    if (item === null || key === PROTO_KEY) delete record[key];
    else if (typeof item === 'object' && !withinDepth(item, depth + 1)) return false;
  }
  return true;
}

/** True when the JSON text nests deeper than `maxDepth`; one pass, run before `JSON.parse` on long bodies. */
export function nestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > maxDepth) return true;
    } else if (code === 0x5d || code === 0x7d) {
      depth--;
    }
  }
  return false;
}

const TOO_DEEP: JsonParseResult = {
  ok: false,
  reason: `nested deeper than ${MAX_JSON_DEPTH} levels`,
  tooDeep: true,
};

/** Parses a response body. An empty body is `undefined`. Never throws. */
export function parseJsonBody(text: string): JsonParseResult {
  if (text.length > UNSCANNED_JSON_CHARS && nestsDeeperThan(text, MAX_JSON_DEPTH)) return TOO_DEEP;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (text.trim() === '') return { ok: true, value: undefined };
    return { ok: false, reason: error instanceof Error ? error.message : 'not JSON', tooDeep: false };
  }
  if (typeof value !== 'object' || value === null) return { ok: true, value };
  if (!withinDepth(value, 1)) return TOO_DEEP;
  return { ok: true, value };
}
