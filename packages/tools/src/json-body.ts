/**
 * Schema checks of the tools' inputs (order files, sandbox control bodies), issues as `path: problem`
 * text. Their nesting is checked before `JSON.parse` with the SDK's `nestsDeeperThan`.
 */
import { describeIssues, type Parsed } from 'delivery-task-sdk/internal';
import * as z from 'zod/mini';

export type { Parsed };

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
