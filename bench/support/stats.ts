/**
 * Small statistics for the benchmarks: medians, spread, interleaved rounds.
 * @module
 */

/** The median of `values` (0 for none). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return 0;
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** `median (min–max)` with the given digits. */
export function spread(values: readonly number[], digits = 0): string {
  return `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;
}

/** `median× (p25–p75 a–b)` of ratios, two decimals: a ratio's middle and the spread of its middle half. */
export function ratioSpread(ratios: readonly number[]): string {
  const sorted = [...ratios].sort((a, b) => a - b);
  const at = (share: number) => (sorted[Math.floor(sorted.length * share)] ?? 0).toFixed(2);
  return `${median(ratios).toFixed(2)}× (p25–p75 ${at(0.25)}–${at(0.75)})`;
}

/**
 * Runs every variant once per round, in a rotated order each round (so no variant always runs first or
 * last), and returns each variant's results in round order.
 */
export async function interleave<Name extends string, Value = number>(
  rounds: number,
  variants: Record<Name, () => Promise<Value>>,
): Promise<Record<Name, Value[]>> {
  const names = Object.keys(variants) as Name[];
  const results = Object.fromEntries(names.map((name) => [name, [] as Value[]])) as Record<Name, Value[]>;
  for (let round = 0; round < rounds; round++) {
    for (let offset = 0; offset < names.length; offset++) {
      const name = names[(round + offset) % names.length] as Name;
      results[name].push(await variants[name]());
    }
  }
  return results;
}
