/**
 * The SDK beside what a merchant would write by hand (`npx tsx bench/peers-client.ts` after `npm run
 * build`; `npm run bench:peers` builds first). The SDK runs from the build, as the package ships it
 * (bench/support/built-sdk.ts).
 *
 * 1. List all: 1,000 tasks in 100 pages of 10, each page answered after 20 ms, walked
 *    (a) with the SDK's `for await (const task of client.tasks.list({}, { concurrency }))`,
 *    (b) with hand-written ky code (page 1 for `totalPages`, then pages 2…100 through a pool of
 *        `concurrency` workers, `.json()`, the tasks collected in page order), and
 *    (c) with the same code on plain `fetch` (`response.ok` checked, `response.json()`),
 *    at concurrency 16 and 100. Measured per walk: wall time and the walking process's CPU
 *    (`process.cpuUsage()` around the walk, user + system). The server runs in a child process (a fork of
 *    this file), so the CPU is the client's alone; each turn runs in a walker process of its own (another
 *    fork), which walks 20 times untimed (the JIT compiles on threads whose CPU counts), then `PEERS_WALKS`
 *    times, and the turn's medians are its round's values: walks of two variants in one process would each
 *    pay for the other's garbage. Every walk must yield every task once (count and distinct ids) or the run
 *    fails.
 * 2. Create through a shared store: sequential creates of new orders (`orderParams`, a fresh order number
 *    each), one POST each to the same child server (201 `{ data: { createTask: <task> } }`, the task's id
 *    new per request and its `orderNumber` the request's), timed per create (the median of `PEERS_CREATES`
 *    creates is the turn's value), after 300 creates of each variant in turns of 10 (a new process's JIT
 *    still compiling: their medians are printed as the cold figures), with
 *    - `DeliveryClient` over `redisStore` (ioredis, loopback redis-server) against the hand-written Redis
 *      scheme: `SET order:<n> <holder> NX PX <24 h>`, the POST with ky, `SET order:<n> <task id> PX <24 h>`;
 *    - `DeliveryClient` over `postgresStore` (pg Pool, loopback PostgreSQL, `fsync` and
 *      `synchronous_commit` on) against `INSERT … ON CONFLICT DO NOTHING`, the POST with ky, `UPDATE`.
 *    Both SDK stores are warm (their `epoch` key set an hour back, as bench/shared-state.ts "warm"), so a
 *    create does not look its order up first; the list requests the server saw are printed to show it.
 *    Store round trips are counted by wrapping the clients (ioredis `sendCommand`, which every command goes
 *    through; pg `Pool.query`), as bench/support/drain-worker.ts does: over ioredis a command sent while
 *    another waits for its reply shares that one's round trip. The SDK's calls are three: the claim, a
 *    read of the store's `epoch`, the outcome; over ioredis the first two leave in one write (2 round trips,
 *    3 commands); over PostgreSQL each is a statement, and each write waits for its commit to disk, as the
 *    hand-written scheme's two do.
 *
 * What the hand-written schemes do not guarantee that the SDK does, so that the figures are read as the
 * price of those guarantees and not as overhead alone: the SDK's create takes the order under a lease
 * (a holder id, renewed while the POST is open, and an end to the POST's possible flight) and ends it with
 * a compare-and-set of an outcome record (`created` with the task id, or `failed`, or an unknown outcome
 * that makes the next create look the order up before sending again); a create that finds a live lease
 * waits for its outcome, one that finds a dead lease (a process that crashed mid-POST) takes it over,
 * fenced, and looks the order up before any POST. `SET NX` alone (and `INSERT … ON CONFLICT DO NOTHING`
 * alone) only says "someone started this order": after a crash between the claim and the last write the
 * order stays claimed with no task id (stuck for the TTL, or resent blindly by whoever clears it), a
 * timed-out POST that did create the task is not looked up, and a slow holder is never fenced off.
 *
 * Environment: `PEERS_ROUNDS` (interleaved rounds, default 5; fewer than 3 is a trial), `PEERS_CREATES`
 * (creates per turn, default 300), `PEERS_WALKS` (timed walks per turn, default 15), `PEERS_ONLY`
 * (`list` or `create`: that part alone; both when unset). Everything started here
 * (the child server, redis-server, PostgreSQL) is stopped at the end, also on failure; if this process is
 * killed, each of them ends with it (the child on its IPC channel's close, the databases by their guards).
 * @module
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import IORedis from 'ioredis';
import ky, { type KyInstance } from 'ky';
import pg from 'pg';
import type { DeliveryStore } from '../src/index.node.js';
import { orderParams } from '../test/support/order-params.js';
import { startPostgresServer } from '../test/support/postgres-server.js';
import { startRedisServer } from '../test/support/redis-server.js';
import { builtSdk } from './support/built-sdk.js';
import { sampleTask } from './support/sample-task.js';
import { interleave, median } from './support/stats.js';

// The package's build (bench/support/built-sdk.ts): what a merchant runs, beside ky, `fetch` and the stores'
// own clients.
const {
  main: { DeliveryClient },
  postgres: { postgresStore },
  redis: { redisStore },
  store: { storeKey },
} = await builtSdk();

const API_KEY = 'bench-key';
const SELLER_ID = 'bench-seller';
const HEADERS = { authorization: `apikey ${API_KEY}`, 'x-seller-id': SELLER_ID };
const TASKS = 1000;
const PAGE_SIZE = 10;
const PAGE_LATENCY_MS = 20;
const CONCURRENCIES = [16, 100] as const;
/** How long an order's claim and record are kept, both schemes: the SDK's default `orderTtlMs` (24 h). */
const ORDER_TTL_MS = 86_400_000;
/**
 * Creates per variant before the rounds (JIT, connections, Lua scripts, table), in turns of
 * {@link WARM_TURN} so that code the variants share (ky, undici, the store clients) warms for each alike.
 * Measured: the SDK's create reaches its steady time after about 200 creates of a new process, the
 * hand-written ones after about 100; their times are printed as the cold figures.
 */
const WARM_CREATES = 300;
const WARM_TURN = 10;
const SERVE_FLAG = '--peers-service';
/** A walker process's flag: `[WALKER_FLAG, service URL, variant, walks]`. */
const WALKER_FLAG = '--peers-walker';
/** Untimed walks in each walker process before its timed ones (JIT, connections). */
const WARM_WALKS = 20;

function envInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be an integer ≥ 1, got ${raw}`);
  return value;
}

// ---------------------------------------------------------------------------------------------------------
// The service: a child process, so that its CPU is not the client's.

/** Requests the child served, by kind. */
interface ServedCounts {
  list: number;
  create: number;
  other: number;
}

async function readAll(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The child: `GET /tasks?page=&limit=` from pre-built pages after {@link PAGE_LATENCY_MS} (as bench/list-all.ts
 * serves them), `POST /tasks` answered at once with 201 and the created task; 401 without the headers.
 */
async function runService(): Promise<void> {
  const totalPages = Math.ceil(TASKS / PAGE_SIZE);
  const bodies: string[] = [];
  for (let page = 1; page <= totalPages; page++) {
    const tasks = [];
    for (let index = (page - 1) * PAGE_SIZE; index < Math.min(TASKS, page * PAGE_SIZE); index++) {
      tasks.push(sampleTask(index));
    }
    bodies.push(JSON.stringify({ tasks, page, limit: PAGE_SIZE, totalPages, total: TASKS }));
  }
  const created = {
    ...sampleTask(0),
    status: 'pending',
    statusHistory: [{ id: 'h1', status: 'pending', timestamp: '2026-11-21T09:00:00.000Z' }],
    driver: undefined,
    deliveryTime: undefined,
    deliveryDispatched: false,
  };
  const counts: ServedCounts = { list: 0, create: 0, other: 0 };
  let taskIds = 0;
  const server = createServer((request, response) => {
    const answer = (status: number, body: string, delayMs = 0) => {
      const send = () => {
        response.writeHead(status, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        });
        response.end(body);
      };
      if (delayMs > 0) setTimeout(send, delayMs);
      else send();
    };
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (
      request.headers.authorization !== HEADERS.authorization ||
      request.headers['x-seller-id'] !== SELLER_ID
    ) {
      counts.other++;
      answer(401, '{"message":"Unauthorized"}');
      return;
    }
    if (request.method === 'GET' && url.pathname === '/tasks') {
      counts.list++;
      const page = Number(url.searchParams.get('page') ?? '1');
      const body =
        bodies[page - 1] ?? JSON.stringify({ tasks: [], page, limit: PAGE_SIZE, totalPages, total: TASKS });
      answer(200, body, PAGE_LATENCY_MS);
      return;
    }
    if (request.method === 'POST' && url.pathname === '/tasks') {
      counts.create++;
      void readAll(request).then((text) => {
        const { orderNumber } = JSON.parse(text) as { orderNumber?: string };
        const id = `6b02${process.pid.toString(16).padStart(8, '0')}${(++taskIds).toString(16).padStart(12, '0')}`;
        answer(201, JSON.stringify({ data: { createTask: { ...created, id, orderNumber } } }));
      });
      return;
    }
    counts.other++;
    answer(404, '{"message":"Not found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.on('message', (message) => {
    if (message === 'counts') process.send?.(counts);
  });
  // The parent gone or done: its IPC channel closes.
  process.on('disconnect', () => process.exit(0));
  process.send?.({ port: (server.address() as AddressInfo).port });
}

interface Service {
  readonly url: string;
  counts(): Promise<ServedCounts>;
  stop(): Promise<void>;
}

async function startService(): Promise<Service> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [SERVE_FLAG], {
    execArgv: process.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill();
    await exited;
  };
  try {
    const [ready] = (await Promise.race([
      once(child, 'message'),
      exited.then(() => {
        throw new Error('the service process exited at start');
      }),
    ])) as [{ port: number }];
    const url = `http://127.0.0.1:${ready.port}/`;
    let asking = Promise.resolve();
    return {
      url,
      stop,
      // One question at a time: each answer is the next message.
      counts: () => {
        const answer = asking.then(async () => {
          const reply = once(child, 'message');
          child.send('counts');
          return ((await reply) as [ServedCounts])[0];
        });
        asking = answer.then(
          () => {},
          () => {},
        );
        return answer;
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Rounds: interleaved, the load average printed as each begins.

/** `variants` wrapped so that the first turn of each round prints the round's number and load average. */
function announcingRounds<Name extends string, Value>(
  title: string,
  rounds: number,
  variants: Record<Name, () => Promise<Value>>,
): Record<Name, () => Promise<Value>> {
  const names = Object.keys(variants) as Name[];
  let turns = 0;
  return Object.fromEntries(
    names.map((name) => [
      name,
      async () => {
        if (turns % names.length === 0) {
          const load = os.loadavg().map((value) => value.toFixed(2));
          console.log(`${title} round ${turns / names.length + 1}/${rounds}: load average ${load.join(' ')}`);
        }
        turns++;
        return variants[name]();
      },
    ]),
  ) as Record<Name, () => Promise<Value>>;
}

/** `min / median / max` of per-round ratios, two decimals with a ×. */
function ratioRange(ratios: readonly number[]): string {
  const digits = (value: number) => `${value.toFixed(2)}×`;
  return `${digits(Math.min(...ratios))} / ${digits(median(ratios))} / ${digits(Math.max(...ratios))}`;
}

const fixed = (value: number, digits: number, width: number) => value.toFixed(digits).padStart(width);

// ---------------------------------------------------------------------------------------------------------
// Part 1: list all.

interface PageBody {
  tasks: { id?: string }[];
  totalPages: number;
}

/** Page 1, then pages 2…totalPages through `concurrency` workers; the tasks in page order. */
async function walkPages(getPage: (page: number) => Promise<PageBody>, concurrency: number) {
  const first = await getPage(1);
  const pages: PageBody['tasks'][] = [first.tasks];
  let next = 2;
  const worker = async () => {
    while (next <= first.totalPages) {
      const page = next++;
      pages[page - 1] = (await getPage(page)).tasks;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, first.totalPages - 1) }, worker));
  return pages.flat();
}

interface WalkTurn {
  /** Median wall time of the turn's walks, ms. */
  ms: number;
  /** Median CPU of this process during a walk, ms. */
  cpuMs: number;
  /** Requests the server saw per walk. */
  requests: number;
}

type ListVariant = `${'sdk' | 'ky' | 'fetch'}${(typeof CONCURRENCIES)[number]}`;

/** The walk of each variant against the service at `url`. */
function walkersFor(url: string): Record<ListVariant, () => Promise<readonly { id?: string | undefined }[]>> {
  const client = new DeliveryClient({ apiKey: API_KEY, sellerId: SELLER_ID, baseUrl: url, logLevel: 'off' });
  const api: KyInstance = ky.create({ prefixUrl: url, headers: HEADERS });
  const kyPage = (page: number) =>
    api.get('tasks', { searchParams: { limit: PAGE_SIZE, page } }).json<PageBody>();
  const fetchPage = async (page: number) => {
    const response = await fetch(`${url}tasks?limit=${PAGE_SIZE}&page=${page}`, { headers: HEADERS });
    if (!response.ok) throw new Error(`page ${page}: HTTP ${response.status}`);
    return (await response.json()) as PageBody;
  };
  const walkers: Record<ListVariant, () => Promise<readonly { id?: string | undefined }[]>> = {} as never;
  for (const concurrency of CONCURRENCIES) {
    walkers[`sdk${concurrency}`] = async () => {
      const tasks = [];
      for await (const task of client.tasks.list({}, { concurrency })) tasks.push(task);
      return tasks;
    };
    walkers[`ky${concurrency}`] = () => walkPages(kyPage, concurrency);
    walkers[`fetch${concurrency}`] = () => walkPages(fetchPage, concurrency);
  }
  return walkers;
}

/** The walker process ({@link WALKER_FLAG}): `walks` walks of one variant after {@link WARM_WALKS}. */
async function runWalker(url: string, name: ListVariant, walks: number): Promise<void> {
  const walk = walkersFor(url)[name];
  const walkOnce = async () => {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const tasks = await walk();
    const ms = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const distinct = new Set(tasks.map((task) => task.id)).size;
    if (tasks.length !== TASKS || distinct !== TASKS) {
      throw new Error(`${name}: walked ${tasks.length} tasks (${distinct} distinct ids), expected ${TASKS}`);
    }
    return { ms, cpuMs: (cpu.user + cpu.system) / 1000 };
  };
  for (let warm = 0; warm < WARM_WALKS; warm++) await walkOnce();
  const samples = [];
  for (let walk = 0; walk < walks; walk++) samples.push(await walkOnce());
  process.send?.({
    ms: median(samples.map((sample) => sample.ms)),
    cpuMs: median(samples.map((sample) => sample.cpuMs)),
  });
}

async function listAll(service: Service, rounds: number, walks: number): Promise<void> {
  const names = CONCURRENCIES.flatMap((concurrency) =>
    (['sdk', 'ky', 'fetch'] as const).map((kind): ListVariant => `${kind}${concurrency}`),
  );
  // Each turn walks in a process of its own: the garbage of one variant's walks is not collected during
  // another's, which would count its CPU to the wrong variant.
  const turn = (name: ListVariant) => async (): Promise<WalkTurn> => {
    const before = await service.counts();
    const child = fork(fileURLToPath(import.meta.url), [WALKER_FLAG, service.url, name, String(walks)], {
      execArgv: process.execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const exited = once(child, 'exit');
    const [measured] = (await Promise.race([
      once(child, 'message'),
      exited.then(([code]) => {
        throw new Error(`the ${name} walker exited with ${code} before its figures`);
      }),
    ])) as [Pick<WalkTurn, 'ms' | 'cpuMs'>];
    const [code] = await exited;
    if (code !== 0) throw new Error(`the ${name} walker exited with ${code}`);
    const after = await service.counts();
    return { ...measured, requests: (after.list - before.list) / (WARM_WALKS + walks) };
  };
  const results = await interleave(
    rounds,
    announcingRounds(
      'list all',
      rounds,
      Object.fromEntries(names.map((name) => [name, turn(name)])) as Record<
        ListVariant,
        () => Promise<WalkTurn>
      >,
    ),
  );
  console.log(
    `\nList all: ${TASKS} tasks in ${TASKS / PAGE_SIZE} pages of ${PAGE_SIZE}, ${PAGE_LATENCY_MS} ms per page, server in a child process; ` +
      `per round the median of ${walks} walks (wall ms / client CPU ms):`,
  );
  for (let round = 0; round < rounds; round++) {
    const cells = CONCURRENCIES.map((concurrency) => {
      const cell = (name: ListVariant) => {
        const value = results[name][round] as WalkTurn;
        return `${value.ms.toFixed(0)}/${value.cpuMs.toFixed(1)}`;
      };
      return `c${concurrency}: SDK ${cell(`sdk${concurrency}`)} ky ${cell(`ky${concurrency}`)} fetch ${cell(`fetch${concurrency}`)}`;
    });
    console.log(`  round ${round + 1}  ${cells.join('   ')}`);
  }
  console.log(
    `  ${'variant'.padEnd(16)} ${'wall ms'.padStart(8)} ${'CPU ms'.padStart(8)} ${'requests/walk'.padStart(14)}   (median over rounds)`,
  );
  const label: Record<string, string> = { sdk: 'SDK for await', ky: 'ky by hand', fetch: 'fetch by hand' };
  for (const name of names) {
    const of = (key: keyof WalkTurn) => median(results[name].map((value) => value[key]));
    const kind = name.replace(/\d+$/, '');
    const title = `${label[kind]} c${name.slice(kind.length)}`;
    console.log(
      `  ${title.padEnd(16)} ${fixed(of('ms'), 1, 8)} ${fixed(of('cpuMs'), 1, 8)} ${fixed(of('requests'), 1, 14)}`,
    );
  }
  for (const concurrency of CONCURRENCIES) {
    const sdk = results[`sdk${concurrency}`];
    const peer = results[`ky${concurrency}`];
    const ratios = (pick: (value: WalkTurn) => number) =>
      sdk.map((value, round) => pick(value) / pick(peer[round] as WalkTurn));
    console.log(
      `  SDK ÷ ky at c${concurrency} (min / median / max of ${rounds} rounds): ` +
        `time ${ratioRange(ratios((value) => value.ms))}, CPU ${ratioRange(ratios((value) => value.cpuMs))}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------------------
// Part 2: create through a store.

interface CreatedEnvelope {
  data: { createTask: { id: string } };
}

interface CreateTurn {
  /** Median ms per create. */
  ms: number;
  /** Redis commands or pg queries per create. */
  roundTrips: number;
  posts: number;
  lists: number;
}

type CreateVariant = 'sdkRedis' | 'handRedis' | 'sdkPostgres' | 'handPostgres';

async function createThroughStores(service: Service, rounds: number, creates: number): Promise<void> {
  // Both started at once; when one fails, the other is stopped before the error goes on.
  const [redisStart, postgresStart] = await Promise.allSettled([
    startRedisServer(),
    startPostgresServer({ durable: true }),
  ]);
  if (redisStart.status === 'rejected' || postgresStart.status === 'rejected') {
    if (redisStart.status === 'fulfilled') await redisStart.value.stop().catch(() => {});
    if (postgresStart.status === 'fulfilled') await postgresStart.value.stop().catch(() => {});
    throw redisStart.status === 'rejected'
      ? redisStart.reason
      : (postgresStart as PromiseRejectedResult).reason;
  }
  const redis = redisStart.value;
  const postgres = postgresStart.value;
  let io: IORedis | undefined;
  let pool: pg.Pool | undefined;
  try {
    io = new IORedis(redis.url);
    pool = new pg.Pool({ connectionString: postgres.url, max: 10 });
    const wire = { redis: 0, postgres: 0 };
    const sendCommand = io.sendCommand.bind(io);
    let waiting = 0;
    const answered = () => {
      waiting--;
    };
    (io as unknown as { sendCommand: typeof sendCommand }).sendCommand = (command, ...rest) => {
      if (waiting++ === 0) wire.redis++;
      command.promise.then(answered, answered);
      return sendCommand(command, ...rest);
    };
    const query = pool.query.bind(pool) as (text: string, values?: unknown[]) => Promise<pg.QueryResult>;
    (pool as unknown as { query: typeof query }).query = (text, values) => {
      wire.postgres++;
      return query(text, values);
    };
    const redisClient = io;
    const pgPool = pool;
    const { rows } = await pgPool.query(
      "SELECT current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS sync",
    );
    const settings = rows[0] as { fsync: string; sync: string };

    const base = { apiKey: API_KEY, sellerId: SELLER_ID, baseUrl: service.url, logLevel: 'off' as const };
    const sdkRedisStore = redisStore(redisClient, { prefix: `peers-${process.pid}:` });
    const table = `peers_store_${process.pid}`;
    const sdkPostgresStore = postgresStore(pgPool, { table });
    await sdkRedisStore.ready();
    await sdkPostgresStore.ready();
    const sdkRedis = new DeliveryClient({ ...base, store: sdkRedisStore });
    const sdkPostgres = new DeliveryClient({ ...base, store: sdkPostgresStore });
    // Warm stores: their records began an hour ago, so a create does not look its order up first.
    const epochKey = storeKey({ baseUrl: sdkRedis.baseUrl, sellerId: SELLER_ID }, 'epoch');
    const warm = async (store: DeliveryStore) => {
      await store.delete(epochKey);
      await store.setIfAbsent(epochKey, String(Date.now() - 3_600_000), ORDER_TTL_MS);
    };
    await warm(sdkRedisStore);
    await warm(sdkPostgresStore);

    // The hand-written schemes.
    const api = ky.create({ prefixUrl: service.url, headers: HEADERS });
    const post = async (params: ReturnType<typeof orderParams>) =>
      (await api.post('tasks', { json: params }).json<CreatedEnvelope>()).data.createTask;
    const handRedisCreate = async (params: ReturnType<typeof orderParams>) => {
      const key = `peers-hand-${process.pid}:order:${params.orderNumber}`;
      if ((await redisClient.set(key, randomUUID(), 'PX', ORDER_TTL_MS, 'NX')) === null) {
        throw new Error(`order ${params.orderNumber} is already claimed`);
      }
      const task = await post(params);
      await redisClient.set(key, task.id, 'PX', ORDER_TTL_MS);
      return task;
    };
    const orders = `peers_orders_${process.pid}`;
    await pgPool.query(
      `CREATE TABLE IF NOT EXISTS ${orders} (order_number text PRIMARY KEY, task_id text, claimed_at timestamptz NOT NULL DEFAULT now())`,
    );
    const handPostgresCreate = async (params: ReturnType<typeof orderParams>) => {
      const claimed = await pgPool.query(
        `INSERT INTO ${orders} (order_number) VALUES ($1) ON CONFLICT DO NOTHING`,
        [params.orderNumber],
      );
      if (claimed.rowCount !== 1) throw new Error(`order ${params.orderNumber} is already claimed`);
      const task = await post(params);
      await pgPool.query(`UPDATE ${orders} SET task_id = $2 WHERE order_number = $1`, [
        params.orderNumber,
        task.id,
      ]);
      return task;
    };

    let orderCount = 0;
    const variants: Record<
      CreateVariant,
      { create: (orderNumber: string) => Promise<{ id: string }>; wire: 'redis' | 'postgres' }
    > = {
      sdkRedis: { create: (orderNumber) => sdkRedis.tasks.create(orderParams(orderNumber)), wire: 'redis' },
      handRedis: { create: (orderNumber) => handRedisCreate(orderParams(orderNumber)), wire: 'redis' },
      sdkPostgres: {
        create: (orderNumber) => sdkPostgres.tasks.create(orderParams(orderNumber)),
        wire: 'postgres',
      },
      handPostgres: {
        create: (orderNumber) => handPostgresCreate(orderParams(orderNumber)),
        wire: 'postgres',
      },
    };
    const names = Object.keys(variants) as CreateVariant[];
    const runCreates = async (name: CreateVariant, count: number) => {
      const variant = variants[name];
      const samples: number[] = [];
      for (let index = 0; index < count; index++) {
        const orderNumber = `PEERS-${process.pid}-${++orderCount}`;
        const started = performance.now();
        const task = await variant.create(orderNumber);
        samples.push(performance.now() - started);
        if (typeof task.id !== 'string' || task.id === '')
          throw new Error(`${name}: created a task without an id`);
      }
      return samples;
    };
    const turn = (name: CreateVariant) => async (): Promise<CreateTurn> => {
      const wireBefore = wire[variants[name].wire];
      const before = await service.counts();
      const samples = await runCreates(name, creates);
      const after = await service.counts();
      const result = {
        ms: median(samples),
        roundTrips: (wire[variants[name].wire] - wireBefore) / creates,
        posts: (after.create - before.create) / creates,
        lists: (after.list - before.list) / creates,
      };
      if (result.posts !== 1 || after.other !== before.other) {
        throw new Error(
          `${name}: ${result.posts} POSTs per create and ${after.other - before.other} refused requests (expected 1 and 0)`,
        );
      }
      return result;
    };
    // The warm-up, timed: a process's first creates, while the JIT compiles.
    const cold = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<
      CreateVariant,
      number[]
    >;
    for (let done = 0; done < WARM_CREATES; done += WARM_TURN) {
      for (const name of names) cold[name].push(...(await runCreates(name, WARM_TURN)));
    }
    const results = await interleave(
      rounds,
      announcingRounds(
        'create',
        rounds,
        Object.fromEntries(names.map((name) => [name, turn(name)])) as Record<
          CreateVariant,
          () => Promise<CreateTurn>
        >,
      ),
    );
    console.log(
      `\nCreate through a store: ${creates} new orders a turn, one at a time, one POST each to the child server (201, no delay); ` +
        `PostgreSQL fsync ${settings.fsync}, synchronous_commit ${settings.sync}; per round the median ms per create:`,
    );
    for (let round = 0; round < rounds; round++) {
      const cell = (name: CreateVariant) => (results[name][round] as CreateTurn).ms.toFixed(2);
      console.log(
        `  round ${round + 1}  Redis: SDK ${cell('sdkRedis')} hand ${cell('handRedis')}   ` +
          `PostgreSQL: SDK ${cell('sdkPostgres')} hand ${cell('handPostgres')}`,
      );
    }
    const label: Record<CreateVariant, string> = {
      sdkRedis: 'SDK, redisStore',
      handRedis: 'hand, SET NX + SET',
      sdkPostgres: 'SDK, postgresStore',
      handPostgres: 'hand, INSERT + UPDATE',
    };
    console.log(
      `  ${'variant'.padEnd(22)} ${'ms/create'.padStart(9)} ${'round trips'.padStart(11)} ${'POSTs'.padStart(6)} ${'list GETs'.padStart(9)}   (median over rounds, per create)`,
    );
    for (const name of names) {
      const of = (key: keyof CreateTurn) => median(results[name].map((value) => value[key]));
      const [ms, trips, posts, lists] = [of('ms'), of('roundTrips'), of('posts'), of('lists')];
      console.log(
        `  ${label[name].padEnd(22)} ${fixed(ms, 2, 9)} ${fixed(trips, 2, 11)} ${fixed(posts, 2, 6)} ${fixed(lists, 2, 9)}`,
      );
    }
    for (const [store, sdk, hand] of [
      ['Redis', 'sdkRedis', 'handRedis'],
      ['PostgreSQL', 'sdkPostgres', 'handPostgres'],
    ] as const) {
      const ratios = results[sdk].map((value, round) => value.ms / (results[hand][round] as CreateTurn).ms);
      console.log(
        `  SDK ÷ hand-written, ${store} (min / median / max of ${rounds} rounds): ${ratioRange(ratios)}`,
      );
    }
    console.log(
      `  Cold, the process's first ${WARM_CREATES} creates of each variant (made before the rounds, the variants in turns of ${WARM_TURN}), median ms per create:`,
    );
    for (const [store, sdk, hand] of [
      ['Redis', 'sdkRedis', 'handRedis'],
      ['PostgreSQL', 'sdkPostgres', 'handPostgres'],
    ] as const) {
      const [sdkMs, handMs] = [median(cold[sdk]), median(cold[hand])];
      console.log(
        `    ${store}: SDK ${sdkMs.toFixed(2)}, hand ${handMs.toFixed(2)}, SDK ÷ hand ${(sdkMs / handMs).toFixed(2)}×`,
      );
    }
  } finally {
    io?.disconnect();
    await pool?.end().catch(() => {});
    await Promise.all([redis.stop().catch(() => {}), postgres.stop().catch(() => {})]);
  }
}

async function main(): Promise<void> {
  const rounds = envInteger('PEERS_ROUNDS', 5);
  const creates = envInteger('PEERS_CREATES', 300);
  const walks = envInteger('PEERS_WALKS', 15);
  const only = process.env.PEERS_ONLY ?? '';
  if (only !== '' && only !== 'list' && only !== 'create') {
    throw new Error(`PEERS_ONLY must be list or create, got ${only}`);
  }
  console.log(
    `peers-client: ${rounds} interleaved rounds${rounds < 3 ? ' (fewer than 3: a trial, not a result)' : ''}, ` +
      `${walks} walks and ${creates} creates a turn; Node ${process.version}, ${os.cpus().length} cores`,
  );
  const service = await startService();
  try {
    if (only !== 'create') await listAll(service, rounds, walks);
    if (only !== 'list') await createThroughStores(service, rounds, creates);
  } finally {
    await service.stop();
  }
}

if (process.argv[2] === SERVE_FLAG) {
  await runService();
} else if (process.argv[2] === WALKER_FLAG) {
  // Ends with this bench's process (its IPC channel closes).
  const orphaned = () => process.exit(1);
  process.on('disconnect', orphaned);
  const [url = '', name = '', walks = '1'] = process.argv.slice(3);
  await runWalker(url, name as ListVariant, Number(walks));
  process.off('disconnect', orphaned);
  process.disconnect();
} else {
  await main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
