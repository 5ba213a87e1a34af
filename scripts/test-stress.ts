/**
 * The test suite on a machine whose cores are kept busy (`npm run test:stress`; CONTRIBUTING "Commands"):
 * starts one busy loop per core (child processes at full CPU, `--busy N` for another count), then runs
 * `npm test` `--runs N` times in a row (default 3), printing each run's result and the name of every
 * failing test. The loops are killed at the end whatever happens (an error, Ctrl-C, SIGTERM); a loop whose
 * parent died ends itself within about a second. Exits 1 when any run failed or did not finish.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  testResults: {
    name: string;
    status: string;
    message?: string;
    assertionResults: { fullName: string; status: string; failureMessages?: string[] }[];
  }[];
}

/** The whole number after `flag`, else `fallback`. @throws for a value that is not a whole number ≥ `min`. */
function wholeFlag(flag: string, fallback: number, min: number): number {
  const at = process.argv.indexOf(flag);
  if (at === -1) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isSafeInteger(value) || value < min) throw new Error(`${flag} takes a whole number ≥ ${min}`);
  return value;
}

const runs = wholeFlag('--runs', 3, 1);
const cores = os.availableParallelism();
const busy = wholeFlag('--busy', cores, 0);

// Each loop checks every ~10^8 iterations (a fraction of a second) that the script still runs.
const LOOP = `const parent = Number(process.argv[1]); for (;;) { for (let i = 0; i < 1e8; i++); if (process.ppid !== parent) process.exit(0); }`;
const loops: ChildProcess[] = [];
let suite: ChildProcess | undefined;

/** Kills the loops, and signals a running `npm test` (its whole process group). Safe to call more than once. */
function stopAll(signal: NodeJS.Signals = 'SIGTERM'): boolean {
  for (const loop of loops.splice(0)) loop.kill('SIGKILL');
  if (suite?.pid === undefined || suite.exitCode !== null || suite.signalCode !== null) return false;
  try {
    process.kill(-suite.pid, signal);
    return true;
  } catch {
    return false; // Already gone.
  }
}
process.on('exit', () => stopAll('SIGKILL'));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    const code = signal === 'SIGINT' ? 130 : 143;
    if (!stopAll()) process.exit(code);
    // vitest waits for its running tests on SIGTERM: at most 5 s, then the group is killed.
    suite?.once('close', () => process.exit(code));
    setTimeout(() => process.exit(code), 5000);
  });
}

/** One `npm test` with a JSON report beside the usual output; `undefined` when it left none. */
function runSuite(report: string): Promise<VitestReport | undefined> {
  return new Promise((resolve) => {
    suite = spawn(
      'npm',
      ['test', '--', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`],
      {
        stdio: 'inherit',
        detached: true,
      },
    );
    suite.once('close', () => {
      try {
        resolve(JSON.parse(readFileSync(report, 'utf8')) as VitestReport);
      } catch {
        resolve(undefined);
      } finally {
        rmSync(report, { force: true });
      }
    });
  });
}

async function main(): Promise<number> {
  for (let index = 0; index < busy; index++) {
    loops.push(spawn(process.execPath, ['-e', LOOP, String(process.pid)], { stdio: 'ignore' }));
  }
  console.log(`Stress: ${runs} run(s) of \`npm test\` with ${busy} busy loop(s) on ${cores} core(s)`);
  const lines: string[] = [];
  const failed = new Map<string, number>();
  for (let run = 1; run <= runs; run++) {
    const started = performance.now();
    const result = await runSuite(join(os.tmpdir(), `dts-stress-${process.pid}-${run}.json`));
    const seconds = Math.round((performance.now() - started) / 1000);
    const load = os
      .loadavg()
      .map((value) => value.toFixed(1))
      .join(' ');
    if (result === undefined) {
      lines.push(`run ${run}: no report (the suite did not finish) after ${seconds} s; load ${load}`);
      failed.set('(no report)', (failed.get('(no report)') ?? 0) + 1);
      continue;
    }
    lines.push(
      `run ${run}: ${result.numPassedTests} passed, ${result.numFailedTests} failed, ${seconds} s; load ${load}`,
    );
    for (const file of result.testResults) {
      const tests = file.assertionResults.filter((test) => test.status === 'failed');
      // A file that failed outside its tests (an import, a hook) has no failed test to name.
      if (file.status === 'failed' && tests.length === 0) {
        lines.push(`  failed file: ${file.name}: ${(file.message ?? '').split('\n')[0]?.slice(0, 300)}`);
        failed.set(file.name, (failed.get(file.name) ?? 0) + 1);
      }
      for (const test of tests) {
        lines.push(`  failed: ${test.fullName}`);
        lines.push(`    ${(test.failureMessages?.[0] ?? '').split('\n')[0]?.slice(0, 300)}`);
        failed.set(test.fullName, (failed.get(test.fullName) ?? 0) + 1);
      }
    }
  }
  stopAll();
  console.log(`\nStress with ${busy} busy loop(s) on ${cores} core(s):`);
  for (const line of lines) console.log(line);
  console.log(
    failed.size === 0
      ? `0 failures in ${runs} run(s)`
      : `${failed.size} failing test(s) over ${runs} run(s): ${[...failed].map(([name, times]) => `${name} (${times}×)`).join('; ')}`,
  );
  return failed.size === 0 ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    stopAll();
    console.error(error);
    process.exitCode = 1;
  },
);
