/**
 * A task's lease that a stall outlives (docs/webhooks.md "Receiving on several instances"): a receiver
 * process (test/webhooks/stall-receiver.ts) stalls while it holds a task's lease, longer than the lease's
 * TTL, and a receiver in this process gets the same webhook meanwhile. Before `onEvent`, the stalled one
 * must not run it once it wakes; inside `onEvent`, nothing can recall it, so it must say so (the
 * `leaseLapsed` count, an error line, and the fenced record reported to `onError`); and an `onEvent`
 * that runs long before a stall keeps its lease renewed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import IORedis from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { redisStore } from '../../src/redis.js';
import {
  createWebhookHandler,
  type WebhookHandler,
  type WebhookHandlerStats,
} from '../../src/webhooks/index.js';
import {
  describeWithRedis,
  ownsRedisServer,
  type RedisServer,
  startRedisServer,
} from '../support/redis-server.js';
import { scriptArgs } from '../support/source-script.js';
import { fetchWebhook, postWebhook, webhookBody } from './fixtures.js';
import type { StallReceiverConfig } from './stall-receiver.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** The stalling receiver's; a store answering slower than this on a busy machine would be an outage. */
const EVENT_TIMEOUT_MS = 4000;
const STORE_TIMEOUT_MS = 1000;
/** The lease's TTL: `eventTimeoutMs` + 4 × `storeTimeoutMs` + 1 s = 9 s; renewed every 3 s. */
const LEASE_TTL_MS = EVENT_TIMEOUT_MS + 4 * STORE_TIMEOUT_MS + 1000;
/**
 * A `slow-…` onEvent awaits this (under `eventTimeoutMs`), then stalls {@link SLOW_STALL_MS} by its own
 * clock: 10.5 s in all, past the TTL from the lease's take (9 s), within the renewal's (3 + 9 s).
 */
const SLOW_MS = 3800;
const SLOW_STALL_MS = 6700;

/** The stalling receiver: its `STALLED` and `EVENT` lines as they come. */
interface StallingReceiver {
  readonly child: ChildProcess;
  readonly url: string;
  readonly lines: string[];
  /** Resolves once the receiver printed `line`. */
  printed(line: string): Promise<void>;
  /** Ends the stall at `taskId`. */
  release(taskId: string): void;
  /** Waits until the receiver is idle: its stats, `onError` messages and log lines. */
  idle(): Promise<{ stats: WebhookHandlerStats; errors: string[]; logs: string[] }>;
}

function startStallingReceiver(config: StallReceiverConfig): Promise<StallingReceiver> {
  const child = spawn(
    process.execPath,
    [...scriptArgs('test/webhooks/stall-receiver.ts'), JSON.stringify(config)],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const lines: string[] = [];
  const waiting: { line: string; resolve: () => void }[] = [];
  let stderr = '';
  let partial = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    const text = partial + chunk.toString();
    const complete = text.split('\n');
    partial = complete.pop() ?? '';
    lines.push(...complete);
    for (const wait of waiting.filter((entry) => lines.includes(entry.line))) wait.resolve();
  });
  const printed = (line: string) =>
    lines.includes(line)
      ? Promise.resolve()
      : new Promise<void>((resolve) => waiting.push({ line, resolve }));
  return new Promise((resolve, reject) => {
    child.once('exit', (code, signal) =>
      reject(new Error(`stall receiver ended with ${signal ?? code}: ${stderr}`)),
    );
    const ready = setInterval(() => {
      const port = lines.map((line) => /^READY (\d+)$/.exec(line)?.[1]).find((found) => found !== undefined);
      if (port === undefined) return;
      clearInterval(ready);
      const url = `http://127.0.0.1:${port}`;
      resolve({
        child,
        url,
        lines,
        printed,
        release: (taskId) => writeFileSync(join(config.dir, `release-${taskId}`), ''),
        idle: async () => (await fetch(`${url}/idle`)).json(),
      });
    }, 10);
  });
}

describeWithRedis('a stall longer than a task lease’s TTL', () => {
  let redis: RedisServer;
  let io: IORedis;
  let stalling: StallingReceiver;
  let local: WebhookHandler;
  let dir: string;
  const localEvents: string[] = [];
  const localErrors: unknown[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    io = new IORedis(redis.url);
    dir = mkdtempSync(join(tmpdir(), 'dts-lease-stall-'));
    const prefix = `dts-test:lease-stall:${randomUUID()}:`;
    stalling = await startStallingReceiver({
      url: redis.url,
      prefix,
      dir,
      eventTimeoutMs: EVENT_TIMEOUT_MS,
      storeTimeoutMs: STORE_TIMEOUT_MS,
      slowMs: SLOW_MS,
      slowStallMs: SLOW_STALL_MS,
    });
    local = createWebhookHandler({
      store: redisStore(io, { prefix }),
      confirm: false,
      storeTimeoutMs: 2 * STORE_TIMEOUT_MS,
      logLevel: 'off',
      onError: (error) => void localErrors.push(error),
      onEvent: (event) => void localEvents.push(`${event.taskId} ${event.status}`),
    });
  }, 60_000);
  afterAll(async () => {
    stalling?.child.kill('SIGKILL');
    await local?.close();
    io?.disconnect();
    if (ownsRedisServer) await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The webhook reaches the stalling receiver, then, once it stalls, this process's receiver. */
  async function sendDuringStall(taskId: string): Promise<void> {
    expect((await postWebhook(stalling.url, webhookBody(taskId, 'accepted'))).status).toBe(200);
    await stalling.printed(`STALLED ${taskId}`);
    expect((await fetchWebhook(local, taskId, 'accepted')).status).toBe(200);
  }

  const stalledEvents = (taskId: string) =>
    stalling.lines.filter((line) => line === `EVENT ${taskId} accepted`);

  it('between taking it and onEvent: the stalled receiver, once awake, runs nothing and counts a duplicate', async () => {
    const taskId = `before-${randomUUID()}`;
    const before = await stalling.idle();
    await sendDuringStall(taskId);
    // The lease expires in the store; this process's receiver takes it and processes the event.
    await local.idle();
    expect(localEvents).toContain(`${taskId} accepted`);
    stalling.release(taskId);
    const after = await stalling.idle();
    expect(stalledEvents(taskId)).toEqual([]);
    expect(after.stats.duplicates - before.stats.duplicates).toBe(1);
    expect(after.stats.leaseLapsed).toBe(before.stats.leaseLapsed);
    expect(after.errors).toEqual(before.errors);
  }, 60_000);

  it('inside onEvent: both ran, and the stalled receiver reports it (leaseLapsed, an error line, onError)', async () => {
    const taskId = `inside-${randomUUID()}`;
    const before = await stalling.idle();
    await sendDuringStall(taskId);
    await local.idle();
    expect(localEvents).toContain(`${taskId} accepted`);
    stalling.release(taskId);
    const after = await stalling.idle();
    expect(stalledEvents(taskId)).toHaveLength(1);
    expect(after.stats.leaseLapsed - before.stats.leaseLapsed).toBe(1);
    expect(after.logs.slice(before.logs.length)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^error \\[delivery-task-sdk\\] Task ${taskId} \\(accepted\\): its processing lease .*another instance may have processed this status too$`,
        ),
      ),
    ]);
    expect(after.errors.slice(before.errors.length)).toEqual([expect.stringMatching(/lease had expired/)]);
  }, 60_000);

  it('inside an onEvent that ran a while first: renewed, so the other receiver waits and finds it done', async () => {
    const taskId = `slow-${randomUUID()}`;
    const before = await stalling.idle();
    expect(SLOW_MS + SLOW_STALL_MS).toBeGreaterThan(LEASE_TTL_MS);
    await sendDuringStall(taskId);
    await local.idle();
    const after = await stalling.idle();
    expect(stalledEvents(taskId)).toHaveLength(1);
    expect(localEvents).not.toContain(`${taskId} accepted`);
    expect(local.stats.duplicates).toBeGreaterThanOrEqual(1);
    expect(after.logs.slice(before.logs.length)).toEqual([]);
    expect(after.stats.leaseLapsed).toBe(before.stats.leaseLapsed);
    expect(localErrors).toEqual([]);
  }, 60_000);
});
