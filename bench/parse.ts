/**
 * Parse + validate of a 10-task page against `JSON.parse` alone: the SDK's body parsing (`JSON.parse`
 * and one bounded walk) and its response validation, with zod's compiler installed (the Node build)
 * and without it (the build for bundlers); then a drifted page (every task's `totalAmount` a number and
 * `collectCash` the text `"true"`) read through the tolerant path, in both builds. Run alone with
 * `npx tsx bench/parse.ts`.
 * @module
 */
import { compile } from 'zod/mini';
import type { ValidationMode } from '../src/core/options.js';
import { compiledCheck } from '../src/internal/copy-free.js';
import { parseJsonBody } from '../src/internal/json.js';
import { Redactor } from '../src/internal/redact.js';
import { parseResponse, useSchemaCompiler } from '../src/internal/validate.js';
import { TaskListResponse } from '../src/schemas/task-list.js';
import { sampleTask } from './support/sample-task.js';
import { ratioSpread, spread } from './support/stats.js';

/** The variants measured: the build, and whether the page conforms or drifted. */
const VARIANTS = ['runtime', 'compiled', 'driftedRuntime', 'driftedCompiled'] as const;
type Variant = (typeof VARIANTS)[number];

/** µs per operation of each variant over the pairs, and each variant's time over its neighbouring `JSON.parse` runs. */
export interface ParseFigures {
  jsonParse: number[];
  /** µs per parse of each variant, one per pair. */
  times: Record<Variant, number[]>;
  /** Per pair: the variant's time / the mean of the `JSON.parse` runs just before and after it. */
  ratios: Record<Variant, number[]>;
  /** Characters of the conforming and of the drifted page. */
  chars: { conforming: number; drifted: number };
}

const redactor = new Redactor([]);
const context = (mode: ValidationMode) => ({
  method: 'GET',
  url: 'http://127.0.0.1/tasks',
  status: 200,
  mode,
  operation: 'tasks.list',
  report: () => {},
  redactor,
});

/** The page's JSON text; `drifted`: every task's `totalAmount` a number, `collectCash` the text `"true"`. */
function pageText(drifted: boolean): string {
  const tasks = Array.from({ length: 10 }, (_, index) => {
    const task = sampleTask(index);
    return drifted ? { ...task, totalAmount: 12.5, collectCash: 'true' } : task;
  });
  return JSON.stringify({ tasks, page: 1, limit: 10, totalPages: 3, total: 25 });
}

/**
 * Measures in pairs: `batch` parses of `JSON.parse` alone, `batch` of the variant, `batch` of `JSON.parse`
 * again, `pairs` times per variant. A ratio taken within one pair, a few milliseconds long, cancels the
 * slow drifts of a shared machine that make separate timings of the same code differ by ±20 %. A drifted
 * page is compared with `JSON.parse` of its own text.
 */
export function measureParse(pairs = 150, batch = 200): ParseFigures {
  const conforming = pageText(false);
  const drifted = pageText(true);
  const time = (operation: () => unknown) => {
    const started = performance.now();
    for (let index = 0; index < batch; index++) operation();
    return ((performance.now() - started) * 1000) / batch;
  };
  const sdk = (text: string, mode: ValidationMode) => {
    const read = context(mode);
    return () => {
      const parsed = parseJsonBody(text);
      if (!parsed.ok) throw new Error(parsed.reason);
      return parseResponse(TaskListResponse, parsed.value, read);
    };
  };
  const figures: ParseFigures = {
    jsonParse: [],
    times: { runtime: [], compiled: [], driftedRuntime: [], driftedCompiled: [] },
    ratios: { runtime: [], compiled: [], driftedRuntime: [], driftedCompiled: [] },
    chars: { conforming: conforming.length, drifted: drifted.length },
  };
  // The runtime parser first, then the compiled one (left installed, as the Node build has it).
  for (const variant of VARIANTS) {
    // As src/index.node.ts installs it.
    if (variant === 'compiled' || variant === 'driftedCompiled') useSchemaCompiler(compile, compiledCheck);
    else useSchemaCompiler(undefined);
    const text = variant.startsWith('drifted') ? drifted : conforming;
    const operation = sdk(text, variant.startsWith('drifted') ? 'tolerant' : 'strict');
    const jsonParse = () => JSON.parse(text);
    for (let warm = 0; warm < 20; warm++) {
      time(operation);
      time(jsonParse);
    }
    for (let pair = 0; pair < pairs; pair++) {
      const before = time(jsonParse);
      const took = time(operation);
      const after = time(jsonParse);
      if (text === conforming) figures.jsonParse.push(before, after);
      figures.times[variant].push(took);
      figures.ratios[variant].push((2 * took) / (before + after));
    }
  }
  return figures;
}

/** Prints the figures and the ratios the goals are set for (≤ 1.2× `JSON.parse` in Node, ≤ 1.5× bundled). */
export function printParse(figures: ParseFigures): void {
  const { times, ratios, chars } = figures;
  const kb = (count: number) => `${(count / 1000).toFixed(1)} KB`;
  console.log(
    `Parse + validate a 10-task page (${kb(chars.conforming)} of JSON), µs, median (min–max); ratio to JSON.parse per pair:`,
  );
  console.log(`  JSON.parse alone                         ${spread(figures.jsonParse, 1)}`);
  console.log(
    `  SDK, Node build (zod compiler installed) ${spread(times.compiled, 1)} = ${ratioSpread(ratios.compiled)} JSON.parse (goal ≤ 1.2×)`,
  );
  console.log(
    `  SDK, bundler build (runtime parser)      ${spread(times.runtime, 1)} = ${ratioSpread(ratios.runtime)} JSON.parse (goal ≤ 1.5×)`,
  );
  console.log(
    `A drifted page (${kb(chars.drifted)}; each task's totalAmount a number, collectCash "true"), tolerant path, ratio to JSON.parse of its text:`,
  );
  console.log(
    `  Node build                               ${spread(times.driftedCompiled, 1)} = ${ratioSpread(ratios.driftedCompiled)} JSON.parse`,
  );
  console.log(
    `  bundler build                            ${spread(times.driftedRuntime, 1)} = ${ratioSpread(ratios.driftedRuntime)} JSON.parse`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) printParse(measureParse());
