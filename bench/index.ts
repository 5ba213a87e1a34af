/**
 * Benchmarks of the SDK's hot paths (`npm run bench`; the webhook burst is `npm run bench:webhooks`).
 *
 * First the figures of the performance issue, each beside its anchor (`bench/call-path.ts`,
 * `bench/list-all.ts`, `bench/parse.ts`, `bench/bundle.ts`; each also runs alone), then:
 * Prints figures; asserts nothing about speed (machines differ). What it measures:
 * - response validation of one task and of a full page, through the SDK's compiled schemas and through
 *   a plain `schema.parse`, to show what `z.compile` buys;
 * - KWD arithmetic on text amounts;
 * - a full `tasks.retrieve` and a 3-page `for await` walk against the in-process mock;
 * - time per call and heap growth over 20 000 retrieves of the SDK alone, answered from memory (a leak
 *   shows as growth that does not level off).
 */
import os from 'node:os';
import { Bench } from 'tinybench';
import * as z from 'zod';
import { DeliveryClient, kwd } from '../src/index.js';
import { Redactor } from '../src/internal/redact.js';
import { parseResponse } from '../src/internal/validate.js';
import { Task, TaskListResponse } from '../src/schemas.js';
import { createMockDeliveryService } from '../src/testing.js';
import { printBundleSizes, printColdImport, printMainEntryModules } from './bundle.js';
import { measureCallPath, printCallPath } from './call-path.js';
import {
  measureGrowingWalk,
  measureIterationHeap,
  measureListAll,
  printGrowingWalk,
  printIterationHeap,
  printListAll,
} from './list-all.js';
import { measureParse, printParse } from './parse.js';
import { sampleTask } from './support/sample-task.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** The figures of the performance issue, in the order of its table. */
async function performanceFigures(): Promise<void> {
  console.log(
    `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}\n`,
  );
  printListAll(await measureListAll());
  console.log();
  printGrowingWalk(await measureGrowingWalk());
  console.log();
  printCallPath(await measureCallPath());
  console.log();
  printParse(measureParse());
  console.log();
  await printBundleSizes();
  console.log();
  await printMainEntryModules();
  console.log();
  printColdImport();
  console.log();
  if ((globalThis as { gc?: unknown }).gc === undefined)
    console.log('Iteration heap: skipped (run with --expose-gc)');
  else printIterationHeap(await measureIterationHeap());
  console.log();
}

async function main(): Promise<void> {
  await performanceFigures();
  const task = sampleTask(1);
  const page = {
    tasks: Array.from({ length: 10 }, (_, index) => sampleTask(index)),
    page: 1,
    limit: 10,
    totalPages: 3,
    total: 25,
  };
  const redactor = new Redactor([]);
  const context = {
    method: 'GET',
    url: 'https://bench.test/tasks',
    status: 200,
    mode: 'strict' as const,
    operation: 'tasks.list',
    report: () => {},
    redactor,
  };
  const amounts = ['1.250', '0.750', '12.5', '3', '0.005', '99.999', '7.1', '0.1', '0.2', '5.000'];

  const mock = createMockDeliveryService({ account: { type: 'invoice' } });
  mock.listen({ onUnhandledFrame: 'error' });
  const client = new DeliveryClient({
    apiKey: mock.apiKey,
    sellerId: mock.sellerId,
    baseUrl: mock.baseUrl,
    logger: silent,
  });
  for (let index = 0; index < 25; index++) {
    await client.tasks.create({
      orderNumber: `B-${index}`,
      deliveryLocation: { latitude: 29.3339, longitude: 48.0761 },
    });
  }
  const [first] = mock.tasks;
  const firstId = first?.id ?? '';

  const bench = new Bench({ name: 'delivery-task-sdk hot paths', time: 500 });
  bench
    .add('validate 1 task (compiled)', () => {
      parseResponse(Task, task, context);
    })
    .add('validate 1 task (plain zod parse)', () => {
      Task.parse(task);
    })
    .add('validate a page of 10 tasks (compiled)', () => {
      parseResponse(TaskListResponse, page, context);
    })
    .add('validate a page of 10 tasks (plain zod parse)', () => {
      z.parse(TaskListResponse, page);
    })
    .add('kwd.add of 10 text amounts', () => {
      kwd.add(...amounts);
    })
    .add('tasks.retrieve against the in-process mock', async () => {
      await client.tasks.retrieve(firstId);
    })
    .add('for await over 25 tasks (3 pages) against the mock', async () => {
      for await (const listed of client.tasks.list()) void listed;
    });
  await bench.run();
  console.log(bench.name);
  console.table(bench.table());

  // Heap growth over repeated calls of the SDK alone: a transport that answers from memory, so msw's
  // interception and the mock's request log do not blur the figure.
  const body = JSON.stringify(task);
  const direct = new DeliveryClient({
    apiKey: 'bench-key',
    sellerId: 'bench-seller',
    baseUrl: 'https://bench.test',
    logger: silent,
    fetch: async () => new Response(body, { headers: { 'content-type': 'application/json' } }),
  });
  const gc = (globalThis as { gc?: () => void }).gc;
  // Several collections with a macrotask between them, so FinalizationRegistry cleanups (undici's
  // Request/AbortSignal bookkeeping) run before reading the heap.
  const heap = async () => {
    for (let pass = 0; pass < 3; pass++) {
      gc?.();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return process.memoryUsage().heapUsed / 1024 / 1024;
  };
  const before = await heap();
  const rounds = 4;
  const perRound = 5000;
  for (let round = 1; round <= rounds; round++) {
    const started = performance.now();
    for (let index = 0; index < perRound; index++) await direct.tasks.retrieve('6b023c326d6f636b00000001');
    const perCall = ((performance.now() - started) * 1000) / perRound;
    console.log(
      `SDK alone: ${round * perRound} retrieves, ${perCall.toFixed(1)} µs per call, heap ${(await heap()).toFixed(1)} MiB ` +
        `(start ${before.toFixed(1)} MiB${gc ? '' : '; run with --expose-gc for figures without garbage'})`,
    );
  }
  mock.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
