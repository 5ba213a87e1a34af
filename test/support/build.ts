/**
 * Builds the package for the tests that load `dist/`, once at a time across vitest's worker processes:
 * two concurrent `npm run build`s would each wipe `dist/` (tsup's `clean`) under the other. A lock
 * directory serialises them; the second test then finds the build fresh and skips its own.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './root.js';

/** Longest a build may take, ms. */
export const BUILD_TIMEOUT_MS = 240_000;

/** Newest modification time (ms) of any file under `folder`; 0 when it has none. */
export function newestMtime(folder: string): number {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** True when `file` (from the repository root) exists and is newer than every file under both packages' src/. */
export function builtAfterSource(file: string): boolean {
  try {
    const newest = Math.max(
      newestMtime(join(ROOT, 'src')),
      newestMtime(join(ROOT, 'packages', 'tools', 'src')),
    );
    return statSync(join(ROOT, file)).mtimeMs >= newest;
  } catch {
    return false;
  }
}

const LOCK = join(ROOT, 'node_modules', '.cache', 'delivery-task-sdk-build.lock');
/** The holder's process id, written inside the lock directory. */
const HOLDER = join(LOCK, 'pid');

/**
 * True when the lock was left by a process that is gone (killed while building): its pid file names a
 * process that no longer exists, or it has none and is older than a build may take.
 */
function lockIsStale(): boolean {
  try {
    const pid = Number(readFileSync(HOLDER, 'utf8'));
    try {
      process.kill(pid, 0);
      return false;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ESRCH';
    }
  } catch {
    try {
      return Date.now() - statSync(LOCK).mtimeMs > BUILD_TIMEOUT_MS;
    } catch {
      return false;
    }
  }
}

/** Runs `npm run build` unless `fresh()` says the build is already there; one build at a time. */
export async function ensureBuilt(fresh: () => boolean): Promise<void> {
  mkdirSync(join(LOCK, '..'), { recursive: true });
  const giveUpAt = Date.now() + BUILD_TIMEOUT_MS;
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(HOLDER, String(process.pid));
      break;
    } catch {
      if (lockIsStale()) {
        rmSync(LOCK, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > giveUpAt) throw new Error(`another build held ${LOCK} for ${BUILD_TIMEOUT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    if (fresh()) return;
    const code = await new Promise<number | null>((resolve, reject) => {
      const build = spawn('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
      const timer = setTimeout(() => {
        build.kill('SIGKILL');
        reject(new Error(`npm run build did not end within ${BUILD_TIMEOUT_MS} ms`));
      }, BUILD_TIMEOUT_MS);
      build.once('error', reject);
      build.once('close', (exit) => {
        clearTimeout(timer);
        resolve(exit);
      });
    });
    if (code !== 0) throw new Error(`npm run build exited with ${code}`);
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
