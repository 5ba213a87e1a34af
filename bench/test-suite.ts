/**
 * The test suite's own speed and stability (`npm run bench:suite`; the last step of `npm run bench`):
 * runs `npm test` (`vitest run`: the whole suite, real servers included; two files per core) `--runs N`
 * times in a row (default 1), with `--ci` as CI runs it (`CI=true`: one file per core), and prints, per
 * run, the wall time beside its goal (≤ 4 min on 2 cores), the tests passed
 * and failed, and the name of each failing test; then the flaky tests over all runs (goal: none in 5
 * runs in a row). docs/performance.md § "Test suite" quotes the figures.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

const GOAL_MS = 4 * 60_000;

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  testResults: {
    name: string;
    assertionResults: { fullName: string; status: string; failureMessages?: string[] }[];
  }[];
}

const runsFlag = process.argv.indexOf('--runs');
const runs = runsFlag === -1 ? 1 : Number(process.argv[runsFlag + 1]);
if (!Number.isSafeInteger(runs) || runs < 1) throw new Error('--runs takes a whole number ≥ 1');

const ci = process.argv.includes('--ci');
console.log(
  `Test suite: ${runs} run(s) of \`npm test\` (vitest run${ci ? ', CI=true' : ''}) on ${os.availableParallelism()} cores`,
);
const failures = new Map<string, number>();
for (let run = 1; run <= runs; run++) {
  const report = join(os.tmpdir(), `dts-suite-${process.pid}-${run}.json`);
  const started = performance.now();
  spawnSync('npx', ['vitest', 'run', '--reporter=json', `--outputFile.json=${report}`], {
    env: ci
      ? { ...process.env, CI: 'true' }
      : Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'CI')),
    stdio: 'ignore',
  });
  const wallMs = performance.now() - started;
  let result: VitestReport;
  try {
    result = JSON.parse(readFileSync(report, 'utf8')) as VitestReport;
  } catch {
    console.log(`  run ${run}: no report (vitest did not finish) after ${(wallMs / 1000).toFixed(0)} s`);
    continue;
  } finally {
    rmSync(report, { force: true });
  }
  const minutes = `${Math.floor(wallMs / 60_000)} min ${Math.round((wallMs % 60_000) / 1000)} s`;
  console.log(
    `  run ${run}: ${minutes} (goal ≤ 4 min${wallMs <= GOAL_MS ? ', met' : ', NOT met'}), ` +
      `${result.numPassedTests} passed, ${result.numFailedTests} failed`,
  );
  for (const file of result.testResults) {
    for (const test of file.assertionResults) {
      if (test.status !== 'failed') continue;
      console.log(`    failed: ${test.fullName}`);
      console.log(`      ${(test.failureMessages?.[0] ?? '').split('\n')[0]?.slice(0, 300)}`);
      failures.set(test.fullName, (failures.get(test.fullName) ?? 0) + 1);
    }
  }
}
console.log(
  failures.size === 0
    ? `  flaky tests over ${runs} run(s): 0 (goal 0 in 5 runs)`
    : `  flaky tests over ${runs} run(s): ${failures.size} (goal 0 in 5 runs): ${[...failures.keys()].join('; ')}`,
);
