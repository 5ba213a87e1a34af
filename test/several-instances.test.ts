/**
 * Several instances of a merchant backend over one real Redis (README "Running several instances"):
 * worker processes (test/support/create-worker.ts, separate OS processes) create orders against the
 * mock served over HTTP behind a hostile proxy that injects ambiguous faults.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { WorkerConfig, WorkerOutcome } from './support/create-worker.js';
import { type HostileHandler, type HostileServer, startHostileServer } from './support/hostile-server.js';
import { describeWithRedis, ownsRedisServer, type RedisServer, startRedisServer } from './support/redis-server.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** A seeded random number generator (mulberry32), so a failing schedule can be replayed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}

describeWithRedis('several instances sharing one Redis', () => {
  let redis: RedisServer;
  let hostile: HostileServer;
  let run = 0;

  beforeAll(async () => {
    [redis, hostile] = await Promise.all([startRedisServer(), startHostileServer()]);
  });
  beforeEach(() => hostile.mock.reset());
  afterAll(async () => {
    await hostile.close();
    if (ownsRedisServer) await redis.stop();
  });

  /** Starts a worker process; `done` settles with its outcomes (or rejects when it dies). */
  function startWorker(
    orders: readonly string[],
    prefix: string,
  ): { child: ChildProcess; done: Promise<WorkerOutcome[]> } {
    const config: WorkerConfig = {
      baseUrl: hostile.url,
      apiKey: hostile.mock.apiKey,
      sellerId: hostile.mock.sellerId,
      redisUrl: redis.url,
      prefix,
      orders: [...orders],
      timeoutMs: 2000,
    };
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/support/create-worker.ts', JSON.stringify(config)],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const done = new Promise<WorkerOutcome[]>((resolve, reject) => {
      child.once('close', (code, signal) => {
        const line = stdout.trim().split('\n').pop() ?? '';
        if (code === 0 && line.startsWith('[')) resolve(JSON.parse(line) as WorkerOutcome[]);
        else reject(new Error(`worker ended with ${signal ?? code}: ${stderr.slice(-2000)}`));
      });
    });
    return { child, done };
  }

  const prefix = () => `dts-test-${process.pid}-${++run}:`;
  const tasksFor = (orderNumber: string) => hostile.mock.tasks.filter((task) => task.orderNumber === orderNumber);
  const orderOf = (body: Buffer): string | undefined => {
    try {
      return (JSON.parse(body.toString()) as { orderNumber?: string }).orderNumber;
    } catch {
      return undefined;
    }
  };
  const passThrough: HostileHandler = async (_request, response, { forward }) => {
    const answer = await forward();
    response.writeHead(answer.status, Object.fromEntries(answer.headers)).end(answer.body);
  };

  it('creates 200 tasks and charges 200 fees when 4 processes create the same 200 orders at once, with 20 % ambiguous faults', async () => {
    const random = seeded(20261122);
    const faulted = new Set<string>();
    const faults = { 'drop before commit': 0, 'commit then drop': 0, '503': 0, 'commit then 500': 0 };
    hostile.use(async (request, response, context) => {
      const orderNumber = request.method === 'POST' ? orderOf(context.body) : undefined;
      // The first POST of about one order in five gets an ambiguous fault.
      if (orderNumber === undefined || faulted.has(orderNumber) || random() >= 0.2) {
        await passThrough(request, response, context);
        return;
      }
      faulted.add(orderNumber);
      const kind =
        (['drop before commit', 'commit then drop', '503', 'commit then 500'] as const)[Math.floor(random() * 4)] ??
        '503';
      faults[kind]++;
      if (kind === 'drop before commit') request.socket.destroy();
      else if (kind === '503') response.writeHead(503).end();
      else {
        await context.forward();
        if (kind === 'commit then drop') request.socket.destroy();
        else response.writeHead(500).end();
      }
    });
    const orders = Array.from({ length: 200 }, (_, index) => `MP-${String(index).padStart(3, '0')}`);
    const shared = prefix();
    const outcomes = (await Promise.all([1, 2, 3, 4].map(() => startWorker(orders, shared).done))).flat();
    expect(faulted.size).toBeGreaterThan(20);
    for (const orderNumber of orders) {
      const tasks = tasksFor(orderNumber);
      expect(tasks, orderNumber).toHaveLength(1);
      const seen = outcomes.filter((outcome) => outcome.orderNumber === orderNumber);
      expect(seen, orderNumber).toHaveLength(4);
      for (const outcome of seen) expect(outcome, orderNumber).toEqual({ orderNumber, taskId: tasks[0]?.id });
    }
    expect(hostile.mock.tasks).toHaveLength(200);
    expect(hostile.mock.wallet.feesCharged).toBe(200);
  }, 90_000);

  it('creates the order once when the process holding its lease is killed with SIGKILL after the service committed', async () => {
    let posted: () => void = () => {};
    const postArrived = new Promise<void>((resolve) => {
      posted = resolve;
    });
    hostile.use(async (request, response, context) => {
      if (request.method !== 'POST') return passThrough(request, response, context);
      await context.forward(); // committed; the answer never comes
      posted();
    });
    const shared = prefix();
    const first = startWorker(['KILL-1'], shared);
    await postArrived;
    first.child.kill('SIGKILL');
    await expect(first.done).rejects.toThrow(/SIGKILL/);
    hostile.use(passThrough);
    const [outcome] = await startWorker(['KILL-1'], shared).done;
    expect(tasksFor('KILL-1')).toHaveLength(1);
    expect(outcome).toEqual({ orderNumber: 'KILL-1', taskId: tasksFor('KILL-1')[0]?.id });
    expect(hostile.mock.requestsFor('tasks.create')).toHaveLength(1);
  }, 60_000);

  it.runIf(ownsRedisServer)(
    'sends nothing when Redis is down (StoreUnavailableError), and creates nothing twice after it restarts empty',
    async () => {
      hostile.use(passThrough);
      const shared = prefix();
      const [created] = await startWorker(['RESTART-1'], shared).done;
      expect(created?.taskId).toBeDefined();
      await redis.stop();
      try {
        const down = await startWorker(['DOWN-1', 'DOWN-2'], shared).done;
        expect(down).toEqual([
          { orderNumber: 'DOWN-1', error: 'StoreUnavailableError' },
          { orderNumber: 'DOWN-2', error: 'StoreUnavailableError' },
        ]);
        expect(hostile.mock.requestsFor('tasks.create')).toHaveLength(1);
      } finally {
        await redis.restart();
      }
      // Redis came back empty: the record of RESTART-1 is gone, yet it is not created again.
      const [again] = await startWorker(['RESTART-1'], shared).done;
      expect(again).toEqual({ orderNumber: 'RESTART-1', taskId: created?.taskId });
      expect(tasksFor('RESTART-1')).toHaveLength(1);
    },
    60_000,
  );
});
