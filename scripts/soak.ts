/**
 * Soak test of exactly-once task creation (`npm run soak`).
 *
 * A seeded random schedule of creates runs against the mock with about 20 % of them hit by an
 * ambiguous fault (5xx, dropped connection before or after the commit, delay past the timeout,
 * stalled body, invalid JSON on 2xx, 429), sometimes several in a row. After each create the mock's
 * state is compared with what the SDK said. Prints tasks created, duplicates, fees charged and
 * outcomes by kind; exits non-zero on any duplicate, lost order, or fee that does not match a task.
 *
 * Usage: npm run soak -- [--creates 1000] [--seed 42] [--fault-rate 0.2] [--http]
 * (`--http` serves the mock on a loopback port, so the faults happen on real sockets.)
 * Several instances: npm run soak -- --processes 4 --redis [--creates 200] (scripts/soak-processes.ts:
 * every process creates the same orders over one real Redis; `REDIS_URL` or a redis-server started here).
 */
import fc from 'fast-check';
import {
  DeliveryClient,
  DeliveryError,
  type Logger,
  type Task,
  TaskCreationOutcomeUnknownError,
} from '../src/index.js';
import { createMockDeliveryService, type MockFault, startMockHttpServer } from '../src/testing.js';
import { runProcessSoak } from './soak-processes.js';
import type { SoakReport } from './soak-report.js';

/** Options of {@link runSoak}. */
export interface SoakOptions {
  /** Creates to run. */
  creates: number;
  /** Seed of the schedule; the same seed gives the same schedule. */
  seed: number;
  /** Share of creates hit by a fault, 0…1. Default 0.2. */
  faultRate?: number;
  /** Per-attempt timeout of the client in ms. Default 150. */
  timeoutMs?: number;
  /** `'http'` serves the mock on a loopback port (real sockets); default `'msw'` (in-process interception). */
  transport?: 'msw' | 'http';
}

export type { SoakReport } from './soak-report.js';

const faultKinds = (timeoutMs: number): Array<[string, MockFault]> => [
  ['500', { kind: 'status', status: 500 }],
  ['502', { kind: 'status', status: 502 }],
  ['503', { kind: 'status', status: 503 }],
  ['504', { kind: 'status', status: 504 }],
  ['408', { kind: 'status', status: 408 }],
  ['429', { kind: 'status', status: 429, headers: { 'retry-after-ms': '5' } }],
  ['drop-before-commit', { kind: 'network-error' }],
  ['commit-then-drop', { kind: 'commit-then-drop' }],
  ['delay-past-timeout', { kind: 'delay', ms: timeoutMs * 2 }],
  ['stall-body', { kind: 'stall-body' }],
  ['invalid-json', { kind: 'invalid-json' }],
];

/** One planned create: whether a fault hits it, which, and how many requests in a row. */
interface PlannedCreate {
  roll: number;
  fault: number;
  times: number;
}

function increment(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

/** Runs the soak against a fresh mock and returns its report. The mock listens for the duration. */
export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const faultRate = options.faultRate ?? 0.2;
  const timeoutMs = options.timeoutMs ?? 150;
  const kinds = faultKinds(timeoutMs);
  // noBias: fast-check otherwise favours small values, which would skew the fault rate.
  const plan = fc.sample(
    fc.noBias(
      fc.record({
        // Doubles are spread over their bit patterns (dense near 0): draw a uniform integer instead.
        roll: fc.integer({ min: 0, max: 9999 }).map((value) => value / 10_000),
        fault: fc.integer({ min: 0, max: kinds.length - 1 }),
        times: fc.constantFrom(1, 1, 1, 1, 1, 1, 1, 2, 2, 3),
      }),
    ),
    { seed: options.seed, numRuns: options.creates },
  ) as PlannedCreate[];

  const mock = createMockDeliveryService({ account: { type: 'wallet', balance: 10_000_000 } });
  const lines: string[] = [];
  const capture = (message: string) => lines.push(message);
  const logger: Logger = { debug: capture, info: capture, warn: capture, error: capture };
  const http = options.transport === 'http' ? await startMockHttpServer(mock) : undefined;
  const client = new DeliveryClient({
    apiKey: mock.apiKey,
    sellerId: mock.sellerId,
    baseUrl: http?.url ?? mock.baseUrl,
    timeout: timeoutMs,
    logger,
    logLevel: 'info',
    reconciliation: { checks: 2, intervalMs: 10 },
    // The mock lists a task as soon as it creates it.
    listingDelayMs: 20,
  });
  const report: SoakReport = {
    creates: options.creates,
    tasksCreated: 0,
    duplicates: 0,
    lostOrders: 0,
    feesCharged: 0,
    outcomes: {},
    faults: {},
    elapsedMs: 0,
    problems: [],
  };
  const started = performance.now();
  if (!http) mock.listen();
  try {
    for (const [index, step] of plan.entries()) {
      const orderNumber = `SOAK-${options.seed}-${index}`;
      const faulted = step.roll < faultRate;
      const [faultName, fault] = kinds[step.fault] ?? ['none', undefined];
      if (faulted && fault) {
        mock.inject({ ...fault, operation: 'tasks.create', times: step.times });
        increment(report.faults, step.times > 1 ? `${faultName} ×${step.times}` : faultName);
      }
      lines.length = 0;
      let created: Task | undefined;
      let failure: unknown;
      try {
        created = await client.tasks.create({
          orderNumber,
          customerName: 'Soak',
          deliveryLocation: { latitude: 29.3339, longitude: 48.0761 },
        });
      } catch (error) {
        failure = error;
      }
      mock.clearFaults();
      const tasks = mock.tasks.filter((task) => task.orderNumber === orderNumber);
      if (tasks.length > 1) {
        report.duplicates++;
        report.problems.push(
          `${orderNumber}: ${tasks.length} tasks (${tasks.map((task) => task.id).join(', ')})`,
        );
      }
      if (created) {
        const path = lines.some((line) => line.includes('but the task exists'))
          ? 'reconciled'
          : lines.some((line) => line.includes('sending it again'))
            ? 'resent'
            : 'created';
        increment(report.outcomes, path);
        if (!tasks.some((task) => task.id === created?.id)) {
          report.lostOrders++;
          report.problems.push(
            `${orderNumber}: the SDK returned ${created.id}, which the service does not have`,
          );
        }
      } else if (failure instanceof TaskCreationOutcomeUnknownError) {
        increment(report.outcomes, `outcome unknown (task ${tasks.length > 0 ? 'exists' : 'absent'})`);
      } else {
        const name = failure instanceof DeliveryError ? failure.name : String(failure);
        increment(report.outcomes, `error: ${name}`);
        // Only a rate limit that outlasted every resend is an expected failure here.
        if (name !== 'RateLimitError')
          report.problems.push(`${orderNumber}: unexpected ${name}: ${String(failure)}`);
        if (tasks.length > 0) {
          report.lostOrders++;
          report.problems.push(`${orderNumber}: the SDK reported ${String(failure)} but a task exists`);
        }
      }
    }
  } finally {
    await http?.close();
    mock.close();
  }
  report.tasksCreated = mock.tasks.length;
  report.feesCharged = mock.wallet.feesCharged;
  if (report.feesCharged !== report.tasksCreated) {
    report.problems.push(`${report.feesCharged} fees charged for ${report.tasksCreated} tasks`);
  }
  report.elapsedMs = Math.round(performance.now() - started);
  return report;
}

/** Prints a report as aligned lines. */
export function formatSoakReport(report: SoakReport): string {
  const rows = [
    `creates          ${report.creates}`,
    `tasks created    ${report.tasksCreated}`,
    `duplicates       ${report.duplicates}`,
    `lost orders      ${report.lostOrders}`,
    `fees charged     ${report.feesCharged}`,
    `elapsed          ${(report.elapsedMs / 1000).toFixed(1)} s`,
    'outcomes:',
    ...Object.entries(report.outcomes)
      .sort(([, a], [, b]) => b - a)
      .map(([kind, count]) => `  ${String(count).padStart(5)}  ${kind}`),
    'faults injected:',
    ...Object.entries(report.faults)
      .sort(([, a], [, b]) => b - a)
      .map(([kind, count]) => `  ${String(count).padStart(5)}  ${kind}`),
    ...report.problems.map((problem) => `PROBLEM ${problem}`),
  ];
  return rows.join('\n');
}

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index === -1 ? undefined : Number(process.argv[index + 1]);
  return value === undefined || Number.isNaN(value) ? fallback : value;
}

/** Prints the report and its verdict; a duplicate, a lost order or any problem sets a failing exit code. */
function report(found: SoakReport): void {
  console.log(formatSoakReport(found));
  if (found.duplicates > 0 || found.lostOrders > 0 || found.problems.length > 0) {
    console.error('Soak FAILED');
    process.exitCode = 1;
  } else {
    console.log('Soak passed: no duplicate, no lost order, one fee per task');
  }
}

async function mainProcesses(): Promise<void> {
  const options = {
    processes: argument('processes', 4),
    orders: argument('creates', 200),
    seed: argument('seed', 20261122),
    faultRate: argument('fault-rate', 0.2),
  };
  console.log(
    `Soak: ${options.processes} processes × ${options.orders} same orders over one Redis, seed ${options.seed}, fault rate ${options.faultRate}, real HTTP on 127.0.0.1`,
  );
  report(await runProcessSoak(options));
}

async function main(): Promise<void> {
  if (process.argv.includes('--processes') || process.argv.includes('--redis')) return mainProcesses();
  const options = {
    creates: argument('creates', 1000),
    seed: argument('seed', 20261122),
    faultRate: argument('fault-rate', 0.2),
    transport: process.argv.includes('--http') ? ('http' as const) : ('msw' as const),
  };
  console.log(
    `Soak: ${options.creates} creates, seed ${options.seed}, fault rate ${options.faultRate}, over ${options.transport === 'http' ? 'real HTTP on 127.0.0.1' : 'msw'}`,
  );
  report(await runSoak(options));
}

if (process.argv[1]?.endsWith('soak.ts')) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
