/**
 * The test run fails when a process a test started is still alive at its end (vitest.config.ts
 * `globalSetup`: test/support/no-leftover-processes.ts), and names and ends that process.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CAN_SEE_PROCESSES, isAlive } from '../support/processes.js';
import { ROOT } from '../support/root.js';

describe.skipIf(!CAN_SEE_PROCESSES)('the global check for processes left running', () => {
  it('fails the run, naming the process, and ends it', () => {
    const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
    const run = spawnSync(
      process.execPath,
      [vitest, 'run', '--config', 'test/support/leftover/vitest.config.ts'],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, NODE_OPTIONS: '' },
        timeout: 60_000,
      },
    );
    const output = `${run.stdout}${run.stderr}`;
    expect(run.status, output).toBe(1);
    expect(output).toMatch(/left 1 process\(es\) running \(now killed\)/);
    const pid = Number(/^ {2}(\d+) \(parent \d+\): sleep 60$/m.exec(output)?.[1]);
    expect(pid).toBeGreaterThan(1);
    expect(isAlive(pid)).toBe(false);
  });
});
