/**
 * Running `delivery-task` in tests: in process through `runCli` with a capturing io, or as a child
 * process (`node` with {@link cliFromSources}), both against a mock served over real sockets.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { MockDeliveryService } from 'delivery-task-sdk/testing';
import type { CliIo } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/main.js';
import { cliFromSources } from './cli-command.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** What a command run produced. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment that points the CLI at `mock` served at `url`. */
export function cliEnv(mock: MockDeliveryService, url: string): Record<string, string> {
  return { DELIVERY_API_KEY: mock.apiKey, DELIVERY_SELLER_ID: mock.sellerId, DELIVERY_BASE_URL: url };
}

/** Options of {@link runInProcess}. */
export interface InProcessOptions {
  env: Readonly<Record<string, string | undefined>>;
  signal?: AbortSignal;
  /** Passed as the io's `stderrIsTTY`. */
  stderrIsTTY?: boolean;
  /** Called with each stdout write, after it is captured. */
  onStdout?: (text: string, stdoutSoFar: string) => void;
}

/** Runs `argv` through `runCli` in this process and captures both streams. */
export async function runInProcess(argv: readonly string[], options: InProcessOptions): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
      options.onStdout?.(text, stdout);
    },
    stderr: (text) => {
      stderr += text;
    },
    env: options.env,
    signal: options.signal ?? new AbortController().signal,
    ...(options.stderrIsTTY === undefined ? {} : { stderrIsTTY: options.stderrIsTTY }),
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

/** A running child process of the CLI. */
export interface CliChild {
  /** Sends a signal to the child. */
  kill(signal: NodeJS.Signals): void;
  /** Settles when the child has exited. */
  done: Promise<CliRun & { signal: NodeJS.Signals | null }>;
  /** Resolves at the first stdout output that satisfies `test`. */
  waitForStdout(test: (stdout: string) => boolean): Promise<string>;
}

/** The CLI processes started and not yet exited. */
const running = new Set<ChildProcess>();

/**
 * Kills every CLI process still running (SIGKILL), and waits for each to exit: a test that timed out
 * leaves none behind to reach the next test's mock.
 */
export async function killCliProcesses(): Promise<void> {
  const exits = [...running].map((child) => new Promise((resolve) => child.once('exit', resolve)));
  for (const child of running) child.kill('SIGKILL');
  await Promise.all(exits);
}

/**
 * A test that starts CLI processes, ms: each start loads the CLI's modules, seconds with both cores busy
 * (`npm run test:stress`).
 */
export const CLI_PROCESS_TEST_TIMEOUT_MS = 90_000;

/**
 * Starts `src/cli.ts` in a child process with only `env` (plus PATH and the temp directory), so the
 * test machine's own DELIVERY_* variables never leak in.
 */
export function startCliProcess(argv: readonly string[], env: Record<string, string>): CliChild {
  const child = spawn(process.execPath, [...cliFromSources(), ...argv], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', TMPDIR: process.env.TMPDIR ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let stdout = '';
  let stderr = '';
  const waiters: Array<{ test: (stdout: string) => boolean; resolve: (stdout: string) => void }> = [];
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const waiter of [...waiters]) {
      if (waiter.test(stdout)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(stdout);
      }
    }
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<CliRun & { signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code: code ?? -1, signal, stdout, stderr }));
  });
  return {
    kill: (signal) => child.kill(signal),
    done,
    waitForStdout: (test) =>
      test(stdout) ? Promise.resolve(stdout) : new Promise((resolve) => waiters.push({ test, resolve })),
  };
}

/** Runs the CLI in a child process to the end. */
export function runCliProcess(argv: readonly string[], env: Record<string, string>): Promise<CliRun> {
  return startCliProcess(argv, env).done;
}
