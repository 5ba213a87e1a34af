/**
 * Worker processes frozen with SIGSTOP at random points while they create the same orders over one real
 * Redis (docs/several-instances.md "Stalls"): a process the OS does not schedule for 0.2-3 s, and one
 * past its lease, must never let two processes create one order.
 */
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { LEASE_TTL_MS } from '../../../src/resources/task-creation/lease-terms.js';
import {
  ambiguousCreateFaults,
  type CreateWorker,
  seededRandom,
  startCreateWorker,
} from '../../support/create-workers.js';
import { type HostileServer, startHostileServer } from '../../support/hostile-server.js';
import {
  describeWithRedis,
  ownsRedisServer,
  type RedisServer,
  startRedisServer,
} from '../../support/redis-server.js';

describeWithRedis('worker processes frozen with SIGSTOP', () => {
  let redis: RedisServer;
  let hostile: HostileServer;
  /** A test that fails or times out leaves no worker running, or stopped. */
  const children = new Set<ChildProcess>();

  beforeAll(async () => {
    [redis, hostile] = await Promise.all([startRedisServer(), startHostileServer()]);
  });
  afterEach(() => {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGCONT');
        child.kill('SIGKILL');
      }
    }
    children.clear();
  });
  afterAll(async () => {
    await hostile.close();
    if (ownsRedisServer) await redis.stop();
  });

  /** A worker process creating `orders` over the shared Redis under `prefix`, up to `attempts` times each. */
  const startWorker = (orders: readonly string[], prefix: string, attempts: number): CreateWorker => {
    const worker = startCreateWorker({
      attempts,
      baseUrl: hostile.url,
      apiKey: hostile.mock.apiKey,
      sellerId: hostile.mock.sellerId,
      redisUrl: redis.url,
      prefix,
      orders: [...orders],
      timeoutMs: 2000,
    });
    children.add(worker.child);
    return worker;
  };
  const tasksFor = (orderNumber: string) =>
    hostile.mock.tasks.filter((task) => task.orderNumber === orderNumber);

  it('creates each order once when its processes are frozen (SIGSTOP) at random points, one past its lease', async () => {
    const faults = ambiguousCreateFaults(20261129, 0.3);
    hostile.use(faults.handler);
    const orders = Array.from({ length: 20 }, (_, index) => `STOP-${String(index).padStart(2, '0')}`);
    const shared = `dts-test-${process.pid}-frozen:`;
    const workers = [1, 2, 3].map(() => startWorker(orders, shared, 8));
    const settled = Promise.allSettled(workers.map((worker) => worker.done));
    let running = true;
    void settled.then(() => {
      running = false;
    });
    const frozen: number[] = [];
    const stopped = new Set<ChildProcess>();
    /** Freezes `child` for `ms` unless it is frozen already, as a process the OS does not schedule; it always resumes. */
    const freeze = async (child: ChildProcess, ms: number) => {
      if (!running || stopped.has(child) || !child.kill('SIGSTOP')) return;
      stopped.add(child);
      frozen.push(ms);
      try {
        await sleep(ms);
      } finally {
        stopped.delete(child);
        child.kill('SIGCONT');
      }
    };
    const random = seededRandom(20261129);
    // One process frozen past its lease while the others go on; from then on, every 0.3-0.8 s, a 0.2-3 s
    // freeze of one of the processes still running and not frozen, at random (however quickly they work).
    const longStarts = sleep(1500);
    const long = longStarts.then(() => freeze(workers[0]?.child as ChildProcess, LEASE_TTL_MS + 2000));
    const short = (async () => {
      // From the long freeze's start (it comes first: its reaction was registered before this one).
      await longStarts;
      const freezes: Promise<void>[] = [];
      while (running) {
        await sleep(300 + random() * 500);
        const awake = workers.filter(
          ({ child }) => child.exitCode === null && child.signalCode === null && !stopped.has(child),
        );
        const worker = awake[Math.floor(random() * awake.length)];
        const ms = Math.round(200 + random() * 2800);
        if (worker !== undefined) freezes.push(freeze(worker.child, ms));
      }
      await Promise.all(freezes);
    })();
    const outcomes = (await settled).flatMap((result) => (result.status === 'fulfilled' ? result.value : []));
    await Promise.all([long, short]);
    // The long freeze and at least five short ones happened while the workers ran.
    expect(frozen).toContain(LEASE_TTL_MS + 2000);
    expect(frozen.length).toBeGreaterThan(5);
    expect(outcomes).toHaveLength(3 * orders.length);
    for (const orderNumber of orders) {
      const tasks = tasksFor(orderNumber);
      const seen = outcomes.filter((outcome) => outcome.orderNumber === orderNumber);
      expect(tasks, `${orderNumber}: ${JSON.stringify(seen)}`).toHaveLength(1);
      for (const outcome of seen) {
        expect(outcome, `${orderNumber}: ${JSON.stringify(seen)}`).toEqual({
          orderNumber,
          taskId: tasks[0]?.id,
        });
      }
    }
    expect(hostile.mock.wallet.feesCharged).toBe(orders.length);
  }, 90_000);
});
