/** A test that leaves a process running, for test/testing/leftover-processes.test.ts. */
import { spawn } from 'node:child_process';
import { it } from 'vitest';

it('starts a process and leaves it running', () => {
  const child = spawn('sleep', ['60'], { stdio: 'ignore', detached: true });
  child.unref();
});
