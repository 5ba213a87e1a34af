/** Field schemas shared by the resource schemas: coordinates, KWD money, text. @module */
import * as z from 'zod/mini';
import { bound, rule } from './checks.js';
import { isKwdAmount, parseFils } from './fils.js';
import { isWellFormedText } from './text.js';

/** Latitude in decimal degrees, finite, −90…90. */
export const Latitude = z.number().check(bound('minimum', -90), bound('maximum', 90));
/** Longitude in decimal degrees, finite, −180…180. */
export const Longitude = z.number().check(bound('minimum', -180), bound('maximum', 180));

/** Largest KWD amount a request carries: `Number.MAX_SAFE_INTEGER` fils (README "KWD money"). */
export const MAX_KWD_AMOUNT = '9007199254740.991';

const KWD_TEXT = /^\d+(\.\d{1,3})?$/;

const MAX_AMOUNT_FILS = BigInt(Number.MAX_SAFE_INTEGER);
const OVER_MAX = `Expected a KWD amount of at most ${MAX_KWD_AMOUNT} KWD`;

/** Over the maximum unless measured within it: text too long to read (past `KWD_MAX_DIGITS`) is over. */
function withinMaximum(amount: string): boolean {
  // Text that is not an amount at all is the pattern's issue, not this one's.
  if (!KWD_TEXT.test(amount)) return true;
  return isKwdAmount(amount) && parseFils(amount) <= MAX_AMOUNT_FILS;
}

/** KWD as unsigned decimal text, at most 3 decimals and {@link MAX_KWD_AMOUNT}; Task `totalAmount`. */
export const KwdText = z.string().check(
  rule<string>(
    (text) => KWD_TEXT.test(text),
    'Expected KWD decimal text with at most 3 decimals, like "12.500"',
    {
      pattern: KWD_TEXT.source,
    },
  ),
  z.refine(withinMaximum, OVER_MAX),
);

/** A KWD amount as a finite number with at most 3 decimals, at most {@link MAX_KWD_AMOUNT}. */
export const KwdNumber = z
  .number()
  .check(
    z.refine(isKwdAmount, 'Expected a KWD amount with at most 3 decimals'),
    bound('maximum', Number(MAX_KWD_AMOUNT), OVER_MAX),
  );

const MAX_TEXT_DEPTH = 16;

/** Every string in the parameters is well-formed UTF-16 (an unpaired surrogate has no UTF-8 form). */
export const wellFormedText = z.superRefine<unknown>(
  (value, context) => {
    const pending: { value: unknown; path: PropertyKey[] }[] = [{ value, path: [] }];
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      const { value: current, path } = next;
      if (typeof current === 'string') {
        if (!isWellFormedText(current)) {
          context.addIssue({
            code: 'custom',
            message: 'Text has unpaired surrogates (no UTF-8 form) and cannot be sent unchanged',
            path,
            input: current,
          });
        }
      } else if (typeof current === 'object' && current !== null && path.length < MAX_TEXT_DEPTH) {
        for (const [key, item] of Object.entries(current)) {
          pending.push({ value: item, path: [...path, Array.isArray(current) ? Number(key) : key] });
        }
      }
    }
  },
  { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
);
