/**
 * What checking the order a walk relies on costs (docs/pagination.md "By creation time", docs/webhooks.md
 * "Catching lost events"), against the in-process mock with `LATENCY_MS` added to every `GET tasks`:
 *
 * 1. a creation window (1 000 tasks, the newest 200 in the window): requests and ms against an honest
 *    service, and against one answering oldest first (the mock's `sort` fault), which the walk reads to the end;
 * 2. `sync()` over 500 tasks updated since the checkpoint (and 500 older): the walk one page after another
 *    against the former walk (16 pages at once, stopping at the first older task), and against a service
 *    answering oldest first;
 * 3. the CPU of the checks: reading a page's 10 times and following it, against `Date.parse` alone.
 *
 * Usage: npx tsx bench/walk-order.ts [--rounds N] [--latency MS]
 */
import { DeliveryClient } from '../src/index.js';
import { followPage, WalkTrail } from '../src/internal/walk-order.js';
import { readServiceTime } from '../src/schemas/service-time.js';
import { createMockDeliveryService } from '../src/testing.js';
import { createWebhookHandler } from '../src/webhooks/index.js';
import { orderParams } from '../test/support/order-params.js';

const argument = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : Number(process.argv[at + 1]);
};
const ROUNDS = argument('--rounds', 3);
const LATENCY_MS = argument('--latency', 20);
const HOUR = 3_600_000;
const T0 = Date.now() - 2000 * HOUR;

/** The mock's clock: `undefined` for the real time. */
let clock: number | undefined;
const mock = createMockDeliveryService({
  account: { type: 'invoice' },
  taskLimit: 5000,
  now: () => new Date(clock ?? Date.now()),
});
mock.listen();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let listRequests = 0;
const client = new DeliveryClient({
  apiKey: mock.apiKey,
  sellerId: mock.sellerId,
  baseUrl: mock.baseUrl,
  logLevel: 'off',
  fetch: async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.pathname.endsWith('/tasks') && (init?.method ?? 'GET') === 'GET') {
      listRequests++;
      await sleep(LATENCY_MS);
    }
    return fetch(input, init);
  },
});

/** `count` tasks, one hour apart from `from` (ms), else at the real time; their ids. */
async function seed(count: number, from?: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    clock = from === undefined ? undefined : from + index * HOUR;
    const response = await fetch(`${mock.baseUrl}/tasks`, {
      method: 'POST',
      headers: {
        authorization: `apikey ${mock.apiKey}`,
        'x-seller-id': mock.sellerId,
        'content-type': 'application/json',
      },
      body: JSON.stringify(orderParams(`B-${from ?? 'now'}-${index}`)),
    });
    ids.push(((await response.json()) as { data: { createTask: { id: string } } }).data.createTask.id);
  }
  clock = undefined;
  return ids;
}

/** Median of `ROUNDS` runs of `run`: ms and list requests. */
async function measure(name: string, run: () => Promise<number>): Promise<void> {
  const samples: { ms: number; requests: number; found: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    listRequests = 0;
    const started = performance.now();
    const found = await run();
    samples.push({ ms: performance.now() - started, requests: listRequests, found });
  }
  samples.sort((a, b) => a.ms - b.ms);
  const median = samples[Math.floor(samples.length / 2)] ?? { ms: 0, requests: 0, found: 0 };
  const range = `${Math.round(samples[0]?.ms ?? 0)}–${Math.round(samples.at(-1)?.ms ?? 0)}`;
  console.log(
    `${name.padEnd(64)} ${String(median.requests).padStart(4)} requests ${String(Math.round(median.ms)).padStart(6)} ms (${range}) found ${median.found}`,
  );
}

console.log(`Node ${process.version}, ${LATENCY_MS} ms per GET tasks, median of ${ROUNDS} rounds`);

// 1. A creation window: 1 000 tasks one hour apart, the newest 200 in the window.
await seed(1000, T0);
const createdAfter = new Date(T0 + 800 * HOUR).toISOString();
await measure(
  'window, honest service',
  async () => (await client.tasks.list({ createdAfter }).toArray()).length,
);
mock.inject({ kind: 'sort', operation: 'tasks.list', times: Number.POSITIVE_INFINITY });
await measure('window, service answering oldest first: read to the end', async () => {
  return (await client.tasks.list({ createdAfter }).toArray()).length;
});
await measure('window, the same, concurrency: 16', async () => {
  return (await client.tasks.list({ createdAfter }, { concurrency: 16 }).toArray()).length;
});
mock.clearFaults();

// 2. sync(): 500 tasks delivered now, no webhook URL (every delivery lost), after the 1 000 older ones.
const handlerOf = () => createWebhookHandler({ client, confirm: false, logLevel: 'off', onEvent: () => {} });
let handler = handlerOf();
const recent = await seed(500);
for (const id of recent) await mock.advance(id, 'delivered');
await measure('sync, honest service (one page after another)', async () => {
  handler = handlerOf();
  return (await handler.sync()).tasks;
});
await measure('former sync walk (16 pages at once, stop at first older task)', async () => {
  let found = 0;
  const from = Date.now() - 600_000;
  for await (const task of client.tasks.list({ sortBy: 'updatedAt', sortOrder: -1 })) {
    if (Date.parse(task.updatedAt ?? '') < from) break;
    found++;
  }
  return found;
});
mock.inject({ kind: 'sort', operation: 'tasks.list', times: Number.POSITIVE_INFINITY });
await measure('sync, service answering oldest first: read to the end', async () => {
  handler = handlerOf();
  return (await handler.sync()).tasks;
});
mock.clearFaults();
mock.close();

// 3. CPU of the checks per page of 10 (ids made beforehand: a walk has them already).
const texts = Array.from({ length: 10 }, (_, index) =>
  new Date(Date.UTC(2026, 10, 20, 12, 0, 59 - index)).toISOString(),
);
const PAGES = 100_000;
const pages = Array.from({ length: PAGES }, (_, round) =>
  texts.map((text, index) => ({ id: `${round}:${index}`, time: Date.parse(text) })),
);
const perPage = (run: () => void) => {
  const started = performance.now();
  run();
  return (((performance.now() - started) * 1000) / PAGES).toFixed(1);
};
const parsed = perPage(() => {
  for (let round = 0; round < PAGES; round++) for (const text of texts) Date.parse(text);
});
const read = perPage(() => {
  for (let round = 0; round < PAGES; round++) for (const text of texts) readServiceTime(text);
});
const trail = new WalkTrail();
const followed = perPage(() => {
  for (const page of pages) {
    trail.last = Number.NaN;
    followPage(trail, page, true);
  }
});
console.log(`CPU per page of 10, µs: Date.parse ${parsed}, readServiceTime ${read}, followPage ${followed}`);
