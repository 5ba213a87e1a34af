/**
 * The durable intake's drain rate beside the queue libraries a merchant would otherwise pick
 * (`npx tsx bench/peers-drain.ts` after `npm run build`; `npm run bench:peers` builds first). Ours runs from
 * the build, as the package ships it (bench/support/built-sdk.ts), as the peers run from theirs.
 *
 * What is measured: events per second that worker processes drain from a queue filled before the clock starts,
 * as `bench/intake.ts` part 2 does for ours: the events the workers report handled (processed, or for ours also
 * dropped as duplicates or out of order, or failed), divided by the time from the start line to an empty queue. Each drain writes PEERS_EVENTS events (default 5 000: 1 000 tasks
 * × 4 statuses in lifecycle order plus a repeat of each task's second status, written status by status, so each
 * task's events are in order), then starts the worker processes (already connected, waiting on stdin), writes
 * the start line and stops the clock once the queue has nothing left to run, polled every 5 ms by this process
 * once the workers' reports (`handled <n>` every 10 ms on their stdout) add up to what it held (or stopped
 * moving for STALLED_MS), so that its reads do not load the server measured during the drain
 * (ours: `inspect()` has nothing pending; BullMQ: no waiting, active, delayed or prioritized job;
 * bee-queue: `checkHealth()` has none waiting, active or delayed; graphile-worker: no row left in its jobs table;
 * pg-boss: no job created, in retry or active). Every event is the same body: the service's task
 * (bench/support/sample-task.ts, about 1.3 KB as JSON) with its `_id` and `status`; ours gets it as the webhook
 * body in its inbox, the peers as their job's data (the parsed object, which they store as JSON). Each worker
 * processes 8 at once (ours: the handler's default `concurrency`), with a no-op processor (ours: a no-op
 * `onEvent`). Printed with each drain: the machine's 1-minute load average, and CPU seconds per 1 000 events of
 * the worker processes and of the server (redis-server; for PostgreSQL the postmaster and all its children),
 * from /proc/<pid>/stat between the start line and the end of the drain (a backend that ended in between is
 * missed). The variants of a comparison run interleaved (`interleave`: ours, peer, ours, peer, the order
 * rotated each round), PEERS_ROUNDS rounds (default 3), each drain with fresh names (streams, keys, tables,
 * schemas, queues), removed after it. PostgreSQL runs with fsync and synchronous_commit on (as in intake.ts);
 * Redis keeps nothing on disk (ours with `volatile: true`), for every library alike.
 *
 * What each side guarantees, so the rates are read fairly:
 * - Ours (`redisInbox`, `postgresInbox`): each event parsed and validated as a webhook before `onEvent` (the
 *   peers' no-op processors parse nothing beyond their JSON); per task, one event at a time and in arrival order,
 *   across processes too (the inbox claims only each task's oldest pending event); an event older than the
 *   task's last processed status is dropped (out of order); with a store (`redisStore`, `postgresStore`), a
 *   repeat is dropped as a duplicate across processes (so 4 000 of the 5 000 reach `onEvent`); without a store
 *   and unconfirmed (`confirm: false`, as drain-worker.ts), a repeat reaches `onEvent` again. `postgresInbox`
 *   keeps one row per task and status (`UNIQUE (task_id, kind)`): the repeats are refused at the write, before
 *   the clock, so ours on PostgreSQL drains 4 000 rows where the peers drain 5 000 jobs (the lines show
 *   "of 4000 queued"; the rate counts what the workers handled, so it is not inflated by the refused repeats,
 *   but the repeats' cost is not in it either). Done events kept 15 minutes (the stream) or until trimmed
 *   (the table); a claimed event comes back after its visibility timeout if its worker dies.
 * - BullMQ 6 (a `Worker`, concurrency 8, defaults otherwise): at-least-once (a stalled job is retried), no
 *   order per task once concurrency > 1 (jobs run in FIFO order of the whole queue, 8 at once, any task's
 *   statuses side by side), no dedupe (every job processed: 5 000 of 5 000; a `jobId` would dedupe only
 *   identical ids), completed jobs kept (its default).
 * - bee-queue 2 (`process(8, …)`, defaults otherwise): the same as BullMQ (at-least-once, no order per task,
 *   no dedupe, succeeded jobs kept).
 * - graphile-worker 0.18 (`concurrency` 8, defaults otherwise: no `queueName`, one fetch per job and one
 *   `complete_jobs` per job): at-least-once, transactional in PostgreSQL; no order per task without a
 *   `queueName` per task (which runs that queue's jobs one at a time); no dedupe (a `jobKey` replaces a job
 *   not yet started, i.e. drops earlier statuses rather than repeats); done jobs deleted.
 *   With batching (comparison 4): `localQueue.size` 50 (each fetch locks 50 jobs for the process) and
 *   `completeJobBatchDelay` 0 (completions of the same tick in one statement), the batching its docs describe
 *   (worker.graphile.org/docs/performance#batching). Its "batch jobs" (a `jobKey` whose array payloads are
 *   merged) were not used: they would fold each task's 5 events into one job at enqueue time, 1 000 jobs rather
 *   than 5 000, no longer the same work.
 * - pg-boss 12 (comparison 4): a queue with policy `key_strict_fifo` and `singletonKey` = the task id, which
 *   keeps FIFO order per task (a key's next job waits while one is active, in retry or failed) as ours does;
 *   `work()` with `batchSize` 50, `localConcurrency` 8, `burstWhenBatchFull` (fetch again at once while
 *   batches come back full) and `pollingIntervalSeconds` 0.5 (its minimum); `supervise` and `schedule` off in
 *   the worker (maintenance left to one other instance); at-least-once; no dedupe (5 000 of 5 000 processed);
 *   completed jobs kept (its default retention).
 *
 * Comparisons: 1. Redis with `redisStore` vs BullMQ; 2. Redis without a store vs the better of BullMQ and
 * bee-queue (per round); 3. PostgreSQL with `postgresStore` vs graphile-worker with its defaults;
 * 4. PostgreSQL without a store vs graphile-worker with batching and pg-boss; 5. 4 workers ÷ 1 worker for
 * ours (Redis + `redisStore`) and for BullMQ in the same rounds. Each prints ours ÷ peer as min / median / max
 * over the rounds, and a table at the end. `PEERS_ONLY=1,3` runs those comparisons only. With PEERS_BASELINE, a
 * comparison 0 first: this build against an earlier one (see {@link BASELINE}). `DRAIN_PROFILE=<folder>` writes
 * each worker's CPU profile there, ours and the peers' (bench/support/ready-worker.ts).
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import BeeQueue from 'bee-queue';
import { Queue } from 'bullmq';
import { Logger, makeWorkerUtils, runMigrations } from 'graphile-worker';
import IORedis from 'ioredis';
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import type { WebhookInbox } from '../src/webhooks/index.js';
import { startPostgresServer } from '../test/support/postgres-server.js';
import { startRedisServer } from '../test/support/redis-server.js';
import { builtSdk } from './support/built-sdk.js';
import type { DrainWorkerConfig } from './support/drain-worker.js';
import {
  GRAPHILE_COMPLETE_BATCH_DELAY_MS,
  GRAPHILE_LOCAL_QUEUE,
  PEER_CONCURRENCY,
  type PeerWorkerConfig,
  PGBOSS_BATCH_SIZE,
  PGBOSS_LOCAL_CONCURRENCY,
} from './support/peers/config.js';
import { type ReadyWorker, startReadyWorker } from './support/ready-worker.js';
import { sampleTask } from './support/sample-task.js';
import { interleave, median } from './support/stats.js';

// The package's build (bench/support/built-sdk.ts), as the workers run it.
const {
  postgres: { postgresInbox },
  redis: { redisInbox },
} = await builtSdk();

function positiveInteger(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min)
    throw new Error(`${name} must be an integer ≥ ${min}, got ${raw}`);
  return value;
}

/** Statuses of each task, in lifecycle order; the second one is sent twice (a repeat), as intake.ts does. */
const STATUSES = ['accepted', 'pickedup', 'pickedup', 'enroute', 'delivered'] as const;
const TASKS = Math.floor(positiveInteger('PEERS_EVENTS', 5000, STATUSES.length) / STATUSES.length);
const EVENTS = TASKS * STATUSES.length;
const ROUNDS = positiveInteger('PEERS_ROUNDS', 3, 1);
const ONLY = process.env.PEERS_ONLY?.split(',').map((part) => Number(part.trim()));
/**
 * PEERS_BASELINE: a build's folder in the repository (a copy of `dist/`, e.g. `cp -r dist dist-before`):
 * comparison 0 then drains Redis with `redisStore` from this build and from that one, interleaved. A copy
 * of this very build gives the spread of one ratio between rounds on this machine (an A/A run).
 */
const BASELINE = process.env.PEERS_BASELINE?.trim() || undefined;
/** A drain that takes longer than this failed (a job that never completes, a worker that hangs). */
const DRAIN_TIMEOUT_MS = 300_000;
/**
 * The queue is read once the workers reported as many events handled as it held, or made no progress for
 * this long (an event failed or not counted), ms.
 */
const STALLED_MS = 200;

/** The events of one drain, in the order they are written: status by status, one event per task each. */
const EVENT_LIST = STATUSES.flatMap((status) =>
  Array.from({ length: TASKS }, (_, index) => {
    const taskId = `task-${index}`;
    const data = { ...sampleTask(index), _id: taskId, status };
    return { taskId, status, data, body: JSON.stringify(data) };
  }),
);

// ——— CPU from /proc ———

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** A process's parent and its user + system CPU in clock ticks, or undefined once gone. */
function procStat(pid: number): { ppid: number; ticks: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command name (in parentheses, which may hold spaces): state, ppid, …; utime and stime are fields 14, 15.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined;
  }
}

function allPids(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number);
}

function argvOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/** CPU ticks of each of `pids` now. */
function snapshot(pids: readonly number[]): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const pid of pids) {
    const stat = procStat(pid);
    if (stat !== undefined) ticks.set(pid, stat.ticks);
  }
  return ticks;
}

/** CPU seconds between two snapshots (a process absent from the first counted from 0). */
function cpuSeconds(before: Map<number, number>, after: Map<number, number>): number {
  let ticks = 0;
  for (const [pid, now] of after) ticks += now - (before.get(pid) ?? 0);
  return ticks / CLOCK_TICKS;
}

/** The processes of a server: redis-server, or the postmaster and its children (backends, background workers). */
type ServerProcesses = () => number[];

function redisProcesses(port: number): ServerProcesses {
  const pid = allPids().find((candidate) => {
    const argv = argvOf(candidate);
    return (
      (argv[0] ?? '').includes('redis-server') &&
      (argv.some((arg) => arg.endsWith(`:${port}`)) || argv.join(' ').includes(`--port ${port}`))
    );
  });
  if (pid === undefined) throw new Error(`no redis-server process on port ${port} in /proc`);
  return () => [pid];
}

function postgresProcesses(port: number): ServerProcesses {
  const postmaster = allPids().find((candidate) => {
    const argv = argvOf(candidate);
    const at = argv.indexOf('-p');
    return (argv[0] ?? '').endsWith('postgres') && at >= 0 && argv[at + 1] === String(port);
  });
  if (postmaster === undefined) throw new Error(`no postmaster on port ${port} in /proc`);
  return () => [postmaster, ...allPids().filter((pid) => procStat(pid)?.ppid === postmaster)];
}

// ——— worker processes ———

/** Every worker process started, to end any left on failure. */
const children = new Set<ChildProcess>();

/** Spawns `script` with its JSON config; resolves once it printed `READY`. */
function startWorker(script: string, config: DrainWorkerConfig | PeerWorkerConfig): Promise<ReadyWorker> {
  return startReadyWorker(script, config, (child) => {
    children.add(child);
    child.once('exit', () => children.delete(child));
  });
}

function endChild(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

// ——— what is drained ———

/** One drain's queue: filled before the clock, its workers, what is left, and its removal. */
interface Target {
  readonly backend: 'redis' | 'postgres';
  readonly script: string;
  readonly config: DrainWorkerConfig | PeerWorkerConfig;
  fill(): Promise<void>;
  /** Events not yet processed (pending, waiting or active). */
  remaining(): Promise<number>;
  cleanup(): Promise<void>;
}

interface Drain {
  /** Events the workers handled (processed, dropped or failed) per second. */
  rate: number;
  /** Events the queue held when the clock started (ours on PostgreSQL: one row per task and status). */
  queued: number;
  processed: number;
  /** Ours: dropped as repeats or as older than the task's last status (handled, not passed to `onEvent`). */
  duplicates: number;
  outOfOrder: number;
  failed: number;
  /** CPU seconds per 1 000 events. */
  workerCpu: number;
  serverCpu: number;
  load: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function drain(target: Target, workers: number, server: ServerProcesses): Promise<Drain> {
  await target.fill();
  const queued = await target.remaining();
  let started: ReadyWorker[] = [];
  try {
    const starting = Array.from({ length: workers }, () => startWorker(target.script, target.config));
    const settled = await Promise.allSettled(starting);
    started = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const refused = settled.find((result) => result.status === 'rejected');
    if (refused !== undefined) throw refused.reason;
    const pids = started.map((worker) => worker.child.pid ?? 0);
    const workersBefore = snapshot(pids);
    const serverBefore = snapshot(server());
    const startedAt = performance.now();
    for (const worker of started) worker.child.stdin?.write('go\n');
    // The queue is not read while the workers report progress: each read is statements on the server
    // measured (a count every 5 ms cost ours 0.08–0.1 ms of server CPU an event, graphile-worker 0.3).
    let reported = -1;
    let reportedAt = performance.now();
    for (;;) {
      const handled = started.reduce((sum, worker) => sum + worker.handled(), 0);
      if (handled >= queued) break;
      if (handled !== reported) {
        reported = handled;
        reportedAt = performance.now();
      } else if (performance.now() - reportedAt > STALLED_MS) break;
      if (performance.now() - startedAt > DRAIN_TIMEOUT_MS) break;
      await sleep(5);
    }
    while ((await target.remaining()) > 0) {
      if (performance.now() - startedAt > DRAIN_TIMEOUT_MS) {
        throw new Error(`not drained within ${DRAIN_TIMEOUT_MS} ms: ${await target.remaining()} events left`);
      }
      await sleep(5);
    }
    const seconds = (performance.now() - startedAt) / 1000;
    const workerCpu = cpuSeconds(workersBefore, snapshot(pids));
    const serverCpu = cpuSeconds(serverBefore, snapshot(server()));
    const load = loadavg()[0] ?? 0;
    for (const worker of started) worker.child.stdin?.write('stop\n');
    const totals = { processed: 0, duplicates: 0, outOfOrder: 0, failed: 0 };
    for (const line of await Promise.all(started.map((worker) => worker.stats))) {
      let counts: Record<string, number>;
      try {
        counts = JSON.parse(line) as Record<string, number>;
      } catch {
        throw new Error(`a worker of ${target.script} reported no counts: ${line}`);
      }
      totals.processed += counts.processed ?? 0;
      totals.duplicates += counts.duplicates ?? 0;
      totals.outOfOrder += counts.outOfOrder ?? 0;
      totals.failed += counts.failed ?? 0;
    }
    const handled = totals.processed + totals.duplicates + totals.outOfOrder + totals.failed;
    return {
      rate: handled / seconds,
      queued,
      ...totals,
      workerCpu: (workerCpu / handled) * 1000,
      serverCpu: (serverCpu / handled) * 1000,
      load,
    };
  } finally {
    // A profiled worker (DRAIN_PROFILE) writes its profile as it exits after its counts: 5 s for that.
    if (process.env.DRAIN_PROFILE) {
      await Promise.race([Promise.all(started.map((worker) => worker.exited)), sleep(5000)]);
    }
    for (const worker of started) endChild(worker.child);
    await target.cleanup();
  }
}

let sequence = 0;
/** A fresh lowercase name for one drain's stream, keys, tables, schema or queue. */
const freshName = () => `peers_${process.pid}_${++sequence}`;

/** Deletes every key starting with `prefix`. */
async function deleteKeys(io: IORedis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await io.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await io.del(...keys);
  } while (cursor !== '0');
}

/** Writes `items` `size` at a time, each batch awaited before the next. */
async function inBatches<Item>(
  items: readonly Item[],
  size: number,
  write: (batch: Item[]) => Promise<unknown>,
) {
  for (let from = 0; from < items.length; from += size) await write(items.slice(from, from + size));
}

interface Servers {
  redisUrl: string;
  postgresUrl: string;
  io: IORedis;
  pool: pg.Pool;
}

function ours(servers: Servers, backend: 'redis' | 'postgres', store: boolean, build?: string): Target {
  const name = freshName();
  const url = backend === 'redis' ? servers.redisUrl : servers.postgresUrl;
  // The names drain-worker.ts uses for this `name`.
  const inbox: WebhookInbox =
    backend === 'redis'
      ? redisInbox(servers.io, { stream: `${name}:events`, volatile: true })
      : postgresInbox(servers.pool, { table: `${name}_inbox` });
  return {
    backend,
    script: 'bench/support/drain-worker.ts',
    config: { backend, url, name, store, ...(build === undefined ? {} : { build }) },
    // Status by status, 50 appends at a time within one status (as intake.ts), so each task's events are
    // written in order: a batch never holds two events of one task.
    fill: async () => {
      for (let round = 0; round < STATUSES.length; round++) {
        await inBatches(EVENT_LIST.slice(round * TASKS, (round + 1) * TASKS), 50, (batch) =>
          Promise.all(
            batch.map(({ taskId, status, body }) =>
              inbox.append({ taskId, kind: status, body, receivedAt: Date.now() }),
            ),
          ),
        );
      }
    },
    remaining: async () => (await inbox.inspect({ limit: 0 })).pending,
    cleanup: async () => {
      if (backend === 'redis') {
        await deleteKeys(servers.io, name);
        return;
      }
      const { rows } = await servers.pool.query<{ tablename: string }>(
        'SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND starts_with(tablename, $1)',
        [name],
      );
      for (const { tablename } of rows)
        await servers.pool.query(`DROP TABLE IF EXISTS "${tablename}" CASCADE`);
    },
  };
}

function redisConnection(url: string) {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port) };
}

function bullmq(servers: Servers): Target {
  const name = freshName();
  let queue: Queue | undefined;
  return {
    backend: 'redis',
    script: 'bench/support/peers/peer-worker.ts',
    config: { library: 'bullmq', url: servers.redisUrl, queue: name },
    fill: async () => {
      queue = new Queue(name, { connection: redisConnection(servers.redisUrl) });
      const opened = queue;
      await inBatches(EVENT_LIST, 500, (batch) =>
        opened.addBulk(batch.map(({ status, data }) => ({ name: status, data }))),
      );
    },
    remaining: async () => {
      if (queue === undefined) return 0;
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      return Object.values(counts).reduce((sum, count) => sum + count, 0);
    },
    cleanup: async () => {
      await queue?.close();
      await deleteKeys(servers.io, `bull:${name}:`);
    },
  };
}

function beeQueue(servers: Servers): Target {
  const name = freshName();
  let queue: BeeQueue | undefined;
  return {
    backend: 'redis',
    script: 'bench/support/peers/peer-worker.ts',
    config: { library: 'bee-queue', url: servers.redisUrl, queue: name },
    fill: async () => {
      queue = new BeeQueue(name, {
        redis: redisConnection(servers.redisUrl),
        isWorker: false,
        getEvents: false,
      });
      const opened = queue;
      await opened.ready();
      await inBatches(EVENT_LIST, 500, async (batch) => {
        const errors = await opened.saveAll(batch.map(({ data }) => opened.createJob(data)));
        if (errors.size > 0)
          throw new Error(`bee-queue refused ${errors.size} jobs: ${[...errors.values()][0]}`);
      });
    },
    remaining: async () => {
      if (queue === undefined) return 0;
      const health = await queue.checkHealth();
      return health.waiting + health.active + health.delayed;
    },
    cleanup: async () => {
      await queue?.close();
      await deleteKeys(servers.io, `bq:${name}:`);
    },
  };
}

const silentGraphileLogger = new Logger(() => () => {});

function graphileWorker(servers: Servers, batch: boolean): Target {
  const name = freshName();
  const schema = `${name}_gw`;
  return {
    backend: 'postgres',
    script: 'bench/support/peers/peer-worker.ts',
    config: {
      library: batch ? 'graphile-worker-batch' : 'graphile-worker',
      url: servers.postgresUrl,
      queue: 'webhook',
      schema,
    },
    fill: async () => {
      await runMigrations({ connectionString: servers.postgresUrl, schema, logger: silentGraphileLogger });
      const utils = await makeWorkerUtils({
        connectionString: servers.postgresUrl,
        schema,
        logger: silentGraphileLogger,
      });
      try {
        await inBatches(EVENT_LIST, 500, (jobs) =>
          utils.addJobs(jobs.map(({ data }) => ({ identifier: 'webhook', payload: data }))),
        );
      } finally {
        await utils.release();
      }
    },
    remaining: async () =>
      (
        await servers.pool.query<{ left: number }>(
          `SELECT count(*)::int AS left FROM "${schema}"._private_jobs`,
        )
      ).rows[0]?.left ?? 0,
    cleanup: async () => void (await servers.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)),
  };
}

function pgBoss(servers: Servers): Target {
  const name = freshName();
  const schema = `${name}_boss`;
  return {
    backend: 'postgres',
    script: 'bench/support/peers/peer-worker.ts',
    config: { library: 'pg-boss', url: servers.postgresUrl, queue: name, schema },
    fill: async () => {
      const boss = new PgBoss({
        connectionString: servers.postgresUrl,
        schema,
        supervise: false,
        schedule: false,
      });
      boss.on('error', (error) => console.error(error));
      await boss.start();
      try {
        await boss.createQueue(name, { policy: 'key_strict_fifo' });
        await inBatches(EVENT_LIST, 500, (jobs) =>
          boss.insert(
            name,
            jobs.map(({ taskId, data }) => ({ data, singletonKey: taskId })),
          ),
        );
      } finally {
        await boss.stop({ graceful: false, close: true });
      }
    },
    remaining: async () =>
      (
        await servers.pool.query<{ left: number }>(
          `SELECT count(*)::int AS left FROM "${schema}".job WHERE name = $1 AND state IN ('created', 'retry', 'active')`,
          [name],
        )
      ).rows[0]?.left ?? 0,
    cleanup: async () => void (await servers.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)),
  };
}

// ——— printing ———

const thousands = (value: number) => Math.round(value).toLocaleString('en-US');

function describeDrain(label: string, round: number, result: Drain): string {
  const { processed, duplicates, outOfOrder, failed, queued } = result;
  const handled = processed + duplicates + outOfOrder + failed;
  const dropped = [
    ...(duplicates > 0 ? [`${duplicates} duplicates`] : []),
    ...(outOfOrder > 0 ? [`${outOfOrder} out of order`] : []),
    ...(failed > 0 ? [`${failed} FAILED`] : []),
  ];
  const counts = `processed ${processed}${dropped.length > 0 ? ` + ${dropped.join(' + ')}` : ''}`;
  const held = queued === EVENTS ? '' : ` of ${queued} queued (from ${EVENTS} written)`;
  const mismatch = handled === queued ? '' : `  ≠ ${queued} queued!`;
  return `    round ${round + 1}  ${label.padEnd(32)} ${thousands(result.rate).padStart(6)} events/s   CPU s/1k events: workers ${result.workerCpu.toFixed(3)}, server ${result.serverCpu.toFixed(3)}   load ${result.load.toFixed(2)}   ${counts}${held}${mismatch}`;
}

/** `min / median / max` of ratios, two decimals. */
const ratioRange = (ratios: readonly number[]) =>
  `${Math.min(...ratios).toFixed(2)} / ${median(ratios).toFixed(2)} / ${Math.max(...ratios).toFixed(2)}`;

interface Row {
  comparison: string;
  ours: string;
  peer: string;
  ratio: string;
}
const table: Row[] = [];

/** Prints each variant's drains round by round (in the order they ran), then ours ÷ each peer. */
function report<Name extends string>(results: Record<Name, Drain[]>, order: readonly Name[]) {
  for (let round = 0; round < ROUNDS; round++) {
    const names = order.map((_, offset) => order[(round + offset) % order.length] as Name);
    for (const name of names) {
      const result = results[name][round];
      if (result !== undefined) console.log(describeDrain(name, round, result));
    }
  }
}

const rates = (drains: readonly Drain[]) => drains.map((drain) => drain.rate);
/** The median rate, and the median CPU seconds per 1 000 events of the workers + the server. */
const medianRate = (drains: readonly Drain[]) =>
  `${thousands(median(rates(drains)))}/s (CPU ${median(drains.map((drain) => drain.workerCpu)).toFixed(2)}+${median(drains.map((drain) => drain.serverCpu)).toFixed(2)})`;
const ratiosOf = (numerators: readonly number[], denominators: readonly number[]) =>
  numerators.map((value, index) => value / (denominators[index] ?? Number.NaN));

// ——— the comparisons ———

async function main(): Promise<void> {
  const [redis, postgres] = await Promise.all([startRedisServer(), startPostgresServer({ durable: true })]);
  const io = new IORedis(redis.url);
  const pool = new pg.Pool({ connectionString: postgres.url, max: 10 });
  const stop = async () => {
    for (const child of children) endChild(child);
    io.disconnect();
    await pool.end().catch(() => {});
    await redis.stop().catch(() => {});
    await postgres.stop().catch(() => {});
  };
  const onSignal = (signal: NodeJS.Signals) => {
    void stop().finally(() => process.kill(process.pid, signal));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const servers: Servers = { redisUrl: redis.url, postgresUrl: postgres.url, io, pool };
    const redisServer = redisProcesses(redis.port);
    const postgresServer = postgresProcesses(Number(new URL(postgres.url).port));
    const serverOf = (target: Target) => (target.backend === 'redis' ? redisServer : postgresServer);
    const run =
      (make: () => Target, workers = 1) =>
      () => {
        const target = make();
        return drain(target, workers, serverOf(target));
      };
    const wanted = (comparison: number) => ONLY === undefined || ONLY.includes(comparison);

    console.log(
      `peers-drain: ${thousands(EVENTS)} events per drain (${TASKS} tasks × 4 statuses + ${TASKS} repeats, ${EVENT_LIST[0]?.body.length ?? 0}-byte bodies), written before the clock; ${ROUNDS} interleaved rounds; 1 worker process of concurrency ${PEER_CONCURRENCY} unless stated; no-op processors; PostgreSQL with fsync on; ${(await import('node:os')).cpus().length} CPUs; load ${loadavg()
        .map((value) => value.toFixed(2))
        .join(' ')}`,
    );
    console.log(
      `  peers: BullMQ Worker concurrency ${PEER_CONCURRENCY}; bee-queue process(${PEER_CONCURRENCY}); graphile-worker concurrency ${PEER_CONCURRENCY} (defaults) or + localQueue.size ${GRAPHILE_LOCAL_QUEUE}, completeJobBatchDelay ${GRAPHILE_COMPLETE_BATCH_DELAY_MS}; pg-boss key_strict_fifo queue, singletonKey = task id, batchSize ${PGBOSS_BATCH_SIZE}, localConcurrency ${PGBOSS_LOCAL_CONCURRENCY}, burstWhenBatchFull`,
    );

    if (BASELINE !== undefined) {
      console.log(`0. Redis with redisStore: this build vs the build in ${BASELINE}/`);
      const order = ['ours, this build', 'ours, baseline'] as const;
      const results = await interleave(ROUNDS, {
        [order[0]]: run(() => ours(servers, 'redis', true)),
        [order[1]]: run(() => ours(servers, 'redis', true, BASELINE)),
      } as Record<(typeof order)[number], () => Promise<Drain>>);
      report(results, order);
      const ratio = ratioRange(ratiosOf(rates(results[order[0]]), rates(results[order[1]])));
      console.log(`  this build ÷ ${BASELINE}/: ${ratio} (min / median / max)`);
      table.push({
        comparison: `0 Redis + store vs ${BASELINE}/`,
        ours: medianRate(results[order[0]]),
        peer: `${BASELINE}/ ${medianRate(results[order[1]])}`,
        ratio,
      });
    }

    if (wanted(1)) {
      console.log('1. Redis: ours (redisInbox + redisStore) vs BullMQ');
      const order = ['ours redisInbox+redisStore', 'BullMQ'] as const;
      const results = await interleave(ROUNDS, {
        [order[0]]: run(() => ours(servers, 'redis', true)),
        [order[1]]: run(() => bullmq(servers)),
      } as Record<(typeof order)[number], () => Promise<Drain>>);
      report(results, order);
      const ratio = ratioRange(ratiosOf(rates(results[order[0]]), rates(results[order[1]])));
      console.log(`  ours ÷ BullMQ: ${ratio} (min / median / max)`);
      table.push({
        comparison: '1 Redis + store vs BullMQ',
        ours: medianRate(results[order[0]]),
        peer: `BullMQ ${medianRate(results[order[1]])}`,
        ratio,
      });
    }

    if (wanted(2)) {
      console.log('2. Redis: ours (redisInbox, no store) vs the better of BullMQ and bee-queue');
      const order = ['ours redisInbox', 'BullMQ', 'bee-queue'] as const;
      const results = await interleave(ROUNDS, {
        [order[0]]: run(() => ours(servers, 'redis', false)),
        [order[1]]: run(() => bullmq(servers)),
        [order[2]]: run(() => beeQueue(servers)),
      } as Record<(typeof order)[number], () => Promise<Drain>>);
      report(results, order);
      const best = rates(results.BullMQ).map((rate, index) =>
        Math.max(rate, results['bee-queue'][index]?.rate ?? 0),
      );
      const oursRates = rates(results[order[0]]);
      console.log(`  ours ÷ BullMQ: ${ratioRange(ratiosOf(oursRates, rates(results.BullMQ)))}`);
      console.log(`  ours ÷ bee-queue: ${ratioRange(ratiosOf(oursRates, rates(results['bee-queue'])))}`);
      const ratio = ratioRange(ratiosOf(oursRates, best));
      console.log(`  ours ÷ the better of the two (per round): ${ratio} (min / median / max)`);
      table.push({
        comparison: '2 Redis, no store vs best',
        ours: medianRate(results[order[0]]),
        peer: `BullMQ ${medianRate(results.BullMQ)}, bee-queue ${medianRate(results['bee-queue'])}`,
        ratio,
      });
    }

    if (wanted(3)) {
      console.log('3. PostgreSQL: ours (postgresInbox + postgresStore) vs graphile-worker (defaults)');
      const order = ['ours postgresInbox+postgresStore', 'graphile-worker'] as const;
      const results = await interleave(ROUNDS, {
        [order[0]]: run(() => ours(servers, 'postgres', true)),
        [order[1]]: run(() => graphileWorker(servers, false)),
      } as Record<(typeof order)[number], () => Promise<Drain>>);
      report(results, order);
      const ratio = ratioRange(ratiosOf(rates(results[order[0]]), rates(results[order[1]])));
      console.log(`  ours ÷ graphile-worker: ${ratio} (min / median / max)`);
      table.push({
        comparison: '3 PostgreSQL + store vs graphile-worker',
        ours: medianRate(results[order[0]]),
        peer: `graphile-worker ${medianRate(results[order[1]])}`,
        ratio,
      });
    }

    if (wanted(4)) {
      console.log(
        '4. PostgreSQL: ours (postgresInbox, no store) vs graphile-worker with batching and pg-boss',
      );
      const order = ['ours postgresInbox', 'graphile-worker batched', 'pg-boss'] as const;
      const results = await interleave(ROUNDS, {
        [order[0]]: run(() => ours(servers, 'postgres', false)),
        [order[1]]: run(() => graphileWorker(servers, true)),
        [order[2]]: run(() => pgBoss(servers)),
      } as Record<(typeof order)[number], () => Promise<Drain>>);
      report(results, order);
      const oursRates = rates(results[order[0]]);
      const graphileRatio = ratioRange(ratiosOf(oursRates, rates(results[order[1]])));
      const bossRatio = ratioRange(ratiosOf(oursRates, rates(results[order[2]])));
      const best = rates(results[order[1]]).map((rate, index) =>
        Math.max(rate, results[order[2]][index]?.rate ?? 0),
      );
      const bestRatio = ratioRange(ratiosOf(oursRates, best));
      console.log(`  ours ÷ graphile-worker batched: ${graphileRatio} (min / median / max)`);
      console.log(`  ours ÷ pg-boss: ${bossRatio}`);
      console.log(`  ours ÷ the better of the two (per round): ${bestRatio}`);
      table.push({
        comparison: '4 PostgreSQL, no store vs graphile batched',
        ours: medianRate(results[order[0]]),
        peer: `graphile-worker batched ${medianRate(results[order[1]])}`,
        ratio: graphileRatio,
      });
      table.push({
        comparison: '4 PostgreSQL, no store vs pg-boss',
        ours: medianRate(results[order[0]]),
        peer: `pg-boss ${medianRate(results[order[2]])}`,
        ratio: bossRatio,
      });
    }

    if (wanted(5)) {
      console.log('5. 4 workers ÷ 1 worker: ours (redisInbox + redisStore) and BullMQ, in the same rounds');
      const order = ['ours 1 worker', 'ours 4 workers', 'BullMQ 1 worker', 'BullMQ 4 workers'] as const;
      const results = await interleave(ROUNDS, {
        [order[0]]: run(() => ours(servers, 'redis', true), 1),
        [order[1]]: run(() => ours(servers, 'redis', true), 4),
        [order[2]]: run(() => bullmq(servers), 1),
        [order[3]]: run(() => bullmq(servers), 4),
      } as Record<(typeof order)[number], () => Promise<Drain>>);
      report(results, order);
      const oursScaling = ratiosOf(rates(results[order[1]]), rates(results[order[0]]));
      const bullScaling = ratiosOf(rates(results[order[3]]), rates(results[order[2]]));
      console.log(`  ours 4 ÷ 1: ${ratioRange(oursScaling)}   BullMQ 4 ÷ 1: ${ratioRange(bullScaling)}`);
      const ratio = ratioRange(ratiosOf(oursScaling, bullScaling));
      console.log(`  ours' scaling ÷ BullMQ's (per round): ${ratio} (min / median / max)`);
      table.push({
        comparison: '5 scaling 4 ÷ 1 workers',
        ours: `${median(oursScaling).toFixed(2)}×`,
        peer: `BullMQ ${median(bullScaling).toFixed(2)}×`,
        ratio,
      });
    }

    // Nothing a drain made is left behind.
    const keysLeft = await io.dbsize();
    const { rows } = await pool.query<{ left: number }>(
      "SELECT count(*)::int AS left FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')",
    );
    console.log(`left behind: ${keysLeft} Redis keys, ${rows[0]?.left ?? 0} PostgreSQL tables`);

    const header: Row = {
      comparison: 'comparison',
      ours: 'ours (median)',
      peer: 'peer (median)',
      ratio: 'ours ÷ peer min / median / max',
    };
    const widths = (Object.keys(header) as (keyof Row)[]).map((key) =>
      Math.max(...[header, ...table].map((row) => row[key].length)),
    );
    const line = (row: Row) =>
      (Object.keys(header) as (keyof Row)[])
        .map((key, index) => row[key].padEnd(widths[index] ?? 0))
        .join('  ');
    console.log('');
    console.log('medians over the rounds; CPU: seconds per 1 000 events, worker processes + server');
    console.log(line(header));
    for (const row of table) console.log(line(row));
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
