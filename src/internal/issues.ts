/**
 * Schema issues as `path: problem` text, and the outcome of parsing a request body or a tool's input: what
 * the mock's 400 answers and the tools' messages say.
 * @module
 */
import type * as z from 'zod/mini';

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
