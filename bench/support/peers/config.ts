/**
 * The peer workers' settings (bench/support/peers/peer-worker.ts), shared with `bench/peers-drain.ts`, which prints them.
 * @module
 */

/** The libraries (and configurations) a peer worker runs. */
export type PeerLibrary = 'bullmq' | 'bee-queue' | 'graphile-worker' | 'graphile-worker-batch' | 'pg-boss';

/** What the parent asks of a peer worker. */
export interface PeerWorkerConfig {
  library: PeerLibrary;
  /** Redis or PostgreSQL URL. */
  url: string;
  /** The queue's name (BullMQ, bee-queue, pg-boss) or the task identifier (graphile-worker). */
  queue: string;
  /** The PostgreSQL schema of graphile-worker or pg-boss (made and filled by the parent). */
  schema?: string;
}

/** Jobs a worker processes at once, as the intake's handler (its default `concurrency`). */
export const PEER_CONCURRENCY = 8;
/** graphile-worker with batching: jobs each fetch locks (`localQueue.size`), completions batched after (ms). */
export const GRAPHILE_LOCAL_QUEUE = 50;
export const GRAPHILE_COMPLETE_BATCH_DELAY_MS = 0;
/** pg-boss: jobs per fetch (`batchSize`), fetch loops (`localConcurrency`). */
export const PGBOSS_BATCH_SIZE = 50;
export const PGBOSS_LOCAL_CONCURRENCY = PEER_CONCURRENCY;
