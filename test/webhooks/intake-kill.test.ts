/**
 * Durable intake under crashes (README "Running several instances"; docs/several-instances.md
 * § "Durable intake"): 3 receiver processes sharing an inbox and a store (Redis, then PostgreSQL), a
 * sender spreading 1 000 webhooks (200 tasks × 5 statuses; tasks interleaved at random, a fifth of the
 * webhooks sent twice) over them, and a random receiver killed with SIGKILL every second and replaced.
 * Every (task, status) answered 200 must reach `onEvent`, in order per task; a second time only when
 * its worker died between `onEvent` returning and the record (counted and printed).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Redis from 'ioredis';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { postgresInbox } from '../../src/postgres.js';
import { redisInbox } from '../../src/redis.js';
import { seededRandom } from '../support/create-workers.js';
import type { ReceiverConfig } from '../support/intake-receiver.js';
import { describeWithPostgres, usePostgresServer } from '../support/postgres-server.js';
import {
  describeWithRedis,
  ownsRedisServer,
  type RedisServer,
  startRedisServer,
} from '../support/redis-server.js';
import { scriptArgs } from '../support/source-script.js';
import { webhookBody } from './fixtures.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const STATUSES = ['accepted', 'inprogress', 'pickedup', 'enroute', 'delivered'] as const;
const TASKS = 200;
const LANES = 12;
const PAUSE_MS = 40;

interface Receiver {
  child: ChildProcess;
  port: number;
}

/**
 * Every receiver not yet exited: a test that timed out (its attack still going) leaves none running into
 * the next test, nor past the file.
 */
const alive = new Set<ChildProcess>();
afterEach(() => {
  for (const child of alive) child.kill('SIGKILL');
  alive.clear();
});

function startReceiver(config: ReceiverConfig): Promise<Receiver> {
  const child = spawn(
    process.execPath,
    [...scriptArgs('test/support/intake-receiver.ts'), JSON.stringify(config)],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  alive.add(child);
  child.once('exit', () => alive.delete(child));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /READY (\d+)/.exec(stdout);
      if (match) resolve({ child, port: Number(match[1]) });
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`receiver ended with ${signal ?? code}: ${stderr}`)),
    );
  });
}

/** The pending and failed events of the run's inbox. */
async function inspectInbox(config: ReceiverConfig, lostTasks: readonly string[]): Promise<unknown> {
  if (config.backend === 'redis') {
    const redis = new Redis(config.url);
    try {
      return await redisInbox(redis, { stream: `${config.name}:events` }).inspect({ limit: 20 });
    } finally {
      redis.disconnect();
    }
  }
  const pool = new pg.Pool({ connectionString: config.url, max: 1 });
  try {
    const inspection = await postgresInbox(pool, { table: `${config.name}_inbox` }).inspect({ limit: 20 });
    if (lostTasks.length === 0) return inspection;
    const { rows } = await pool.query(
      `SELECT id, task_id, kind, state, attempts, error FROM "${config.name}_inbox" WHERE task_id = ANY ($1) ORDER BY task_id, id`,
      [[...lostTasks]],
    );
    return { inspection, lostTaskRows: rows };
  } finally {
    await pool.end();
  }
}

/** Runs the whole attack against `backend`; returns what it measured. */
async function attack(backend: 'redis' | 'postgres', url: string) {
  const dir = mkdtempSync(join(tmpdir(), 'dts-intake-'));
  const log = join(dir, 'events.log');
  const config: ReceiverConfig = {
    backend,
    url,
    name: `kill_${randomUUID().replaceAll('-', '').slice(0, 12)}`,
    log,
    visibilityTimeoutMs: 2000,
  };
  const random = seededRandom(20261124);
  let receivers = await Promise.all([1, 2, 3].map(() => startReceiver(config)));
  const all: ChildProcess[] = receivers.map((receiver) => receiver.child);
  let kills = 0;
  let sending = true;
  const starting: Promise<void>[] = [];
  const killer = (async () => {
    while (sending) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      if (!sending) break;
      // Two receivers at least stay up while a replacement starts (a few seconds under tsx).
      if (receivers.length < 2) continue;
      const victim = receivers[Math.floor(random() * receivers.length)];
      if (victim === undefined) continue;
      receivers = receivers.filter((receiver) => receiver !== victim);
      victim.child.kill('SIGKILL');
      kills++;
      starting.push(
        startReceiver(config).then((replacement) => {
          all.push(replacement.child);
          receivers = [...receivers, replacement];
        }),
      );
    }
  })();

  const answered = new Set<string>();
  let sent = 0;
  let retried = 0;
  const post = async (taskId: string, status: string): Promise<void> => {
    for (;;) {
      const target = receivers[Math.floor(random() * receivers.length)];
      sent++;
      try {
        const response = await fetch(`http://127.0.0.1:${target?.port}/webhooks`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(webhookBody(taskId, status)),
          signal: AbortSignal.timeout(3000),
        });
        await response.arrayBuffer();
        if (response.status === 200) {
          answered.add(`${taskId} ${status}`);
          return;
        }
      } catch {
        // The receiver was killed mid-request: not answered 200, so sent again (elsewhere).
      }
      retried++;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const tasks = Array.from({ length: TASKS }, (_, index) => `${config.name}-task-${index}`).sort(
    () => random() - 0.5,
  );
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: LANES }, async () => {
      for (let taskIndex = next++; taskIndex < tasks.length; taskIndex = next++) {
        const taskId = tasks[taskIndex] ?? '';
        for (const status of STATUSES) {
          await post(taskId, status);
          if (random() < 0.25) await post(taskId, status); // a duplicate
          await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
        }
      }
    }),
  );
  const sendMs = Date.now() - started;
  sending = false;
  await killer;
  await Promise.all(starting);

  const expected = TASKS * STATUSES.length;
  const lines = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : []);
  const deadline = Date.now() + 30_000;
  while (
    new Set(lines().map((line) => line.split(' ').slice(0, 2).join(' '))).size < expected &&
    Date.now() < deadline
  ) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const drainMs = Date.now() - started - sendMs;
  for (const child of all) child.kill('SIGKILL');
  const seen = lines().map((line) => line.split(' ').slice(0, 2).join(' '));
  rmSync(dir, { recursive: true, force: true });
  // What the inbox still holds (pending, failed and why): names the cause of a loss.
  const seenSet = new Set(seen);
  const lostTasks = [...answered]
    .filter((pair) => !seenSet.has(pair))
    .map((pair) => pair.split(' ')[0] ?? '');
  const inspection = await inspectInbox(config, lostTasks).catch((error: unknown) => String(error));
  return { answered, seen, kills, sent, retried, sendMs, drainMs, inspection };
}

/** The checks both backends must pass, and the figures printed. */
function check(label: string, result: Awaited<ReturnType<typeof attack>>): void {
  const unique = new Set(result.seen);
  const lost = [...result.answered].filter((pair) => !unique.has(pair));
  const duplicates = result.seen.length - unique.size;
  console.log(
    `${label}: ${result.answered.size} (task, status) answered 200, ${result.sent} POSTs (${result.retried} not answered 200: sent again), ${result.kills} receivers killed; ${lost.length} lost, ${duplicates} processed twice; sending ${result.sendMs} ms, draining ${result.drainMs} ms`,
  );
  if (lost.length > 0)
    console.log(`${label}: lost ${lost.join(', ')}; inbox ${JSON.stringify(result.inspection)}`);
  expect(result.kills).toBeGreaterThanOrEqual(3);
  expect(result.answered.size).toBe(TASKS * STATUSES.length);
  expect(lost).toEqual([]);
  // In order per task: the first time each status reached onEvent follows the delivery path.
  const firsts = new Map<string, string[]>();
  for (const pair of unique) {
    const [taskId = '', status = ''] = pair.split(' ');
    firsts.set(taskId, [...(firsts.get(taskId) ?? []), status]);
  }
  for (const [taskId, statuses] of firsts) expect(statuses, taskId).toEqual([...STATUSES]);
  // A second run only when a worker died in the window between onEvent and the record: at most the
  // events a killed process was running (concurrency 8) per kill.
  expect(duplicates).toBeLessThanOrEqual(8 * result.kills);
}

describeWithRedis('durable intake over Redis while receivers are SIGKILLed', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    // The setting the inbox asks for; the receivers are killed here, never Redis.
    redis = await startRedisServer({ args: ['--appendonly', 'yes'] });
  });
  afterAll(async () => {
    if (ownsRedisServer) await redis?.stop();
  });
  it('brings every (task, status) answered 200 to onEvent, in order, none lost', async () => {
    check('Redis', await attack('redis', redis.url));
  }, 90_000);
});

describeWithPostgres('durable intake over PostgreSQL while receivers are SIGKILLed', () => {
  const postgres = usePostgresServer();
  it('brings every (task, status) answered 200 to onEvent, in order, none lost', async () => {
    check('PostgreSQL', await attack('postgres', postgres.server().url));
  }, 90_000);
});
