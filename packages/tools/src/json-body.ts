/**
 * Bounded JSON reading for the tools' inputs (order files, sandbox control bodies): nesting checked
 * before `JSON.parse`, schema issues as `path: problem` text.
 */
import * as z from 'zod';

/** Deepest nesting of arrays and objects read from a body or file; a deeper one is refused before `JSON.parse`. */
export const MAX_BODY_DEPTH = 64;

/** The outcome of parsing: the value, or the message of a 400. */
export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

/** True when the JSON text nests arrays and objects deeper than `maxDepth` (brackets inside strings do not count). */
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

/** `deliveryLocation.latitude`, `fullAddress[0]`; `fallback` for the whole value. */
function pathOf(path: readonly PropertyKey[], fallback: string): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else text += text ? `.${String(key)}` : String(key);
  }
  return text || fallback;
}

/** Checks a value against `schema`; issues about the whole value are reported under `fallback`. */
export function parseValue<Schema extends z.core.$ZodType>(
  value: unknown,
  schema: Schema,
  fallback: string,
): Parsed<z.core.output<Schema>> {
  const result = z.safeParse(schema, value);
  if (result.success) return { ok: true, value: result.data };
  return {
    ok: false,
    message: result.error.issues.map((issue) => `${pathOf(issue.path, fallback)}: ${issue.message}`).join('; '),
  };
}
