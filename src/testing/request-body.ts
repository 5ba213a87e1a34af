/**
 * Request bodies: bad JSON or schema violations are a 400
 * `{ message: '<path>: <problem>', code: 'BAD_REQUEST' }`. @module
 */
import * as z from 'zod';
import { describeIssues, type Parsed } from '../internal/issues.js';
import { nestsDeeperThan } from '../internal/json.js';

/** Deepest nesting of a body; deeper is a 400 before `JSON.parse` (slow on deep `[[[…`). */
export const MAX_BODY_DEPTH = 64;

export { describeIssues, type Parsed };

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
