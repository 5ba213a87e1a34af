/**
 * JSON parsing of response bodies: `null` members are treated as absent (the spec calls every field
 * optional; a server writing `null` for "not set" must not fail validation), `__proto__` keys are
 * dropped so no later copy of a parsed body can change an object's prototype, and a body nested
 * deeper than {@link MAX_JSON_DEPTH} is refused, so no later step (validation, redaction, logging,
 * the caller's own code) can overflow the stack on a hostile body.
 *
 * The text goes through a plain `JSON.parse` (no reviver: a reviver runs a call per value and made
 * parsing 6× slower), then one walk over the parsed value checks the depth and, only when the text
 * can contain them, removes `null` members and `__proto__` keys. V8's `JSON.parse` does not recurse,
 * so parsing itself is safe at any depth; the walk stops at the first level past the limit.
 */

/** Deepest nesting of arrays and objects accepted in a response body (a task is about 5 levels deep). */
export const MAX_JSON_DEPTH = 64;

/**
 * Result of {@link parseJsonBody}: the value, or why the text is not usable JSON (`too_deep`: nested
 * past {@link MAX_JSON_DEPTH}, a hostile answer rather than an error page).
 */
export type JsonParseResult = { ok: true; value: unknown } | { ok: false; reason: string; tooDeep: boolean };

/** What the walk removes besides checking the depth. */
interface Cleaning {
  nulls: boolean;
  protoKeys: boolean;
}

/**
 * Checks that `value` (at nesting `depth`, 1 for the body itself) nests at most {@link MAX_JSON_DEPTH}
 * levels, removing what `cleaning` asks for on the way. Recursion is bounded by the limit.
 */
function withinDepth(value: object, depth: number, cleaning: Cleaning | undefined): boolean {
  if (depth > MAX_JSON_DEPTH) return false;
  if (Array.isArray(value)) {
    // In arrays a removed element would leave a hole; nulls stay there.
    for (const item of value) {
      if (typeof item === 'object' && item !== null && !withinDepth(item, depth + 1, cleaning)) return false;
    }
    return true;
  }
  const record = value as Record<string, unknown>;
  if (cleaning?.protoKeys && Object.hasOwn(record, '__proto__')) delete record.__proto__;
  for (const key in record) {
    const item = record[key];
    if (item === null) {
      if (cleaning?.nulls) delete record[key];
    } else if (typeof item === 'object' && !withinDepth(item, depth + 1, cleaning)) return false;
  }
  return true;
}

/** Parses a response body. An empty body is `undefined`. Never throws. */
export function parseJsonBody(text: string): JsonParseResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (text.trim() === '') return { ok: true, value: undefined };
    return { ok: false, reason: error instanceof Error ? error.message : 'not JSON', tooDeep: false };
  }
  if (typeof value !== 'object' || value === null) return { ok: true, value };
  // A `__proto__` key may be written with \u escapes, which JSON.parse decodes.
  const protoKeys = text.includes('__proto__') || text.includes('\\u');
  const nulls = text.includes('null');
  if (!withinDepth(value, 1, nulls || protoKeys ? { nulls, protoKeys } : undefined)) {
    return { ok: false, reason: `nested deeper than ${MAX_JSON_DEPTH} levels`, tooDeep: true };
  }
  return { ok: true, value };
}
