/**
 * A benchmark's worker process: `script` run with its JSON config, ready once it printed `READY`, its
 * counts the last JSON line it prints, its progress the last `handled <n>` line (bench/intake.ts,
 * bench/peers-drain.ts).
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
}

/**
 * Spawns `node [execArgv] --import tsx <script> '<json config>'`; resolves once it printed `READY`.
 * `onSpawn` sees the child first, so a caller can stop it whatever happens next.
 * @throws when it ends before `READY`, with the end of its stderr.
 */
export function startReadyWorker(
  script: string,
  config: unknown,
  execArgv: readonly string[] = [],
  onSpawn: (child: ChildProcess) => void = () => {},
): Promise<ReadyWorker> {
  const child = spawn(process.execPath, [...execArgv, '--import', 'tsx', script, JSON.stringify(config)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  onSpawn(child);
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
          resolve({ child, stats, handled: () => handled });
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
