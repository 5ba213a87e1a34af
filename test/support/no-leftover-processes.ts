/**
 * The test run's global setup (vitest.config.ts `globalSetup`): it marks the run in the environment
 * every process it starts inherits, and at the end fails the run when a process carrying the mark is
 * still alive (a server, a sandbox or a child a test did not stop), naming each one and ending it; or when a
 * folder `temporaryFolder` (temporary-folders.ts) made in the run is still there, naming and removing it.
 *
 * The mark survives what a parent chain does not: a process whose parent was killed is re-parented to
 * pid 1, but keeps its environment. One read of `/proc/<pid>/environ` per process of this user at the
 * end of the run (a few ms); Linux only, elsewhere nothing is checked.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  allProcesses,
  CAN_SEE_PROCESSES,
  commandLineOf,
  descendantsOf,
  parentOf,
  survivorsAfter,
} from './processes.js';

/** The environment variable holding the run's mark. */
export const TEST_RUN_ENV = 'DELIVERY_TASK_TEST_RUN';

/** How long processes that are ending get before they count as left behind, ms. */
const GRACE_MS = 3000;

/** The processes of this user whose environment holds `mark`. */
function markedProcesses(mark: string): number[] {
  const needle = `${TEST_RUN_ENV}=${mark}`;
  return allProcesses().filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(needle);
    } catch {
      return false; // another user's process, or ended meanwhile
    }
  });
}

/** This process, its ancestors and vitest's own workers: marked, and expected alive. */
function runnerProcesses(): Set<number> {
  const own = new Set<number>([process.pid]);
  for (let pid = parentOf(process.pid); pid !== undefined && pid > 1; pid = parentOf(pid)) own.add(pid);
  for (const pid of descendantsOf(process.pid)) {
    if (parentOf(pid) === process.pid && /vitest/.test(commandLineOf(pid))) {
      own.add(pid);
      for (const below of descendantsOf(pid)) if (/vitest/.test(commandLineOf(below))) own.add(below);
    }
  }
  return own;
}

/** The folders `temporaryFolder` made in this run (their names carry `mark`) still there; removed here. */
function leftFolders(mark: string): string[] {
  const left = readdirSync(tmpdir())
    .filter((name) => name.includes(mark))
    .map((name) => join(tmpdir(), name));
  for (const folder of left) rmSync(folder, { recursive: true, force: true });
  return left;
}

export default function setup(): (() => Promise<void>) | undefined {
  if (!CAN_SEE_PROCESSES) return undefined;
  const mark = `${process.pid}-${randomUUID()}`;
  process.env[TEST_RUN_ENV] = mark;
  return async () => {
    const runner = runnerProcesses();
    const candidates = markedProcesses(mark).filter((pid) => !runner.has(pid));
    const left = await survivorsAfter(candidates, GRACE_MS);
    const folders = leftFolders(mark);
    const foldersLeft =
      folders.length === 0
        ? ''
        : `The test run left ${folders.length} temporary folder(s) (now removed); temporaryFolder's are removed when their file ends:\n${folders.map((folder) => `  ${folder}`).join('\n')}`;
    if (left.length === 0) {
      if (foldersLeft !== '') throw new Error(foldersLeft);
      return;
    }
    const described = left.map((pid) => `  ${pid} (parent ${parentOf(pid) ?? '?'}): ${commandLineOf(pid)}`);
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Ended meanwhile.
      }
    }
    throw new Error(
      `The test run left ${left.length} process(es) running (now killed); stop each one in the test that starts it:\n${described.join('\n')}${foldersLeft === '' ? '' : `\n${foldersLeft}`}`,
    );
  };
}
