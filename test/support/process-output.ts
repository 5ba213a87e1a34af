/** What a child process started with piped stdout and stderr wrote, and how it ended. */
import type { ChildProcess } from 'node:child_process';

/** A child process's output once it closed: its exit code or signal, and all it wrote. */
export interface ProcessOutput {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Collects `child`'s stdout and stderr (spawned with both piped) until it closes; rejects when it could not
 * be started.
 */
export function outputOf(child: ChildProcess): Promise<ProcessOutput> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
