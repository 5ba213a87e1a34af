/**
 * One worker process of a queue library for `bench/peers-drain.ts`: connects to the queue its parent filled,
 * prints `READY`, starts processing at the first line on stdin (a no-op processor that counts the jobs; its
 * count printed as `handled <n>` every {@link PROGRESS_EVERY_MS} ms), and at the second line closes and prints
 * `{"processed":…,"failed":…}`.
 *
 * Usage: tsx bench/support/peers/peer-worker.ts '<json PeerWorkerConfig>'
 */
import BeeQueue from 'bee-queue';
import { Worker } from 'bullmq';
import { Logger, run } from 'graphile-worker';
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import { PROGRESS_EVERY_MS } from '../ready-worker.js';
import {
  GRAPHILE_COMPLETE_BATCH_DELAY_MS,
  GRAPHILE_LOCAL_QUEUE,
  PEER_CONCURRENCY,
  type PeerWorkerConfig,
  PGBOSS_BATCH_SIZE,
  PGBOSS_LOCAL_CONCURRENCY,
} from './config.js';

/** A peer worker connected and waiting: `start` begins processing, `stop` closes. */
interface Peer {
  start(): void;
  stop(): Promise<void>;
}

let processed = 0;
let failed = 0;

function redisConnection(url: string) {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port) };
}

async function bullmq(config: PeerWorkerConfig): Promise<Peer> {
  const worker = new Worker(
    config.queue,
    async () => {
      processed++;
    },
    {
      connection: { ...redisConnection(config.url), maxRetriesPerRequest: null },
      concurrency: PEER_CONCURRENCY,
      autorun: false,
    },
  );
  worker.on('failed', () => {
    failed++;
  });
  worker.on('error', (error) => console.error(error));
  await worker.waitUntilReady();
  return {
    start: () => void worker.run(),
    stop: () => worker.close(),
  };
}

async function beeQueue(config: PeerWorkerConfig): Promise<Peer> {
  const queue = new BeeQueue(config.queue, { redis: redisConnection(config.url) });
  queue.on('failed', () => {
    failed++;
  });
  queue.on('error', (error) => console.error(error));
  await queue.ready();
  return {
    start: () =>
      queue.process(PEER_CONCURRENCY, async () => {
        processed++;
      }),
    stop: () => queue.close(),
  };
}

async function graphileWorker(config: PeerWorkerConfig, batch: boolean): Promise<Peer> {
  // The pool connected before the start: the clock leaves the connection out, as for the other workers.
  const pool = new pg.Pool({ connectionString: config.url, max: 10 });
  await pool.query('select 1');
  const logger = new Logger(() => () => {});
  let runner: Awaited<ReturnType<typeof run>> | undefined;
  return {
    start: () => {
      void run({
        pgPool: pool,
        ...(config.schema === undefined ? {} : { schema: config.schema }),
        concurrency: PEER_CONCURRENCY,
        noHandleSignals: true,
        logger,
        taskList: {
          [config.queue]: async () => {
            processed++;
          },
        },
        ...(batch
          ? {
              preset: {
                worker: {
                  localQueue: { size: GRAPHILE_LOCAL_QUEUE },
                  completeJobBatchDelay: GRAPHILE_COMPLETE_BATCH_DELAY_MS,
                },
              },
            }
          : {}),
      }).then(
        (started) => {
          runner = started;
          started.events.on('job:failed', () => {
            failed++;
          });
        },
        (error: unknown) => console.error(error),
      );
    },
    stop: async () => {
      await runner?.stop();
      await pool.end();
    },
  };
}

async function pgBoss(config: PeerWorkerConfig): Promise<Peer> {
  // Maintenance and cron left to another instance (a deployment runs them once, not in every worker).
  const boss = new PgBoss({
    connectionString: config.url,
    ...(config.schema === undefined ? {} : { schema: config.schema }),
    supervise: false,
    schedule: false,
    migrate: false,
  });
  boss.on('error', (error) => console.error(error));
  await boss.start();
  return {
    start: () =>
      void boss
        .work<unknown>(
          config.queue,
          {
            batchSize: PGBOSS_BATCH_SIZE,
            localConcurrency: PGBOSS_LOCAL_CONCURRENCY,
            burstWhenBatchFull: true,
            pollingIntervalSeconds: 0.5,
          },
          async (jobs) => {
            processed += jobs.length;
          },
        )
        .catch((error: unknown) => console.error(error)),
    stop: () => boss.stop({ graceful: true, close: true }),
  };
}

const config = JSON.parse(process.argv[2] ?? '{}') as PeerWorkerConfig;
const peer = await (config.library === 'bullmq'
  ? bullmq(config)
  : config.library === 'bee-queue'
    ? beeQueue(config)
    : config.library === 'pg-boss'
      ? pgBoss(config)
      : graphileWorker(config, config.library === 'graphile-worker-batch'));
process.stdout.write('READY\n');
// The parent gone (its end of stdin closed): nothing to report to.
process.stdin.once('end', () => process.exit(1));
process.stdin.once('data', () => {
  peer.start();
  const progress = setInterval(
    () => process.stdout.write(`handled ${processed + failed}\n`),
    PROGRESS_EVERY_MS,
  );
  process.stdin.once('data', () => {
    clearInterval(progress);
    void peer.stop().then(() => {
      process.stdout.write(`${JSON.stringify({ processed, failed })}\n`);
      process.exit(0);
    });
  });
});
