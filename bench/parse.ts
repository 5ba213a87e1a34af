/**
 * Parse + validate of a 10-task page against `JSON.parse` alone: the SDK's body parsing (`JSON.parse`
 * and one bounded walk) and its response validation, with zod's compiler installed (the Node build)
 * and without it (the build for bundlers). Run alone with `npx tsx bench/parse.ts`.
 * @module
 */
import { compile } from 'zod/mini';
import { parseJsonBody } from '../src/internal/json.js';
import { Redactor } from '../src/internal/redact.js';
import { parseResponse, useSchemaCompiler } from '../src/internal/validate.js';
import { TaskListResponse } from '../src/schemas/task-list.js';
import { sampleTask } from './support/sample-task.js';
import { ratioSpread, spread } from './support/stats.js';

/** µs per operation of each variant over the pairs, and each variant's time over its neighbouring `JSON.parse` runs. */
export interface ParseFigures {
  jsonParse: number[];
  runtime: number[];
  compiled: number[];
  /** Per pair: the variant's time / the mean of the `JSON.parse` runs just before and after it. */
  runtimeRatio: number[];
  compiledRatio: number[];
}

const redactor = new Redactor([]);
const _silent = { debug() {}, info() {}, warn() {}, error() {} };
const context = {
  method: 'GET',
  url: 'http://127.0.0.1/tasks',
  status: 200,
  mode: 'strict' as const,
  operation: 'tasks.list',
  report: () => {},
  redactor,
};

/**
 * Measures in pairs: `batch` parses of `JSON.parse` alone, `batch` of the variant, `batch` of `JSON.parse`
 * again, `pairs` times per variant. A ratio taken within one pair, a few milliseconds long, cancels the
 * slow drifts of a shared machine that make separate timings of the same code differ by ±20 %.
 */
export function measureParse(pairs = 150, batch = 200): ParseFigures {
  const text = JSON.stringify({
    tasks: Array.from({ length: 10 }, (_, index) => sampleTask(index)),
    page: 1,
    limit: 10,
    totalPages: 3,
    total: 25,
  });
  const time = (operation: () => unknown) => {
    const started = performance.now();
    for (let index = 0; index < batch; index++) operation();
    return ((performance.now() - started) * 1000) / batch;
  };
  const jsonParse = () => JSON.parse(text);
  const sdk = () => {
    const parsed = parseJsonBody(text);
    if (!parsed.ok) throw new Error(parsed.reason);
    return parseResponse(TaskListResponse, parsed.value, context);
  };
  const figures: ParseFigures = { jsonParse: [], runtime: [], compiled: [], runtimeRatio: [], compiledRatio: [] };
  // The runtime parser first, then the compiled one (left installed, as the Node build has it).
  for (const variant of ['runtime', 'compiled'] as const) {
    useSchemaCompiler(variant === 'compiled' ? compile : undefined);
    for (let warm = 0; warm < 20; warm++) {
      time(sdk);
      time(jsonParse);
    }
    for (let pair = 0; pair < pairs; pair++) {
      const before = time(jsonParse);
      const took = time(sdk);
      const after = time(jsonParse);
      figures.jsonParse.push(before, after);
      figures[variant].push(took);
      figures[`${variant}Ratio`].push((2 * took) / (before + after));
    }
  }
  return figures;
}

/** Prints the figures and the ratio the issue sets a goal for (≤ 1.2× `JSON.parse`). */
export function printParse(figures: ParseFigures): void {
  console.log('Parse + validate a 10-task page (12.5 KB of JSON), µs, median (min–max); ratio to JSON.parse per pair:');
  console.log(`  JSON.parse alone                         ${spread(figures.jsonParse, 1)}`);
  console.log(
    `  SDK, Node build (zod compiler installed) ${spread(figures.compiled, 1)} = ${ratioSpread(figures.compiledRatio)} JSON.parse (goal ≤ 1.2×)`,
  );
  console.log(
    `  SDK, bundler build (runtime parser)      ${spread(figures.runtime, 1)} = ${ratioSpread(figures.runtimeRatio)} JSON.parse`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) printParse(measureParse());
