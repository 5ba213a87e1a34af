/**
 * Many generated worlds (`npm run bench:model`; CONTRIBUTING.md "Model tests"): the model tests of
 * `test/model/` with more worlds than `npm test` runs, first with the world kinds `npm test` runs, then
 * with each flag of `MODEL_FLAGS` alone (the kinds that meet a defect being fixed), and prints per run
 * the worlds tried, the time, and each failure with its minimal counterexample and timeline.
 *
 *   npm run bench:model -- --worlds 300 --seed 42 --flags long-stalls,zoneless --files create,intake
 *
 * `--worlds N` per property (default 200), `--seed S` (default: random, printed), `--flags a,b` (one
 * run with those flags; `all` for every one; default: the defaults, then each flag alone), `--files`
 * (default: every file of test/model/). A failure is replayed with `MODEL_SEED=S MODEL_WORLDS=N
 * MODEL_FLAGS=… npx vitest run test/model/<file>.test.ts`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MODEL_FLAGS } from '../test/support/model-flags.js';
import type { ModelFailure } from '../test/support/model-run.js';

const root = fileURLToPath(new URL('..', import.meta.url));

function option(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
}

const worlds = Number(option('worlds') ?? 200);
const seed = Number(option('seed') ?? Math.floor(Math.random() * 2 ** 31));
const files = (
  option('files')?.split(',') ??
  readdirSync(join(root, 'test/model')).map((name) => name.replace(/\.test\.ts$/, ''))
)
  .filter((name) => !name.endsWith('.ts'))
  .map((name) => `test/model/${name}.test.ts`);
const flagRuns: string[] =
  option('flags') !== undefined ? [option('flags') ?? ''] : ['', ...Object.keys(MODEL_FLAGS)];

if (!(Number.isSafeInteger(worlds) && worlds > 0) || !Number.isSafeInteger(seed)) {
  throw new Error(
    'usage: npm run bench:model -- [--worlds N] [--seed S] [--flags a,b|all] [--files create,intake,window]',
  );
}

interface Line {
  kind: string;
  seed: number;
  worlds: number;
  ms: number;
  failure?: ModelFailure;
}

const scratch = mkdtempSync(join(tmpdir(), 'bench-model-'));
const summary: string[] = [];
console.log(
  `bench:model: ${worlds} worlds per property, seed ${seed}, ${files.length} file(s), ${flagRuns.length} flag run(s)`,
);
try {
  for (const flags of flagRuns) {
    const report = join(scratch, `report-${flagRuns.indexOf(flags)}.jsonl`);
    const label = flags === '' ? 'the defaults of npm test' : `MODEL_FLAGS=${flags}`;
    console.log(`\n== ${label}`);
    const run = spawnSync(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', ...files], {
      cwd: root,
      env: {
        ...process.env,
        MODEL_WORLDS: String(worlds),
        MODEL_SEED: String(seed),
        MODEL_FLAGS: flags,
        MODEL_REPORT: report,
      },
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    });
    let lines: Line[] = [];
    try {
      lines = readFileSync(report, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Line);
    } catch {
      console.log(`no report: vitest ended with ${run.status}\n${(run.stdout + run.stderr).slice(-3000)}`);
      continue;
    }
    for (const line of lines) {
      const verdict = line.failure === undefined ? 'no failure' : 'FAILED';
      const rate = ((line.worlds * 1000) / Math.max(1, line.ms)).toFixed(1);
      console.log(
        `${line.kind}: ${line.worlds} worlds in ${(line.ms / 1000).toFixed(1)} s (${rate}/s): ${verdict}`,
      );
      summary.push(
        `${label.padEnd(40)} ${line.kind.padEnd(24)} ${String(line.worlds).padStart(6)} worlds  ${verdict}`,
      );
      if (line.failure === undefined) continue;
      const { failure } = line;
      console.log(
        `  replay: MODEL_SEED=${seed} MODEL_WORLDS=${worlds} MODEL_FLAGS=${flags} (fast-check path ${failure.path ?? '-'}), shrunk ${failure.shrinks} time(s)`,
      );
      console.log(`  ${failure.message.split('\n').join('\n  ')}`);
      console.log(`  minimal world: ${failure.counterexample}`);
      console.log('  its timeline:');
      for (const step of failure.timeline) console.log(`    ${step}`);
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
console.log(`\nSummary (seed ${seed}):`);
for (const line of summary) console.log(`  ${line}`);
