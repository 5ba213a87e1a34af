/**
 * Running generated worlds (CONTRIBUTING.md "Model tests"): how many and from which seed (fixed in
 * `npm test`, set by `npm run bench:model`), which world kinds are on, the world's virtual clock, and
 * the report of a failure (seed, path, the minimal counterexample and its timeline).
 */
import { appendFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, vi } from 'vitest';
import { runParameters } from './model-flags.js';

export { flagOn, MODEL_FLAGS, type ModelFlag, runParameters } from './model-flags.js';

/** The test's timeout for `fixedWorlds` worlds of about `msPerWorld` ms each (more under `MODEL_WORLDS`), ms. */
export function modelTimeout(fixedWorlds: number, msPerWorld: number): number {
  const { numRuns } = runParameters(fixedWorlds);
  // Shrinking a failure replays worlds too: room for as many again.
  return Math.max(60_000, 3 * numRuns * msPerWorld);
}

/**
 * Runs the file's worlds with the machine in Kuwait's zone (UTC+3, no daylight saving): a time without a
 * zone read as local time is 3 h off there, where under UTC the mistake would not show.
 */
export function inKuwaitZone(): void {
  const zone = process.env.TZ;
  beforeAll(() => {
    process.env.TZ = 'Asia/Kuwait';
  });
  afterAll(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });
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

/** Moves the virtual clock on by `ms` without running timers (before a world's processes start). */
export function jump(ms: number): void {
  vi.setSystemTime(Date.now() + ms);
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

/** The outcome of `work`, virtual time passing until it settles (at most `limitMs`, else it rejects). */
export async function settle<T>(work: Promise<T>, limitMs = 30 * 60_000): Promise<T> {
  let outcome: { value: T } | { error: unknown } | undefined;
  work.then(
    (value) => {
      outcome = { value };
    },
    (error: unknown) => {
      outcome = { error };
    },
  );
  await runUntil(() => outcome !== undefined, limitMs);
  if (outcome === undefined)
    throw new InvariantViolation(`still running after ${limitMs} ms of virtual time`);
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}

let replaying = false;

/** True while the minimal counterexample is replayed for its report: worlds then log the SDK's lines too. */
export function isReplaying(): boolean {
  return replaying;
}

/** A logger that writes the SDK's lines of `source` into `timeline` while replaying, else nothing. */
export function timelineLogger(timeline: Timeline, source: string) {
  const line = (level: string) => (message: string) => {
    if (replaying) timeline.note(`[${source} ${level}] ${message.slice(0, 300)}`);
  };
  return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
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
  const started = performance.now();
  const details = await fc.check(property, parameters);
  const record = (failure: ModelFailure | undefined) => {
    // `npm run bench:model` reads one line per property.
    const file = process.env.MODEL_REPORT;
    if (file === undefined) return failure;
    const line = {
      kind,
      seed: parameters.seed,
      worlds: details.numRuns,
      ms: Math.round(performance.now() - started),
      failure,
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
    return failure;
  };
  if (!details.failed) return record(undefined);
  // Replays the minimal counterexample to read its timeline.
  let failingTimeline: readonly string[] = [];
  if (details.counterexample !== null) {
    replaying = true;
    try {
      await property.run(fc.cloneIfNeeded(details.counterexample));
    } finally {
      replaying = false;
    }
    failingTimeline = lastTimeline();
  }
  const error = details.errorInstance;
  return record({
    kind,
    seed: details.seed,
    path: details.counterexamplePath ?? undefined,
    worlds: details.numRuns,
    shrinks: details.numShrinks,
    counterexample: fc.stringify(details.counterexample),
    message: error instanceof Error ? error.message : String(error),
    timeline: failingTimeline,
  });
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
