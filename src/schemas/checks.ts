/** Checks by predicate that carry their JSON Schema keywords, for the OpenAPI document. @module */
import * as z from 'zod/mini';

/** A check by predicate carrying its JSON Schema keywords (lighter in a bundle than zod's check kinds). */
export function rule<T>(test: (value: T) => boolean, message: string, jsonSchema: Record<string, unknown>) {
  return z.refine<T>(test, { message, params: { jsonSchema } });
}

/** An integer from `min` to `max` (a safe integer by default). */
export function integer(min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) {
  const bounds = min === Number.MIN_SAFE_INTEGER ? '' : ` from ${min} to ${max}`;
  return z.number().check(
    rule<number>(
      (value) => Number.isInteger(value) && value >= min && value <= max,
      `Expected an integer${bounds}`,
      {
        type: 'integer',
        minimum: min,
        maximum: max,
      },
    ),
  );
}

/** Text of 1 to `max` characters. */
export function nonEmptyText(max?: number) {
  return z
    .string()
    .check(
      rule<string>(
        (text) => text !== '' && (max === undefined || text.length <= max),
        max === undefined ? 'Must not be empty' : `Expected 1 to ${max} characters`,
        max === undefined ? { minLength: 1 } : { minLength: 1, maxLength: max },
      ),
    );
}

/**
 * A number ≥ (`'minimum'`) or ≤ (`'maximum'`) `limit`: zod's `gte`/`lte` issue and keyword, without their
 * weight.
 */
export function bound(side: 'minimum' | 'maximum', limit: number, message?: string) {
  const check: z.core.$ZodCheck<number> = z.check<number>(
    (payload) => {
      const { value } = payload;
      if (side === 'minimum' ? value >= limit : value <= limit) return;
      payload.issues.push({
        origin: 'number',
        code: side === 'minimum' ? 'too_small' : 'too_big',
        [side]: limit,
        input: value,
        inclusive: true,
        inst: check,
        continue: true,
      } as unknown as z.core.$ZodRawIssue);
    },
    { message: message as string, params: { jsonSchema: { [side]: limit } } },
  );
  return check;
}
