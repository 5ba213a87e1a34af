/**
 * Parse + validate of a 10-task page against `JSON.parse` alone: the SDK's body parsing (`JSON.parse`
 * and one bounded walk) and its response validation, with zod's compiler installed (the Node build)
 * and without it (the build for bundlers). Run alone with `npx tsx bench/parse.ts`.
 * @module
 */
import { compile } from 'zod/mini';
import { parseJsonBody } from '../src/internal/json.js';
import { LevelLogger } from '../src/internal/logger.js';
import { Redactor } from '../src/internal/redact.js';
import { parseResponse, useSchemaCompiler } from '../src/internal/validate.js';
import { TaskListResponse } from '../src/schemas/task-list.js';
import { sampleTask } from './support/sample-task.js';
import { median, spread } from './support/stats.js';

/** µs per operation of each variant over the rounds. */
export interface ParseFigures {
  jsonParse: number[];
  runtime: number[];
  compiled: number[];
}

const redactor = new Redactor([]);
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const context = {
  method: 'GET',
  url: 'http://127.0.0.1/tasks',
  status: 200,
  mode: 'strict' as const,
  logger: new LevelLogger(silent, 'off', redactor),
  redactor,
};

/** Measures `iterations` parses per variant per round, variants interleaved. */
export function measureParse(rounds = 7, iterations = 5000): ParseFigures {
  const text = JSON.stringify({
    tasks: Array.from({ length: 10 }, (_, index) => sampleTask(index)),
    page: 1,
    limit: 10,
    totalPages: 3,
    total: 25,
  });
  const time = (operation: () => unknown) => {
    const started = performance.now();
    for (let index = 0; index < iterations; index++) operation();
    return ((performance.now() - started) * 1000) / iterations;
  };
  const sdk = () => {
    const parsed = parseJsonBody(text);
    if (!parsed.ok) throw new Error(parsed.reason);
    return parseResponse(TaskListResponse, parsed.value, context);
  };
  const figures: ParseFigures = { jsonParse: [], runtime: [], compiled: [] };
  // The runtime parser first, then the compiled one (left installed, as the Node build has it); JSON.parse
  // alone beside each round.
  for (const variant of ['runtime', 'compiled'] as const) {
    useSchemaCompiler(variant === 'compiled' ? compile : undefined);
    time(sdk);
    time(() => JSON.parse(text));
    for (let round = 0; round < rounds; round++) {
      figures.jsonParse.push(time(() => JSON.parse(text)));
      figures[variant].push(time(sdk));
    }
  }
  return figures;
}

/** Prints the figures and the ratio the issue sets a goal for (≤ 1.2× `JSON.parse`). */
export function printParse(figures: ParseFigures): void {
  const base = median(figures.jsonParse);
  console.log('Parse + validate a 10-task page (12.5 KB of JSON), µs, median (min–max):');
  console.log(`  JSON.parse alone                         ${spread(figures.jsonParse, 1)}`);
  console.log(
    `  SDK, Node build (zod compiler installed) ${spread(figures.compiled, 1)} = ${(median(figures.compiled) / base).toFixed(2)}× JSON.parse (goal ≤ 1.2×)`,
  );
  console.log(
    `  SDK, bundler build (runtime parser)      ${spread(figures.runtime, 1)} = ${(median(figures.runtime) / base).toFixed(2)}× JSON.parse`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) printParse(measureParse());
