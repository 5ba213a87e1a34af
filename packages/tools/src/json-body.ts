/**
 * Schema checks of the tools' inputs (order files, sandbox control bodies), issues as `path: problem`
 * text. Their nesting is checked before `JSON.parse` with the SDK's `nestsDeeperThan`.
 */
import * as z from 'zod';

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
    message: result.error.issues
      .map((issue) => `${pathOf(issue.path, fallback)}: ${issue.message}`)
      .join('; '),
  };
}
