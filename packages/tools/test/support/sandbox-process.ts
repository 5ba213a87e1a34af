/**
 * `delivery-task sandbox` as a separate process, driven with plain `fetch` the way a test in another
 * language would. Every HTTP response the sandbox gives through {@link SandboxProcess.fetch} is recorded
 * (method, path, status, parsed JSON body), per process and for the whole test file, so that a contract
 * test can check each one against the OpenAPI document.
 *
 * The process is `node <the run's bundle of src/cli.ts> sandbox --port 0 --json …` (cli-command.ts; or
 * `node dist/cli.js …`): one process, which gets the signals itself. Not `npx tsx` nor tsx's CLI: both start the real
 * process as a child of their own, and a SIGKILL (a timeout, `killAllSandboxes`) of the parent left
 * that child running with parent 1. Each process also leads its own process group, and a SIGKILL
 * goes to the whole group, so whatever it may start ends with it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { delimiter, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliFromSources } from './cli-command.js';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** How long a sandbox may take to print its line, ms. */
const START_TIMEOUT_MS = 30_000;

/** How long a stopped sandbox may take to exit, ms. */
const STOP_TIMEOUT_MS = 10_000;

/** Most stdout/stderr text kept per process, characters. */
const MAX_OUTPUT_CHARS = 64 * 1024;

/** One HTTP response the sandbox gave. */
export interface RecordedResponse {
  /** Request method, upper case. */
  readonly method: string;
  /** URL path, percent-encoded as sent (`/tasks/abc`, `/_sandbox/reset`). */
  readonly path: string;
  /** Query string with its `?`, or `''`. */
  readonly query: string;
  readonly status: number;
  readonly contentType: string | null;
  /** The parsed JSON body; `undefined` when the body is empty or not JSON (then see `text`). */
  readonly body: unknown;
  /** The body as text. */
  readonly text: string;
}

/** Every response recorded in this test file, by every sandbox, in order. */
export const recordedResponses: RecordedResponse[] = [];

/** How a process ended. */
export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A running sandbox process. */
export interface SandboxProcess {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly sellerId: string;
  readonly controlUrl: string;
  readonly pid: number;
  /** The responses of this sandbox, in order. */
  readonly responses: readonly RecordedResponse[];
  /** The credential headers of the service (`authorization`, `x-seller-id`) plus `extra`. */
  headers(extra?: Record<string, string>): Record<string, string>;
  /** Plain `fetch` of a path (`/tasks`) or an absolute URL, with the response recorded; the body stays readable. */
  fetch(pathOrUrl: string, init?: RequestInit): Promise<Response>;
  /** What the process wrote to stderr so far. */
  stderr(): string;
  /** Resolves when the process exits. */
  readonly exited: Promise<Exit>;
  /** Sends `signal` (default SIGTERM) and resolves with the exit; SIGKILL and a rejection after 10 s. */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
}

/** Which build of the command runs. */
export type SandboxEntry = 'source' | 'dist' | InstalledCommand;

/** A command installed in a project, run there (`npx delivery-task-tools`). */
export interface InstalledCommand {
  /** The program (`npx`) and the arguments before `delivery-task`'s own (`['delivery-task-tools']`). */
  readonly command: string;
  readonly args: readonly string[];
  /** The project folder it runs in. */
  readonly cwd: string;
}

const running = new Set<ChildProcess>();

/** The command line of `delivery-task <args>`. */
function commandOf(entry: 'source' | 'dist', args: readonly string[]): string[] {
  if (entry === 'dist') return ['dist/cli.js', ...args];
  return [...cliFromSources(), ...args];
}

/** Children started through another program (`npx`), which need every signal sent to their whole group. */
const wrapped = new WeakSet<ChildProcess>();

/**
 * Sends `signal` to `child` (SIGKILL, or any signal to a command started through `npx`: to the process
 * group it leads, so everything it started gets it too).
 */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(signal === 'SIGKILL' || wrapped.has(child) ? -child.pid : child.pid, signal);
  } catch {
    // Already ended.
  }
}

/** Spawns the command; `closed` resolves once it has exited and its output pipes have closed. */
function spawnCli(
  entry: SandboxEntry,
  args: readonly string[],
): { child: ChildProcess; closed: Promise<Exit> } {
  const installed = typeof entry === 'object';
  const child = spawn(
    installed ? entry.command : process.execPath,
    installed ? [...entry.args, ...args] : commandOf(entry, args),
    {
      cwd: installed ? entry.cwd : ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      // The test's Node first on PATH, so `npx` runs the command with it.
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
      },
      detached: true,
    },
  );
  running.add(child);
  if (installed) wrapped.add(child);
  const closed = new Promise<Exit>((resolve) => {
    child.once('close', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });
  return { child, closed };
}

function collect(stream: NodeJS.ReadableStream | null): () => string {
  let text = '';
  stream?.setEncoding('utf8');
  stream?.on('data', (chunk: string) => {
    text = (text + chunk).slice(-MAX_OUTPUT_CHARS);
  });
  return () => text;
}

async function recordingFetch(
  baseUrl: string,
  responses: RecordedResponse[],
  pathOrUrl: string,
  init?: RequestInit,
): Promise<Response> {
  const url = new URL(pathOrUrl, baseUrl);
  const response = await fetch(url, init);
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  const recorded: RecordedResponse = {
    method: (init?.method ?? 'GET').toUpperCase(),
    path: url.pathname,
    query: url.search,
    status: response.status,
    contentType: response.headers.get('content-type'),
    body,
    text,
  };
  responses.push(recorded);
  recordedResponses.push(recorded);
  const withoutBody = [101, 204, 205, 304].includes(response.status);
  return new Response(withoutBody ? null : text, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** A long-running `delivery-task` process that has printed its first line. */
export interface RunningCommand {
  /** The first line it printed on stdout, without the newline. */
  readonly line: string;
  readonly pid: number;
  /** What it wrote to stderr so far. */
  stderr(): string;
  /** Resolves when the process has exited and its pipes have closed. */
  readonly exited: Promise<Exit>;
  /** Sends `signal` (default SIGTERM) and resolves with the exit; SIGKILL and a rejection after 10 s. */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
}

/**
 * Starts `delivery-task <args>` and resolves once it has printed its first line on stdout.
 * @throws when it exits first or prints nothing within 30 s (with its stderr in the message).
 */
export async function startCli(
  args: readonly string[],
  entry: SandboxEntry = 'source',
): Promise<RunningCommand> {
  const { child, closed: exited } = spawnCli(entry, args);
  const stderr = collect(child.stderr);
  const line = await new Promise<string>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => {
      signalGroup(child, 'SIGKILL');
      reject(new Error(`delivery-task printed no line within ${START_TIMEOUT_MS} ms; stderr: ${stderr()}`));
    }, START_TIMEOUT_MS);
    const onData = (chunk: string) => {
      text = (text + chunk).slice(0, MAX_OUTPUT_CHARS);
      const end = text.indexOf('\n');
      if (end < 0) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stdout?.resume();
      resolve(text.slice(0, end));
    };
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', onData);
    void exited.then((exit) => {
      clearTimeout(timer);
      reject(
        new Error(
          `delivery-task exited (${JSON.stringify(exit)}) before printing a line; stderr: ${stderr()}`,
        ),
      );
    });
  });
  return {
    line,
    pid: child.pid ?? -1,
    stderr,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) signalGroup(child, signal);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          signalGroup(child, 'SIGKILL');
          reject(new Error(`delivery-task did not exit within ${STOP_TIMEOUT_MS} ms of ${signal}`));
        }, STOP_TIMEOUT_MS);
      });
      try {
        return await Promise.race([exited, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * Starts `delivery-task sandbox --port 0 --json …args` and resolves once it has printed its JSON line.
 * A `--port` in `args` wins (the last one given counts).
 * @throws as {@link startCli}.
 */
export async function startSandboxProcess(
  args: readonly string[] = [],
  entry: SandboxEntry = 'source',
): Promise<SandboxProcess> {
  const command = await startCli(['sandbox', '--port', '0', '--json', ...args], entry);
  const started = JSON.parse(command.line) as {
    baseUrl: string;
    apiKey: string;
    sellerId: string;
    controlUrl: string;
  };
  const responses: RecordedResponse[] = [];
  return {
    ...started,
    pid: command.pid,
    responses,
    headers: (extra = {}) => ({
      authorization: `apikey ${started.apiKey}`,
      'x-seller-id': started.sellerId,
      ...extra,
    }),
    fetch: (pathOrUrl, init) => recordingFetch(started.baseUrl, responses, pathOrUrl, init),
    stderr: command.stderr,
    exited: command.exited,
    stop: command.stop,
  };
}

/** What a finished command printed and its exit. */
export interface CommandResult extends Exit {
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `delivery-task <args>` to its end (SIGKILL after `timeoutMs`, default 30 s).
 * @throws when it does not end in time.
 */
export async function runCli(
  args: readonly string[],
  entry: SandboxEntry = 'source',
  timeoutMs = 30_000,
): Promise<CommandResult> {
  const { child, closed } = spawnCli(entry, args);
  const stdout = collect(child.stdout);
  const stderr = collect(child.stderr);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      signalGroup(child, 'SIGKILL');
      reject(new Error(`delivery-task ${args.join(' ')} did not end within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    const exit = await Promise.race([closed, timeout]);
    return { ...exit, stdout: stdout(), stderr: stderr() };
  } finally {
    clearTimeout(timer);
  }
}

/** Kills (SIGKILL) every sandbox process of this file still running: for `afterAll`. */
export function killAllSandboxes(): void {
  for (const child of running) signalGroup(child, 'SIGKILL');
}

/** One POST the webhook receiver got. */
export interface ReceivedWebhook {
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON body. */
  readonly body: Record<string, unknown>;
}

/** A plain `node:http` webhook receiver on 127.0.0.1. */
export interface WebhookReceiver {
  readonly url: string;
  /** Every POST so far, in arrival order. */
  readonly received: readonly ReceivedWebhook[];
  /** Most requests it was answering at the same time. */
  readonly maxInFlight: number;
  /** Resolves once `count` POSTs have arrived; rejects after `timeoutMs` (default 10 s). */
  waitFor(count: number, timeoutMs?: number): Promise<readonly ReceivedWebhook[]>;
  close(): Promise<void>;
}

/**
 * Starts a webhook receiver that answers every POST 200 after `answerAfterMs` (default 0) and keeps
 * its JSON body (bodies over 1 MiB are refused with 413).
 */
export async function startWebhookReceiver(answerAfterMs = 0): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const waiters: Array<() => void> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((request, response) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const chunks: Buffer[] = [];
    let length = 0;
    request.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length > 1024 * 1024) request.destroy();
      else chunks.push(chunk);
    });
    request.on('end', () => {
      received.push({ headers: request.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      for (const wake of waiters.splice(0)) wake();
      setTimeout(() => {
        inFlight -= 1;
        response.writeHead(200).end();
      }, answerAfterMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks/delivery`,
    received,
    get maxInFlight() {
      return maxInFlight;
    },
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`got ${received.length} webhooks, expected ${count}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
