/**
 * Listing everything: `tasks.list().toArray()` at several concurrencies against a sequential loop of raw
 * `fetch` and the ideal (page 1, then every other page at once), on a loopback node:http server (real
 * sockets) serving 1,000 tasks in 100 pages with 20 ms latency per request; and the heap growth of
 * iterating 1,000,000 tasks (pages generated on the fly by a `fetch` stand-in, `maxPages: Infinity`); and a
 * walk of ~1,000 pages over a listing that grows while it is walked (requests per page, repeats, misses).
 *
 * Run alone with `npx tsx --expose-gc bench/list-all.ts` (without `--expose-gc` the heap figure is
 * skipped); `bench/index.ts` can call the exported functions.
 * @module
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeliveryClient } from '../src/index.node.js';
import { DEFAULT_LIST_CONCURRENCY } from '../src/resources/task-list/page.js';
import { sampleTask } from './support/sample-task.js';
import { interleave, median, spread } from './support/stats.js';

const API_KEY = 'bench-key';
const SELLER_ID = 'bench-seller';
const HEADERS = { authorization: `apikey ${API_KEY}`, 'x-seller-id': SELLER_ID, accept: 'application/json' };

/** What the list-all server serves. */
export interface ListAllSetup {
  /** Tasks in the listing. Default 1000. */
  tasks?: number;
  /** Tasks per page. Default 10 (the service's maximum). */
  pageSize?: number;
  /** Time before each answer, ms. Default 20. */
  latencyMs?: number;
  /** Interleaved rounds (each variant once per round). Default 5. */
  rounds?: number;
  /**
   * Runs per round of each fast variant (SDK default and `concurrency: 100`, the ideal): they take under
   * a quarter of a second, so more of them cost little and steady their medians. Default 8.
   */
  fastRuns?: number;
}

/** Wall time in ms of each variant, one value per round. */
export interface ListAllFigures {
  setup: Required<ListAllSetup>;
  times: {
    sequentialFetch: number[];
    sdkConcurrency1: number[];
    sdkDefault: number[];
    sdkConcurrency100: number[];
    idealFetch: number[];
  };
}

interface PageServer {
  readonly url: string;
  close(): Promise<void>;
}

/** A loopback server answering `GET /tasks?page=&limit=` from pre-built bodies after `latencyMs`. */
async function startPageServer(tasks: number, pageSize: number, latencyMs: number): Promise<PageServer> {
  const totalPages = Math.ceil(tasks / pageSize);
  const bodies: string[] = [];
  for (let page = 1; page <= totalPages; page++) {
    const pageTasks = [];
    for (let index = (page - 1) * pageSize; index < Math.min(tasks, page * pageSize); index++) {
      pageTasks.push(sampleTask(index));
    }
    bodies.push(JSON.stringify({ tasks: pageTasks, page, limit: pageSize, totalPages, total: tasks }));
  }
  const empty = (page: number) =>
    JSON.stringify({ tasks: [], page, limit: pageSize, totalPages, total: tasks });
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const page = Number(url.searchParams.get('page') ?? '1');
    const body = bodies[page - 1] ?? empty(page);
    setTimeout(() => {
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      });
      response.end(body);
    }, latencyMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

interface PageBody {
  tasks: unknown[];
  totalPages: number;
}

/** Measures every variant over `rounds` interleaved rounds. */
export async function measureListAll(setup: ListAllSetup = {}): Promise<ListAllFigures> {
  const full: Required<ListAllSetup> = {
    tasks: 1000,
    pageSize: 10,
    latencyMs: 20,
    rounds: 5,
    fastRuns: 8,
    ...setup,
  };
  const server = await startPageServer(full.tasks, full.pageSize, full.latencyMs);
  const client = new DeliveryClient({
    apiKey: API_KEY,
    sellerId: SELLER_ID,
    baseUrl: server.url,
    logLevel: 'off',
  });
  const pageUrl = (page: number) => `${server.url}tasks?limit=${full.pageSize}&page=${page}`;
  const getPage = async (page: number): Promise<PageBody> =>
    (await (await fetch(pageUrl(page), { headers: HEADERS })).json()) as PageBody;
  const checked = (count: number) => {
    if (count !== full.tasks) throw new Error(`listed ${count} tasks, expected ${full.tasks}`);
  };
  const time = async (list: () => Promise<number>): Promise<number> => {
    const started = performance.now();
    checked(await list());
    return performance.now() - started;
  };
  const sdk = (concurrency: number | undefined) => async () =>
    (await client.tasks.list({}, concurrency === undefined ? {} : { concurrency }).toArray()).length;
  const variants = {
    sequentialFetch: () =>
      time(async () => {
        let count = 0;
        for (let page = 1; ; page++) {
          const body = await getPage(page);
          count += body.tasks.length;
          if (body.tasks.length === 0 || page >= body.totalPages) return count;
        }
      }),
    sdkConcurrency1: () => time(sdk(1)),
    sdkDefault: () => time(sdk(undefined)),
    sdkConcurrency100: () => time(sdk(100)),
    idealFetch: () =>
      time(async () => {
        const first = await getPage(1);
        const rest = await Promise.all(
          Array.from({ length: Math.max(0, first.totalPages - 1) }, (_, index) => getPage(index + 2)),
        );
        return rest.reduce((count, body) => count + body.tasks.length, first.tasks.length);
      }),
  };
  try {
    for (const warm of Object.values(variants)) await warm();
    // The fast variants run `fastRuns` times in their turn; their values join the round's.
    const runs = (variant: () => Promise<number>) => async () => {
      const values: number[] = [];
      for (let run = 0; run < full.fastRuns; run++) values.push(await variant());
      return values;
    };
    const rounds = await interleave(full.rounds, {
      sequentialFetch: async () => [await variants.sequentialFetch()],
      sdkConcurrency1: async () => [await variants.sdkConcurrency1()],
      sdkDefault: runs(variants.sdkDefault),
      sdkConcurrency100: runs(variants.sdkConcurrency100),
      idealFetch: runs(variants.idealFetch),
    });
    const flat = (name: keyof typeof rounds) => rounds[name].flat();
    return {
      setup: full,
      times: {
        sequentialFetch: flat('sequentialFetch'),
        sdkConcurrency1: flat('sdkConcurrency1'),
        sdkDefault: flat('sdkDefault'),
        sdkConcurrency100: flat('sdkConcurrency100'),
        idealFetch: flat('idealFetch'),
      },
    };
  } finally {
    await server.close();
  }
}

/** Prints the figures with the ratios the issue sets goals for. */
export function printListAll(figures: ListAllFigures): void {
  const { setup, times } = figures;
  const pages = Math.ceil(setup.tasks / setup.pageSize);
  console.log(
    `List ${setup.tasks} tasks (${pages} pages) at ${setup.latencyMs} ms per request on loopback ` +
      `(ms, median (min–max) of ${setup.rounds} interleaved rounds; ${setup.fastRuns} runs a round of the fast ones):`,
  );
  console.log(`  sequential loop of raw fetch      ${spread(times.sequentialFetch)}`);
  console.log(`  SDK, concurrency 1                ${spread(times.sdkConcurrency1)}`);
  console.log(
    `  SDK, default (${DEFAULT_LIST_CONCURRENCY})${' '.repeat(19 - String(DEFAULT_LIST_CONCURRENCY).length)}${spread(times.sdkDefault)}`,
  );
  console.log(`  SDK, concurrency 100              ${spread(times.sdkConcurrency100)}`);
  console.log(`  ideal (page 1, then all at once)  ${spread(times.idealFetch)}`);
  const sequential = median(times.sequentialFetch);
  const c100 = median(times.sdkConcurrency100) / median(times.idealFetch);
  console.log(
    `  list-all at concurrency 100: ${c100.toFixed(2)}× ideal (goal ≤ 1.25×); ` +
      `SDK default: ${(sequential / median(times.sdkDefault)).toFixed(1)}× faster than the sequential loop (goal ≥ 8×); ` +
      `SDK concurrency 1: ${(median(times.sdkConcurrency1) / sequential).toFixed(2)}× the loop`,
  );
}

/** What the growing-listing walk measures. */
export interface GrowingWalkSetup {
  /** Tasks in the listing when the walk starts. Default 9,000 (1,000 pages once it has grown). */
  tasks?: number;
  /** Tasks created at the front (newest first) just before each answer is built. Default 1. */
  growthPerRequest?: number;
  /** Time before each answer, ms, on average. Default 20. */
  latencyMs?: number;
  /**
   * Each answer comes up to this much earlier or later, ms (uniform, seeded), so pages requested together
   * are served in any order. Default 10.
   */
  jitterMs?: number;
  /** Walks of each variant (growing, still), interleaved. Default 3. */
  rounds?: number;
}

/** One walk of the growing-listing bench. */
export interface GrowingWalk {
  /** Requests the server received. */
  requests: number;
  /** Distinct page numbers requested. */
  pages: number;
  /** Tasks yielded by `for await`. */
  tasks: number;
  /** Tasks yielded more than once by `for await` (goal 0). */
  repeats: number;
  /** Tasks present at the start that were not yielded (pushed across a page boundary between serves). */
  missed: number;
  /** Wall time, ms. */
  ms: number;
}

/** Figures of {@link measureGrowingWalk}: each round's walk of the growing and of the still listing. */
export interface GrowingWalkFigures {
  setup: Required<GrowingWalkSetup>;
  growing: GrowingWalk[];
  still: GrowingWalk[];
}

/**
 * Walks (`for await`, default concurrency) a listing of ~1,000 pages on a loopback server that creates
 * `growthPerRequest` tasks at the front before building each answer (totals grow while it is walked, and
 * pages served out of order see different totals), beside the same listing held still.
 */
export async function measureGrowingWalk(setup: GrowingWalkSetup = {}): Promise<GrowingWalkFigures> {
  const full: Required<GrowingWalkSetup> = {
    tasks: 9000,
    growthPerRequest: 1,
    latencyMs: 20,
    jitterMs: 10,
    rounds: 3,
    ...setup,
  };
  // A small seeded generator (mulberry32): every walk sees the same serve delays.
  let seed = 0x5eed;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let mixed = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
  const idOf = (index: number) => sampleTask(index).id as string;
  const taskText = new Map<number, string>();
  const textOf = (index: number) => {
    let text = taskText.get(index);
    if (text === undefined) {
      text = JSON.stringify(sampleTask(index));
      taskText.set(index, text);
    }
    return text;
  };
  let total = full.tasks;
  let growth = 0;
  let requests = 0;
  const asked = new Set<number>();
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const page = Number(url.searchParams.get('page') ?? '1');
    const limit = Number(url.searchParams.get('limit') ?? '10');
    requests++;
    asked.add(page);
    setTimeout(
      () => {
        total += growth;
        // Newest first: position 0 is the task created last (index total - 1).
        const parts: string[] = [];
        for (let position = (page - 1) * limit; position < Math.min(total, page * limit); position++) {
          parts.push(textOf(total - 1 - position));
        }
        const body = `{"tasks":[${parts.join(',')}],"page":${page},"limit":${limit},"totalPages":${Math.ceil(total / limit)},"total":${total}}`;
        response.writeHead(200, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        });
        response.end(body);
      },
      full.latencyMs + (random() * 2 - 1) * full.jitterMs,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const client = new DeliveryClient({ apiKey: API_KEY, sellerId: SELLER_ID, baseUrl, logLevel: 'off' });
  const walk = (growthPerRequest: number) => async (): Promise<GrowingWalk> => {
    total = full.tasks;
    growth = growthPerRequest;
    requests = 0;
    seed = 0x5eed;
    asked.clear();
    const seen = new Set<string | undefined>();
    let yielded = 0;
    const started = performance.now();
    for await (const task of client.tasks.list({}, { maxPages: Number.POSITIVE_INFINITY })) {
      yielded++;
      seen.add(task.id);
    }
    const ms = performance.now() - started;
    let missed = 0;
    for (let index = 0; index < full.tasks; index++) if (!seen.has(idOf(index))) missed++;
    return { requests, pages: asked.size, tasks: yielded, repeats: yielded - seen.size, missed, ms };
  };
  try {
    await walk(0)();
    const rounds = await interleave(full.rounds, { growing: walk(full.growthPerRequest), still: walk(0) });
    return { setup: full, growing: rounds.growing, still: rounds.still };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** Prints the growing-listing walk beside its goals: requests = pages, no id twice, time as a still listing. */
export function printGrowingWalk(figures: GrowingWalkFigures): void {
  const { setup, growing, still } = figures;
  const last = growing[growing.length - 1] as GrowingWalk;
  const en = (value: number) => value.toLocaleString('en');
  console.log(
    `Walk a listing of ${en(setup.tasks)} tasks that grows by ${setup.growthPerRequest} at the front per request ` +
      `(newest first, ${setup.latencyMs} ± ${setup.jitterMs} ms per request, default concurrency ${DEFAULT_LIST_CONCURRENCY}; ` +
      `${setup.rounds} interleaved rounds):`,
  );
  console.log(
    `  requests ${growing.map((walk) => en(walk.requests)).join(', ')} for ${growing.map((walk) => en(walk.pages)).join(', ')} pages ` +
      `(goal = pages); tasks yielded ${en(last.tasks)}, of them twice ${last.repeats} (goal 0); ` +
      `present at the start and not yielded ${growing.map((walk) => en(walk.missed)).join(', ')}`,
  );
  console.log(
    `  time ms ${spread(growing.map((walk) => walk.ms))} growing, ${spread(still.map((walk) => walk.ms))} still ` +
      `(${en(still[0]?.requests ?? 0)} requests) (goal: growing ≈ still)`,
  );
}

/** Heap growth while iterating a large listing, in bytes over the heap used before the walk. */
export interface IterationHeapFigures {
  tasks: number;
  /** Heap used before the walk (after a full gc), bytes. */
  baselineBytes: number;
  /**
   * Largest growth sampled every `sampleEvery` tasks during the walk: twice gc and a 10 ms wait (so
   * FinalizationRegistry callbacks run: fetch's `Request` registers one per request), gc, then read.
   */
  peakGrowthBytes: number;
  /** The same samples read right after a gc, before finalization callbacks had a turn. */
  peakGrowthBeforeFinalizersBytes: number;
  /** Growth once the walk ended, measured like {@link peakGrowthBytes}. */
  finalGrowthBytes: number;
  /** Wall time of the walk, ms. */
  elapsedMs: number;
}

/** A small task, as far as the listing is concerned (id, order number, status, creation time). */
function smallTask(index: number): string {
  const id = `6b023c326d6f636b${index.toString(16).padStart(8, '0')}`;
  return `{"id":"${id}","orderNumber":"ORD-${index}","status":"pending","createdAt":"2026-11-21T09:00:00.000Z"}`;
}

/**
 * Iterates `tasks` tasks with `for await` (`maxPages: Infinity`, default concurrency) through the whole
 * SDK path, pages generated on the fly by the client's `fetch`. Needs `--expose-gc`.
 */
export async function measureIterationHeap(
  tasks = 1_000_000,
  sampleEvery = 50_000,
): Promise<IterationHeapFigures> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('Run with --expose-gc (npx tsx --expose-gc bench/list-all.ts)');
  const pageSize = 10;
  const totalPages = Math.ceil(tasks / pageSize);
  const fakeFetch: typeof globalThis.fetch = async (input) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const page = Number(url.searchParams.get('page'));
    const parts: string[] = [];
    for (let index = (page - 1) * pageSize; index < Math.min(tasks, page * pageSize); index++) {
      parts.push(smallTask(index));
    }
    const body = `{"tasks":[${parts.join(',')}],"page":${page},"limit":${pageSize},"totalPages":${totalPages},"total":${tasks}}`;
    return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
  };
  const client = new DeliveryClient({
    apiKey: API_KEY,
    sellerId: SELLER_ID,
    baseUrl: 'https://delivery.bench/rest/',
    fetch: fakeFetch,
    logLevel: 'off',
  });
  // FinalizationRegistry callbacks run in a task of their own after the gc that found their targets dead.
  const turn = () => new Promise<void>((resolve) => setTimeout(resolve, 10));
  const heapRightAfterGc = () => {
    gc();
    return process.memoryUsage().heapUsed;
  };
  const heap = async () => {
    for (let round = 0; round < 2; round++) {
      gc();
      await turn();
    }
    gc();
    return process.memoryUsage().heapUsed;
  };
  // Warm the path (compiled schemas, ky) so the baseline holds what any call needs.
  await client.tasks.list({}, { maxPages: 3 }).toArray({ max: 25 });
  const baselineBytes = await heap();
  let peak = 0;
  let peakBeforeFinalizers = 0;
  let count = 0;
  const started = performance.now();
  for await (const _task of client.tasks.list({}, { maxPages: Number.POSITIVE_INFINITY })) {
    count++;
    if (count % sampleEvery === 0) {
      peakBeforeFinalizers = Math.max(peakBeforeFinalizers, heapRightAfterGc() - baselineBytes);
      peak = Math.max(peak, (await heap()) - baselineBytes);
    }
  }
  const elapsedMs = performance.now() - started;
  if (count !== tasks) throw new Error(`iterated ${count} tasks, expected ${tasks}`);
  const finalGrowthBytes = (await heap()) - baselineBytes;
  return {
    tasks,
    baselineBytes,
    peakGrowthBytes: peak,
    peakGrowthBeforeFinalizersBytes: peakBeforeFinalizers,
    finalGrowthBytes,
    elapsedMs,
  };
}

/** Prints the heap figures against the goal (≤ 10 MB growth for 1 M tasks). */
export function printIterationHeap(figures: IterationHeapFigures): void {
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  console.log(
    `Iterate ${figures.tasks.toLocaleString('en')} tasks with for await (maxPages: Infinity, default concurrency, ` +
      `the whole client path with a fetch that answers without I/O) in ${(figures.elapsedMs / 1000).toFixed(1)} s; ` +
      `heap before: ${mb(figures.baselineBytes)} MB`,
  );
  console.log(
    `  growth, gc + finalizers' turn: at peak ${mb(figures.peakGrowthBytes)} MB (goal ≤ 10 MB), ` +
      `at the end ${mb(figures.finalGrowthBytes)} MB`,
  );
  console.log(
    `  growth read right after gc (objects awaiting FinalizationRegistry callbacks included): at peak ${mb(figures.peakGrowthBeforeFinalizersBytes)} MB`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printListAll(await measureListAll());
  printGrowingWalk(await measureGrowingWalk());
  if ((globalThis as { gc?: unknown }).gc === undefined) {
    console.log('Iteration heap: skipped (run with --expose-gc)');
  } else {
    printIterationHeap(await measureIterationHeap());
  }
}
