/**
 * Running generated worlds (docs/testing.md "Model tests"): how many and from which seed (fixed in
 * `npm test`, set by `npm run bench:model`), which world kinds are on, the world's virtual clock, and
 * the report of a failure (seed, path, the minimal counterexample and its timeline).
 */
import fc from 'fast-check';
import { vi } from 'vitest';

/**
 * World kinds that find a defect another change is fixing; off unless named in `MODEL_FLAGS`
 * (comma-separated, or `all`). `npm test` runs with the defaults of {@link flagOn}; each flag names
 * what it adds to the worlds. See docs/testing.md "Model tests" for the counterexample each one finds.
 */
export const MODEL_FLAGS = {
  /** Own memory stores (no shared store), several processes or restarts: needs `lookupFirst`'s default. */
  'restart-without-store': false,
  /** A service that ignores `sortBy`/`sortOrder` (oldest first, or newest updated first). */
  'unsorted-service': false,
  /** Timestamps without a zone, read under `TZ=Asia/Kuwait`. */
  zoneless: false,
  /** `GET tasks/{id}` answered without `id`. */
  'retrieve-without-id': false,
  /** Process stalls longer than a lease (10 s and more). */
  'long-stalls': false,
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

/** The seed and number of worlds of one property: `MODEL_SEED`, `MODEL_WORLDS` (× `scale`), else the fixed ones. */
export function runParameters(fixedWorlds: number): { seed: number; numRuns: number } {
  const seed = Number(process.env.MODEL_SEED ?? 20261127);
  const worlds = process.env.MODEL_WORLDS === undefined ? fixedWorlds : Number(process.env.MODEL_WORLDS);
  return { seed, numRuns: worlds };
}

/** The test's timeout for `fixedWorlds` worlds of about `msPerWorld` ms each (more under `MODEL_WORLDS`), ms. */
export function modelTimeout(fixedWorlds: number, msPerWorld: number): number {
  const { numRuns } = runParameters(fixedWorlds);
  // Shrinking a failure replays worlds too: room for as many again.
  return Math.max(60_000, 3 * numRuns * msPerWorld);
}

/** Virtual time starts here in every world (a Friday in Kuwait, 12:00 local). */
export const WORLD_START = Date.UTC(2026, 10, 20, 9, 0, 0);

const realSetTimeout = globalThis.setTimeout;
/** A real millisecond, for work outside the faked timers (a module loaded on first use). */
const realPause = () => new Promise<void>((resolve) => realSetTimeout(resolve, 1));
/** Real time a world may wait with no timer pending before it counts as stuck, ms. */
const STUCK_MS = 10_000;

/** Runs `body` with the clock faked (timers, `Date`, `performance`), starting at {@link WORLD_START}. */
export async function inVirtualTime<T>(body: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({
    now: WORLD_START,
    toFake: [
      'setTimeout',
      'clearTimeout',
      'setInterval',
      'clearInterval',
      'setImmediate',
      'clearImmediate',
      'Date',
      'performance',
    ],
  });
  try {
    return await body();
  } finally {
    vi.clearAllTimers();
    vi.useRealTimers();
  }
}

/** Lets `ms` of virtual time pass, running every timer due meanwhile. */
export async function advance(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
}

/**
 * Runs timers one after the other until `done()` or `limitMs` of virtual time have passed; `false` when
 * the limit came first. A turn of the real event loop is given when no timer is pending.
 */
export async function runUntil(done: () => boolean, limitMs: number): Promise<boolean> {
  const end = Date.now() + limitMs;
  let idleSince: number | undefined;
  while (!done()) {
    if (Date.now() >= end) return false;
    if (vi.getTimerCount() === 0) {
      idleSince ??= vi.getRealSystemTime();
      await realPause();
      if (vi.getRealSystemTime() - idleSince > STUCK_MS) return done();
      continue;
    }
    idleSince = undefined;
    await vi.advanceTimersToNextTimerAsync();
  }
  return true;
}

/** A world's account of itself: lines of its timeline, for the report of a failing world. */
export class Timeline {
  readonly lines: string[] = [];

  note(line: string): void {
    this.lines.push(`${String(Date.now() - WORLD_START).padStart(7)} ms  ${line}`);
  }
}

/** What a failing property leaves: the message of the minimal counterexample and its timeline. */
export interface ModelFailure {
  readonly kind: string;
  readonly seed: number;
  readonly path: string | undefined;
  readonly worlds: number;
  readonly shrinks: number;
  readonly counterexample: string;
  readonly message: string;
  readonly timeline: readonly string[];
}

/** A violated invariant, naming what held and what did not. */
export class InvariantViolation extends Error {
  override readonly name = 'InvariantViolation';
}

/**
 * Checks `property` over `numRuns` worlds from `seed` and returns the minimal counterexample, or
 * `undefined`. `lastTimeline` gives the timeline of the world that ran last (the minimal one after shrinking).
 */
export async function checkWorlds<T>(
  kind: string,
  property: fc.IAsyncProperty<T>,
  parameters: { seed: number; numRuns: number; path?: string },
  lastTimeline: () => readonly string[],
): Promise<ModelFailure | undefined> {
  const details = await fc.check(property, parameters);
  if (!details.failed) return undefined;
  // Replays the minimal counterexample to read its timeline.
  let failingTimeline: readonly string[] = [];
  if (details.counterexample !== null) {
    await property.run(fc.cloneIfNeeded(details.counterexample));
    failingTimeline = lastTimeline();
  }
  const error = details.errorInstance;
  return {
    kind,
    seed: details.seed,
    path: details.counterexamplePath ?? undefined,
    worlds: details.numRuns,
    shrinks: details.numShrinks,
    counterexample: fc.stringify(details.counterexample),
    message: error instanceof Error ? error.message : String(error),
    timeline: failingTimeline,
  };
}

/** The report of a failure, as `npm test` and `npm run bench:model` print it. */
export function describeFailure(failure: ModelFailure): string {
  return [
    `${failure.kind}: an invariant failed after ${failure.worlds} world(s), shrunk ${failure.shrinks} time(s)`,
    `  replay: MODEL_SEED=${failure.seed} (fast-check seed ${failure.seed}, path ${failure.path ?? '-'})`,
    `  ${failure.message}`,
    `  minimal world: ${failure.counterexample}`,
    '  its timeline:',
    ...failure.timeline.map((line) => `    ${line}`),
  ].join('\n');
}
