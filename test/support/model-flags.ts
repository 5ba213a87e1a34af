/**
 * Which generated worlds run (CONTRIBUTING.md "Model tests"): the world kinds turned on, the seed and
 * the number of worlds. Free of vitest, so that `bench/model.ts` reads it too.
 */

/**
 * World kinds, each a flag: `true` runs in `npm test`; `false` finds a defect not fixed yet (or, for
 * `stall-before-post` and `unsorted-service`, goes past what the code assumes or can see), so it runs only when named in `MODEL_FLAGS`
 * (comma-separated; `all` for every one; `-name` turns one off). CONTRIBUTING.md "Model tests" gives
 * the minimal counterexample each flag that is off finds.
 */
export const MODEL_FLAGS = {
  /** Own memory stores (no shared store), several processes or restarts: needs `lookupFirst`'s default. */
  'restart-without-store': true,
  /** A service that ignores `sortBy`/`sortOrder` (oldest first, or newest updated first). */
  'unsorted-service': false,
  /** Timestamps without a zone, read under `TZ=Asia/Kuwait`. */
  zoneless: true,
  /** `GET tasks/{id}` answered without `id`. */
  'retrieve-without-id': true,
  /** Process stalls longer than a lease (10 s and more). */
  'long-stalls': true,
  /**
   * Stalls over 250 ms between a create's last lease check and its POST leaving: past what the lease
   * assumes (docs/several-instances.md "Stalls"), so a second task is expected there; kept off.
   */
  'stall-before-post': false,
  /** `GET tasks` answered without the tasks' `id` in the intake's worlds (`sync()` walks it). */
  'list-without-id': true,
  /** Repeat deliveries (`repeatDelivery: true`) among the creates. */
  'repeat-delivery': true,
  /** A shared store restarted without persistence (emptied). */
  'store-wipe': true,
  /** A service that queues a POST up to 9 s before serving it, served even after its client gave up. */
  'queued-posts': true,
  /**
   * One POST served 20 or 60 s after it arrived, past what a create's lookup waits for (the order's record's
   * `until` and `listingDelayMs`) and within the late-commit check's window: a second task of its order
   * must be reported (docs/exactly-once.md "A late commit").
   */
  'late-posts': true,
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
