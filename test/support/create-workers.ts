/**
 * Separate processes creating orders over one Redis, behind a proxy that injects ambiguous faults: the
 * several-instances tests and `npm run soak -- --processes N --redis` share these.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TraceLine, WorkerConfig, WorkerOutcome } from './create-worker.js';
import type { HostileHandler } from './hostile-server.js';
import { scriptArgs } from './source-script.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A running worker process; `done` settles with its outcomes, or rejects when it dies. */
export interface CreateWorker {
  child: ChildProcess;
  done: Promise<WorkerOutcome[]>;
  /** What it traced so far (`trace: true`). */
  traces: TraceLine[];
}

/** Starts test/support/create-worker.ts in a process of its own (the same Node: its bundle, source-script.ts). */
export function startCreateWorker(config: WorkerConfig): CreateWorker {
  const child = spawn(
    process.execPath,
    [...scriptArgs('test/support/create-worker.ts'), JSON.stringify(config)],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  let partial = '';
  const traces: TraceLine[] = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith('TRACE ')) traces.push(JSON.parse(line.slice(6)) as TraceLine);
      else stderr += `${line}\n`;
    }
  });
  const done = new Promise<WorkerOutcome[]>((resolve, reject) => {
    child.once('close', (code, signal) => {
      const line = stdout.trim().split('\n').pop() ?? '';
      if (code === 0 && line.startsWith('[')) resolve(JSON.parse(line) as WorkerOutcome[]);
      else reject(new Error(`worker ended with ${signal ?? code}: ${stderr.slice(-2000)}`));
    });
  });
  return { child, done, traces };
}

/** A seeded random number generator (mulberry32), so a failing schedule can be replayed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Forwards the request to the mock and relays its answer. */
export const passThrough: HostileHandler = async (_request, response, { forward }) => {
  const answer = await forward();
  response.writeHead(answer.status, Object.fromEntries(answer.headers)).end(answer.body);
};

/** The ambiguous faults injected on creates. */
export const AMBIGUOUS_FAULTS = ['drop before commit', 'commit then drop', '503', 'commit then 500'] as const;

/**
 * A proxy handler that gives the first POST of about `rate` of the orders one ambiguous fault (dropped
 * before or after the service committed, a 503 before, a 500 after), chosen by a seeded schedule.
 * `faulted` lists the orders hit, `counts` the faults by kind.
 */
export function ambiguousCreateFaults(seed: number, rate: number) {
  const random = seededRandom(seed);
  const faulted = new Set<string>();
  const counts: Record<(typeof AMBIGUOUS_FAULTS)[number], number> = {
    'drop before commit': 0,
    'commit then drop': 0,
    '503': 0,
    'commit then 500': 0,
  };
  const handler: HostileHandler = async (request, response, context) => {
    let orderNumber: string | undefined;
    try {
      orderNumber =
        request.method === 'POST'
          ? (JSON.parse(context.body.toString()) as { orderNumber?: string }).orderNumber
          : undefined;
    } catch {
      orderNumber = undefined;
    }
    if (orderNumber === undefined || faulted.has(orderNumber) || random() >= rate) {
      await passThrough(request, response, context);
      return;
    }
    faulted.add(orderNumber);
    const kind = AMBIGUOUS_FAULTS[Math.floor(random() * AMBIGUOUS_FAULTS.length)] ?? '503';
    counts[kind]++;
    if (kind === 'drop before commit') request.socket.destroy();
    else if (kind === '503') response.writeHead(503).end();
    else {
      await context.forward();
      if (kind === 'commit then drop') request.socket.destroy();
      else response.writeHead(500).end();
    }
  };
  return { handler, faulted, counts };
}
