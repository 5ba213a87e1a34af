/**
 * A benchmark's worker process: `script` run with its JSON config, ready once it printed `READY`, its
 * counts the last JSON line it prints (bench/intake.ts, bench/peers-drain.ts).
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';

/** A started worker, connected and waiting for its start line on stdin. */
export interface ReadyWorker {
  child: ChildProcess;
  /** The last JSON line it printed (its counts), or why it ended without one. */
  stats: Promise<string>;
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
  let stdout = '';
  let resolveStats: (line: string) => void = () => {};
  const stats = new Promise<string>((resolve) => {
    resolveStats = resolve;
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('READY\n')) resolve({ child, stats });
      const last = /\{.*\}\n/.exec(stdout);
      if (last) resolveStats(last[0].trim());
    });
    child.once('exit', (code, signal) => {
      reject(new Error(`${script} ended with ${signal ?? code}: ${stderr}`));
      resolveStats(`ended with ${signal ?? code}: ${stderr}`);
    });
  });
}
