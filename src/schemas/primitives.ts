/**
 * Field-level schemas shared by the resource schemas: coordinates, KWD money, identifiers.
 * @module
 */
import * as z from 'zod/mini';
import { bound, rule } from './checks.js';
import { isKwdAmount, parseFils } from './fils.js';
import { isWellFormedText } from './text.js';

/** Latitude in decimal degrees, finite, −90…90. */
export const Latitude = z.number().check(bound('minimum', -90), bound('maximum', 90));
/** Longitude in decimal degrees, finite, −180…180. */
export const Longitude = z.number().check(bound('minimum', -180), bound('maximum', 180));

/**
 * Largest KWD amount a request carries: 9,007,199,254,740.991 KWD, that is `Number.MAX_SAFE_INTEGER`
 * fils, the range in which the `kwd` helpers' number results are exact (README "KWD money",
 * `docs/kwd.md`). Top-ups, `totalAmount` and the MCP policy's fee caps are bounded by it.
 */
export const MAX_KWD_AMOUNT = '9007199254740.991';

const KWD_TEXT = /^\d+(\.\d{1,3})?$/;

const MAX_AMOUNT_FILS = BigInt(Number.MAX_SAFE_INTEGER);
const OVER_MAX = `Expected a KWD amount of at most ${MAX_KWD_AMOUNT} KWD`;

/** False for decimal text above {@link MAX_KWD_AMOUNT}; other text is left to the pattern. */
function withinMaximum(amount: string): boolean {
  return !isKwdAmount(amount) || parseFils(amount) <= MAX_AMOUNT_FILS;
}

/**
 * A KWD amount as decimal text with at most 3 decimals and no sign (`"12.5"`, `"0.250"`), at most
 * {@link MAX_KWD_AMOUNT}; spec: Task `totalAmount`.
 */
export const KwdText = z.string().check(
  rule<string>((text) => KWD_TEXT.test(text), 'Expected KWD decimal text with at most 3 decimals, like "12.500"', {
    pattern: KWD_TEXT.source,
  }),
  z.refine(withinMaximum, OVER_MAX),
);

/** A KWD amount as a finite number with at most 3 decimals, at most {@link MAX_KWD_AMOUNT}. */
export const KwdNumber = z
  .number()
  .check(
    z.refine(isKwdAmount, 'Expected a KWD amount with at most 3 decimals'),
    bound('maximum', Number(MAX_KWD_AMOUNT), OVER_MAX),
  );

/** How deep {@link wellFormedText} looks into a request (request schemas nest two or three levels). */
const MAX_TEXT_DEPTH = 16;

/**
 * A check for request schemas (`.check(wellFormedText)`): every string in the parameters (fields,
 * array items, nested objects) is well-formed UTF-16. An unpaired surrogate has no UTF-8 form: in a
 * URL it would be sent altered (as U+FFFD), in a path it makes `encodeURIComponent` throw, in a JSON
 * body it goes out as an escape the service may store as garbage. Each offending string is reported
 * at its own path (`deliveryLocation.fullAddress.1`), alongside any other issue.
 */
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
  // Report it alongside other field issues (zod skips checks of an object that has issues otherwise).
  { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
);
