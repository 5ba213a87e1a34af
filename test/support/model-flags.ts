/**
 * Which generated worlds run (CONTRIBUTING.md "Model tests"): the world kinds turned on, the seed and
 * the number of worlds. Free of vitest, so that `bench/model.ts` reads it too.
 */

/**
 * World kinds that find a defect another change is fixing; off unless named in `MODEL_FLAGS`
 * (comma-separated, or `all`). `npm test` runs with the defaults of {@link flagOn}; each flag names
 * what it adds to the worlds. See CONTRIBUTING.md "Model tests" for the counterexample each one finds.
 */
export const MODEL_FLAGS = {
  /** Own memory stores (no shared store), several processes or restarts: needs `lookupFirst`'s default. */
  'restart-without-store': false,
  /** A service that ignores `sortBy`/`sortOrder` (oldest first, or newest updated first). */
  'unsorted-service': false,
  /** Timestamps without a zone, read under `TZ=Asia/Kuwait`. */
  zoneless: false,
  /** `GET tasks/{id}` answered without `id`. */
  'retrieve-without-id': true,
  /** Process stalls longer than a lease (10 s and more). */
  'long-stalls': false,
  /** `GET tasks` answered without the tasks' `id` in the intake's worlds (`sync()` walks it). */
  'list-without-id': false,
  /** Repeat deliveries (`repeatDelivery: true`) among the creates. */
  'repeat-delivery': false,
  /** A shared store restarted without persistence (emptied). */
  'store-wipe': false,
} satisfies Record<string, boolean>;

export type ModelFlag = keyof typeof MODEL_FLAGS;

const named = new Set((process.env.MODEL_FLAGS ?? '').split(',').map((flag) => flag.trim()));

/** True when `flag` is on: named in `MODEL_FLAGS` (or `all`), else its default. */
export function flagOn(flag: ModelFlag): boolean {
  if (named.has(`-${flag}`)) return false;
  return named.has('all') || named.has(flag) || MODEL_FLAGS[flag];
}

/** The seed and number of worlds of one property: `MODEL_SEED`, `MODEL_WORLDS` , else the fixed ones. */
export function runParameters(fixedWorlds: number): { seed: number; numRuns: number } {
  const seed = Number(process.env.MODEL_SEED ?? 20261127);
  const worlds = process.env.MODEL_WORLDS === undefined ? fixedWorlds : Number(process.env.MODEL_WORLDS);
  return { seed, numRuns: worlds };
}
