/**
 * Request bodies: bad JSON or schema violations are a 400
 * `{ message: '<path>: <problem>', code: 'BAD_REQUEST' }`. @module
 */
import * as z from 'zod';
import { nestsDeeperThan } from '../internal/json.js';

/** Deepest nesting of a body; deeper is a 400 before `JSON.parse` (slow on deep `[[[…`). */
export const MAX_BODY_DEPTH = 64;

/** The outcome of parsing: the value, or the message of a 400. */
export type Parsed<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly message: string };

/** `deliveryLocation.latitude`, `fullAddress[0]`; `fallback` for the whole value. */
function pathOf(path: readonly PropertyKey[], fallback: string): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else text += text ? `.${String(key)}` : String(key);
  }
  return text || fallback;
}

/**
 * Formats zod issues as `path: problem; path: problem`; issues about the whole value use `fallback` as path.
 */
export function describeIssues(issues: readonly z.core.$ZodIssue[], fallback: string): string {
  return issues.map((issue) => `${pathOf(issue.path, fallback)}: ${issue.message}`).join('; ');
}

export function parseJsonBody<Schema extends z.core.$ZodType>(
  text: string,
  contentType: string | null,
  schema: Schema,
): Parsed<z.core.output<Schema>> {
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json' && !mediaType?.endsWith('+json')) {
    return { ok: false, message: 'body: Content-Type must be application/json' };
  }
  if (nestsDeeperThan(text, MAX_BODY_DEPTH)) {
    return { ok: false, message: `body: nested deeper than ${MAX_BODY_DEPTH} levels` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, message: 'body: Invalid JSON' };
  }
  return parseValue(json, schema, 'body');
}

/** Checks a value against `schema`; issues about the whole value are reported under `fallback`. */
export function parseValue<Schema extends z.core.$ZodType>(
  value: unknown,
  schema: Schema,
  fallback: string,
): Parsed<z.core.output<Schema>> {
  const result = z.safeParse(schema, value);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, message: describeIssues(result.error.issues, fallback) };
}
