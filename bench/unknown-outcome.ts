/**
 * Figures for README "Exactly-once creation" (unknown outcomes): against a node:http server on
 * 127.0.0.1 in front of the mock (test/support/hostile-server.ts), with the client's default options:
 *
 * 1. the worst case of one create: every POST dropped before the service processes it, so each is
 *    looked up at once and again after `listingDelayMs` before the next (3 POSTs, then an error);
 * 2. a POST committed and dropped, its task listed 2 s late: one POST, the task returned;
 * 3. the least `totalTimeout` with which a later create decides an order left unknown (tried from 5 ms
 *    up, doubling), once `retryAfterMs` has passed;
 * 4. list requests per create against a service that pages forever and never lists the order.
 *
 * Usage: npx tsx bench/unknown-outcome.ts [--rounds N]
 */
import { type ClientOptions, type DeliveryClient, TaskCreationOutcomeUnknownError } from '../src/index.js';
import { type HostileHandler, hostileClient, startHostileServer } from '../test/support/hostile-server.js';
import { orderParams } from '../test/support/order-params.js';

const index = process.argv.indexOf('--rounds');
const ROUNDS = index < 0 ? 3 : Number(process.argv[index + 1]);
const hostile = await startHostileServer();
const client = (overrides: ClientOptions = {}) => hostileClient(hostile, overrides);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const forwardAll: HostileHandler = async (_request, response, { forward }) => {
  const answer = await forward();
  response.writeHead(answer.status, Object.fromEntries(answer.headers)).end(answer.body);
};
/** Answers list pages without the tasks created less than `lateMs` ago. */
const listingLate =
  (lateMs: number): HostileHandler =>
  async (_request, response, { forward }) => {
    const answer = await forward();
    let body = answer.body;
    try {
      const page = JSON.parse(answer.body) as { tasks?: { createdAt?: string }[] };
      if (Array.isArray(page.tasks)) {
        page.tasks = page.tasks.filter((task) => Date.now() - Date.parse(task.createdAt ?? '') >= lateMs);
        body = JSON.stringify(page);
      }
    } catch {
      // Not a page: as is.
    }
    response.writeHead(answer.status, { 'content-type': 'application/json' }).end(body);
  };
const timed = async (run: () => Promise<unknown>) => {
  const started = performance.now();
  const outcome = await run().then(
    () => 'resolved',
    (error: unknown) => (error instanceof Error ? error.name : String(error)),
  );
  return { ms: Math.round(performance.now() - started), outcome };
};
const listsOf = () => hostile.mock.requestsFor('tasks.list').length;
let orders = 0;

console.log(`Node ${process.version}; ${ROUNDS} rounds each; default client options unless said`);
console.log('| case | duration, ms (each round) | outcome | POSTs | list requests |');
console.log('| --- | --- | --- | --- | --- |');

/** Runs ROUNDS creates of fresh orders with default options and prints one row. */
async function row(name: string): Promise<void> {
  const rows: { ms: number; outcome: string; posts: number; lists: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const [posts, lists] = [postsSeen, listsOf()];
    const result = await timed(() => client().tasks.create(orderParams(`BENCH-UO-${++orders}`)));
    rows.push({ ...result, posts: postsSeen - posts, lists: listsOf() - lists });
  }
  const each = (key: 'ms' | 'posts' | 'lists') => rows.map((entry) => entry[key]).join(', ');
  console.log(`| ${name} | ${each('ms')} | ${rows[0]?.outcome} | ${each('posts')} | ${each('lists')} |`);
}
/** POSTs that reached the server in front of the mock (dropped or not). */
let postsSeen = 0;

// 1. Worst case: every POST dropped before the service processes it.
hostile.use(async (request, response, context) => {
  if (request.method === 'POST') {
    postsSeen++;
    request.socket.destroy();
    return;
  }
  return forwardAll(request, response, context);
});
await row('every POST dropped before the service processes it');

// 2. Committed, dropped, listed 2 s late.
hostile.use(async (request, response, context) => {
  if (request.method === 'POST') {
    postsSeen++;
    await context.forward();
    request.socket.destroy();
    return;
  }
  return listingLate(2000)(request, response, context);
});
await row('POST committed then dropped, task listed 2 s late');

// 3. Least totalTimeout of a later create that decides (the first create left the order unknown).
{
  const least: number[] = [];
  const took: number[] = [];
  /** Creates `order` so that its outcome is unknown (committed, dropped, lookups refused), then waits `retryAfterMs`. */
  const leaveUnknown = async (sdk: DeliveryClient, order: string) => {
    hostile.use(async (request, response, context) => {
      if (request.method === 'POST') {
        await context.forward();
        request.socket.destroy();
        return;
      }
      response.writeHead(503).end();
    });
    const error = await sdk.tasks.create(orderParams(order)).catch((caught: unknown) => caught);
    if (!(error instanceof TaskCreationOutcomeUnknownError)) throw new Error('expected an unknown outcome');
    await sleep(error.retryAfterMs ?? 0);
    hostile.use(forwardAll);
  };
  for (let round = 0; round < ROUNDS; round++) {
    const order = `BENCH-UO-${++orders}`;
    const sdk = client({ listingDelayMs: 500 });
    await leaveUnknown(sdk, order);
    const decided = await timed(() => sdk.tasks.create(orderParams(order)));
    took.push(decided.ms);
    const next = `BENCH-UO-${++orders}`;
    await leaveUnknown(sdk, next);
    for (let totalTimeout = 5; ; totalTimeout *= 2) {
      const outcome = await sdk.tasks.create(orderParams(next), { totalTimeout }).then(
        () => 'resolved',
        () => 'failed',
      );
      if (outcome === 'resolved') {
        least.push(totalTimeout);
        break;
      }
    }
  }
  console.log(
    `| later create of an order left unknown, after retryAfterMs, no totalTimeout: its duration | ${took.join(', ')} | resolved | 0 | 1 |`,
  );
  console.log(
    `| the same: least totalTimeout that decides (5 ms, doubling) | ${least.join(', ')} | resolved | 0 | 1 per try |`,
  );
}

// 4. A service that pages forever and never lists the order; POSTs answered 502.
hostile.use(async (request, response) => {
  if (request.method === 'POST') {
    response.writeHead(502, { 'content-type': 'application/json' }).end('{"message":"upstream"}');
    return;
  }
  const page = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('page') ?? 1);
  const tasks = Array.from({ length: 10 }, (_, i) => ({
    _id: `t${page}-${i}`,
    orderNumber: `OTHER-${page}-${i}`,
    createdAt: new Date().toISOString(),
  }));
  response
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ tasks, page, limit: 10, totalPages: 1000, total: 10_000 }));
});
{
  let lists = 0;
  const counting = client({
    listingDelayMs: 0,
    fetch: (input, init) => {
      if ((init?.method ?? (input instanceof Request ? input.method : 'GET')) === 'GET') lists++;
      return fetch(input, init);
    },
  });
  const result = await timed(() => counting.tasks.create(orderParams(`BENCH-UO-${++orders}`)));
  console.log(
    `| service paging forever, POSTs 502 (listingDelayMs 0) | ${result.ms} | ${result.outcome} | 1 | ${lists} |`,
  );
}
await hostile.close();
