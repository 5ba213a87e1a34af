/**
 * How long after its deadline each kind of call ends, per path that can wait (README "Retries and
 * timeouts"): `tasks.create` with `totalTimeout` against POSTs never answered, answered late, dribbled,
 * a 429 with a Retry-After of 60 s, backoffs, a store that never answers, a lease held elsewhere, an
 * earlier POST in flight; reads, a list walk and `waitForStatus` against the same. The service is a
 * node:http server on 127.0.0.1 (test/support/hostile-server.ts). Prints, per path, the deadline and
 * the end (median, min–max of the rounds) with the error class. The assertions live in
 * test/reliability/deadlines.test.ts.
 *
 * Usage: npx tsx bench/deadlines.ts [--rounds N] [--deadline MS] [--cap MS]
 * (`--cap`: stop waiting for a call after that long and print it as `≥ cap`, for runs against versions
 * whose calls outlive their deadline by minutes.)
 */
import type { ServerResponse } from 'node:http';
import { storeKey } from '../src/core/store.js';
import { type ClientOptions, type DeliveryStore, memoryStore } from '../src/index.js';
import { type HostileHandler, hostileClient, startHostileServer } from '../test/support/hostile-server.js';
import { orderParams } from '../test/support/order-params.js';

const argument = (name: string, fallback: number): number => {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? fallback : Number(process.argv[index + 1]);
};
const ROUNDS = argument('rounds', 3);
const DEADLINE = argument('deadline', 1500);
const CAP = argument('cap', 120_000);

const hostile = await startHostileServer();
const client = (overrides: ClientOptions = {}) => hostileClient(hostile, overrides);
const scope = { baseUrl: `${hostile.url}/`, sellerId: hostile.mock.sellerId };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const forwardAll: HostileHandler = async (_request, response, { forward }) => {
  const answer = await forward();
  response.writeHead(answer.status, Object.fromEntries(answer.headers)).end(answer.body);
};
const neverAnswer = (_response: ServerResponse) => {};
function dribble(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
  });
  let sent = 0;
  const timer = setInterval(() => {
    if (sent >= body.length || response.destroyed) {
      clearInterval(timer);
      if (!response.destroyed) response.end();
      return;
    }
    response.write(body[sent++]);
  }, 1000);
  response.once('close', () => clearInterval(timer));
}
const postsOnly =
  (onPost: HostileHandler): HostileHandler =>
  (request, response, context) =>
    request.method === 'POST' ? onPost(request, response, context) : forwardAll(request, response, context);
const never = new Promise<never>(() => {});
const stalledStore = (backing: DeliveryStore, calls: ReadonlySet<keyof DeliveryStore>): DeliveryStore => ({
  setIfAbsent: (key, value, ttlMs) =>
    calls.has('setIfAbsent') ? never : backing.setIfAbsent(key, value, ttlMs),
  get: (key) => (calls.has('get') ? never : backing.get(key)),
  compareAndSet: (key, expected, value, ttlMs) =>
    calls.has('compareAndSet') ? never : backing.compareAndSet(key, expected, value, ttlMs),
  delete: (key, expected) => (calls.has('delete') ? never : backing.delete(key, expected)),
});
async function agedStore(): Promise<DeliveryStore> {
  const store = memoryStore();
  await store.setIfAbsent(storeKey(scope, 'epoch'), String(Date.now() - 600_000), 86_400_000);
  return store;
}

interface Path {
  name: string;
  handler: HostileHandler;
  /** Starts the call (`order`: an order number of its own). */
  run(order: string): Promise<unknown>;
}

let orders = 0;
const paths: Path[] = [
  {
    name: 'create: POSTs never answered (timeout 1 s)',
    handler: postsOnly(async (_request, response) => neverAnswer(response)),
    run: (order) => client({ timeout: 1000 }).tasks.create(orderParams(order), { totalTimeout: DEADLINE }),
  },
  {
    name: 'create: POST committed 1.2 s late (timeout 1 s)',
    handler: postsOnly(async (_request, response, { forward }) => {
      await sleep(1200);
      const answer = await forward();
      if (!response.destroyed) response.writeHead(answer.status).end(answer.body);
    }),
    run: (order) => client({ timeout: 1000 }).tasks.create(orderParams(order), { totalTimeout: DEADLINE }),
  },
  {
    name: 'create: every answer dribbled 1 byte/s',
    handler: async (_request, response, { forward }) => {
      const answer = await forward();
      dribble(response, answer.status, answer.body);
    },
    run: (order) => client().tasks.create(orderParams(order), { totalTimeout: DEADLINE }),
  },
  {
    name: 'create: 429 with Retry-After 60 s',
    handler: postsOnly(async (_request, response) => {
      response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '60' }).end('{}');
    }),
    run: (order) => client().tasks.create(orderParams(order), { totalTimeout: DEADLINE }),
  },
  {
    name: 'create: 429s and backoffs (maxRetries 10)',
    handler: postsOnly(async (_request, response) => {
      response.writeHead(429, { 'content-type': 'application/json' }).end('{}');
    }),
    run: (order) => client({ maxRetries: 10 }).tasks.create(orderParams(order), { totalTimeout: DEADLINE }),
  },
  {
    name: 'create: dropped after commit, lookups never answered',
    handler: async (request, response, { forward }) => {
      if (request.method !== 'POST') return neverAnswer(response);
      await forward();
      response.destroy();
    },
    run: (order) => client().tasks.create(orderParams(order), { totalTimeout: DEADLINE }),
  },
  {
    name: 'create: store never answers (storeTimeoutMs 60 s)',
    handler: forwardAll,
    run: async (order) =>
      client({
        store: stalledStore(memoryStore(), new Set(['get', 'setIfAbsent', 'compareAndSet'])),
        storeTimeoutMs: 60_000,
      }).tasks.create(orderParams(order), { totalTimeout: DEADLINE }),
  },
  {
    name: 'create: lease held by another process',
    handler: forwardAll,
    run: async (order) => {
      const store = await agedStore();
      const now = Date.now();
      const record = {
        state: 'sending',
        since: now,
        fence: 1,
        holder: 'another-process',
        leaseUntil: now + 60_000,
      };
      await store.setIfAbsent(storeKey(scope, 'order', order), JSON.stringify(record), 60_000);
      return client({ store }).tasks.create(orderParams(order), { totalTimeout: DEADLINE });
    },
  },
  {
    name: 'create: earlier POST in flight 1.3 s, lookups never answered',
    handler: async (_request, response) => neverAnswer(response),
    run: async (order) => {
      const store = await agedStore();
      const record = { state: 'sending', since: Date.now() - 100, fence: 1, until: Date.now() + 1300 };
      await store.setIfAbsent(storeKey(scope, 'order', order), JSON.stringify(record), 60_000);
      return client({ store }).tasks.create(orderParams(order), { totalTimeout: DEADLINE });
    },
  },
  {
    name: 'read: never answered (timeout 1 s, maxRetries 5)',
    handler: async (_request, response) => neverAnswer(response),
    run: () => client({ timeout: 1000, maxRetries: 5 }).wallet.retrieveBalance({ totalTimeout: DEADLINE }),
  },
  {
    name: 'read: body dribbled 1 byte/s',
    handler: async (_request, response, { forward }) => {
      const answer = await forward();
      dribble(response, answer.status, answer.body);
    },
    run: () => client().branches.list({ totalTimeout: DEADLINE }),
  },
  {
    name: 'read: 503 with Retry-After 60 s',
    handler: async (_request, response) => {
      response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '60' }).end('{}');
    },
    run: () => client().tasks.retrieve('task-1', { totalTimeout: DEADLINE }),
  },
  {
    name: 'list walk: 6 pages of 0.4 s, concurrency 1',
    handler: async (request, response, context) => {
      await sleep(400);
      return forwardAll(request, response, context);
    },
    run: () => client().tasks.list({}, { totalTimeout: DEADLINE, concurrency: 1 }).toArray(),
  },
  {
    name: 'waitForStatus: reads never answered',
    handler: async (_request, response) => neverAnswer(response),
    run: () => client().tasks.waitForStatus('task-1', 'delivered', { timeout: DEADLINE, intervalMs: 100 }),
  },
];

// Six pages of tasks for the list walk.
for (let index = 0; index < 60; index++) await client().tasks.create(orderParams(`BENCH-WALK-${index}`));

const figure = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  return `${Math.round(median)} (${Math.round(sorted[0] ?? 0)}–${Math.round(sorted.at(-1) ?? 0)})`;
};

console.log(
  `Deadline ${DEADLINE} ms; end of the call in ms, median (min–max) of ${ROUNDS} rounds; Node ${process.version}`,
);
console.log('| path | ends at, ms | over the deadline, ms | error |');
console.log('| --- | --- | --- | --- |');
for (const path of paths) {
  hostile.use(path.handler);
  const ends: number[] = [];
  const errors = new Set<string>();
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const capped = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`still running at ${CAP} ms`), CAP);
    });
    const outcome = path.run(`BENCH-DL-${++orders}`).then(
      () => '(resolved)',
      (error: unknown) => (error instanceof Error ? error.name : String(error)),
    );
    errors.add(await Promise.race([outcome, capped]));
    clearTimeout(timer);
    ends.push(performance.now() - started);
    await sleep(50);
  }
  console.log(
    `| ${path.name} | ${figure(ends)} | ${figure(ends.map((end) => end - DEADLINE))} | ${[...errors].join(', ')} |`,
  );
}
await hostile.close();
