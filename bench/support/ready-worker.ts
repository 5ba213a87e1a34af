/**
 * A benchmark's worker process: `script` run with its JSON config, ready once it printed `READY`, its
 * counts the last JSON line it prints, its progress the last `handled <n>` line (bench/intake.ts,
 * bench/peers-drain.ts). With `DRAIN_PROFILE=<folder>` each worker writes its CPU profile there
 * (`node --cpu-prof`) as it exits.
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';

/** How often a started worker prints `handled <n>` (the events it handled so far), ms. */
export const PROGRESS_EVERY_MS = 10;

/** A started worker, connected and waiting for its start line on stdin. */
export interface ReadyWorker {
  child: ChildProcess;
  /** The last JSON line it printed (its counts), or why it ended without one. */
  stats: Promise<string>;
  /** The events it handled so far, from its last `handled <n>` line (0 before the first). */
  handled(): number;
  /** Resolves once it exited (a profiled worker has then written its profile). */
  exited: Promise<void>;
}

/**
 * Spawns `node --import tsx <script> '<json config>'` (with `--cpu-prof` into DRAIN_PROFILE
 * when set); resolves once it printed `READY`.
 * `onSpawn` sees the child first, so a caller can stop it whatever happens next.
 * @throws when it ends before `READY`, with the end of its stderr.
 */
export function startReadyWorker(
  script: string,
  config: unknown,
  onSpawn: (child: ChildProcess) => void = () => {},
): Promise<ReadyWorker> {
  const profile = process.env.DRAIN_PROFILE
    ? ['--cpu-prof', '--cpu-prof-dir', process.env.DRAIN_PROFILE]
    : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', script, JSON.stringify(config)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  onSpawn(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  let ready = false;
  let handled = 0;
  let partial = '';
  let resolveStats: (line: string) => void = () => {};
  const stats = new Promise<string>((resolve) => {
    resolveStats = resolve;
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (line === 'READY' && !ready) {
          ready = true;
          resolve({ child, stats, handled: () => handled, exited });
        } else if (line.startsWith('handled ')) handled = Number(line.slice(8));
        else if (line.startsWith('{') && line.endsWith('}')) resolveStats(line.trim());
      }
    });
    child.once('exit', (code, signal) => {
      reject(new Error(`${script} ended with ${signal ?? code}: ${stderr}`));
      resolveStats(`ended with ${signal ?? code}: ${stderr}`);
    });
  });
}
