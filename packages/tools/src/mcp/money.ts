/** KWD in the MCP server's answers and rules: integer fils inside, 3-decimal text outside (`"1.234"`). */
import { kwd } from 'delivery-task-sdk';

/** Fils as KWD text with 3 decimals: `1234` → `"1.234"`. */
export function kwdText(fils: number): string {
  return kwd.fromFils(fils);
}

/**
 * A price the service sent (KWD, a number) in fils; `undefined` when it is not a finite amount ≥ 0. A
 * price with more than 3 decimals is rounded up to the fils: a bound on spending must never round down.
 */
export function priceFils(price: unknown): number | undefined {
  if (typeof price !== 'number' || !Number.isFinite(price) || price < 0) return undefined;
  try {
    return kwd.toFils(price);
  } catch {
    return Math.ceil(price * 1000);
  }
}
