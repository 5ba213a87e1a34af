/**
 * JSON parsing of response bodies: `null` members are treated as absent (the spec calls every field
 * optional; a server writing `null` for "not set" must not fail validation), `__proto__` keys are
 * dropped so no later copy of a parsed body can change an object's prototype, and a body nested
 * deeper than {@link MAX_JSON_DEPTH} is refused, so no later step (validation, redaction, logging,
 * the caller's own code) can overflow the stack on a hostile body.
 *
 * The text goes through a plain `JSON.parse` (no reviver: a reviver runs a call per value and made
 * parsing 6× slower), then one walk over the parsed value checks the depth and removes `null` members
 * and `__proto__` keys (about 3 µs for a 10-task page). V8's `JSON.parse` does not recurse, so parsing
 * itself is safe at any depth; the walk stops at the first level past the limit.
 */

/** Deepest nesting of arrays and objects accepted in a response body (a task is about 5 levels deep). */
export const MAX_JSON_DEPTH = 64;

/**
 * Longest body parsed without first scanning its nesting ({@link nestsDeeperThan}), in characters.
 * `JSON.parse` of the worst text this long (16 384 opening and closing brackets) took 3–7 ms on the
 * project's 2-core machine, and the walk after parsing refuses it as too deep all the same; the scan
 * would cost a third of `JSON.parse` on every ordinary 10-task page (12.5 KB). Longer bodies are
 * scanned first, so a hostile one is refused for the cost of reading it.
 */
export const UNSCANNED_JSON_CHARS = 16_384;

/** The key that names an object's prototype when assigned. */
const PROTO_KEY = '__proto__';

/**
 * Result of {@link parseJsonBody}: the value, or why the text is not usable JSON (`too_deep`: nested
 * past {@link MAX_JSON_DEPTH}, a hostile answer rather than an error page).
 */
export type JsonParseResult = { ok: true; value: unknown } | { ok: false; reason: string; tooDeep: boolean };

/**
 * Checks that `value` (at nesting `depth`, 1 for the body itself) nests at most {@link MAX_JSON_DEPTH}
 * levels, removing `null` members and `__proto__` keys on the way. Recursion is bounded by the limit.
 */
function withinDepth(value: object, depth: number): boolean {
  if (depth > MAX_JSON_DEPTH) return false;
  if (Array.isArray(value)) {
    // In arrays a removed element would leave a hole; nulls stay there.
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      if (typeof item === 'object' && item !== null && !withinDepth(item, depth + 1)) return false;
    }
    return true;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const item = record[key];
    // JSON.parse makes `__proto__` (written plainly or with \u escapes) an own key; copied later by
    // assignment, it would set the copy's prototype instead.
    if (item === null || key === PROTO_KEY) delete record[key];
    else if (typeof item === 'object' && !withinDepth(item, depth + 1)) return false;
  }
  return true;
}

/**
 * True when the JSON text nests arrays and objects deeper than `maxDepth` (brackets inside strings do
 * not count). One pass over the characters, about 1 ms a megabyte: run before `JSON.parse`, which takes
 * some 0.7 s to build a megabyte of `[[[…`, so a hostile body is refused for the cost of reading it.
 */
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

/** The result for a body nested past {@link MAX_JSON_DEPTH}, however it was found. */
const TOO_DEEP: JsonParseResult = { ok: false, reason: `nested deeper than ${MAX_JSON_DEPTH} levels`, tooDeep: true };

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
