/**
 * The sandbox's stores under a flood (docs/sandbox.md, "Bounds"), measured in the sandbox's own process
 * (`sandbox-heap-child.ts`, `--expose-gc`: heap in use after two full collections, before and after each):
 *
 * 1. the request log, from another origin: 1,000 no-cors style POSTs (`text/plain`, `Origin` of another
 *    site, `Sec-Fetch-Site: cross-site`, no credentials) each with ~1,500 query parameters (12 KB of URL),
 *    20 more headers and a 64 KB body;
 * 2. the request log, authenticated: 1,000 POSTs of a 16 KB `[{},{},…]` body;
 * 3. the webhook delivery log: tasks whose every text field has the 1,000 characters a create allows, each
 *    moved to `delivered` (one webhook POST per change, to a receiver in this process), 1,000 deliveries.
 *
 * Each store's bound is 8 MiB held (the request log's, the webhook log's): `npm run bench:sandbox-memory`
 * prints heap before and after each flood beside it; `packages/tools/test/sandbox/memory.test.ts` runs the
 * same floods and fails when the heap grows past the bound.
 * @module
 */
import { type ChildProcess, fork } from 'node:child_process';
import { Agent, createServer, request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The bound of each store, MiB (the request log's and the webhook delivery log's default). */
export const STORE_BOUND_MIB = 8;

/** One flood: the heap in the sandbox's process before and after, MiB, and what was sent. */
export interface FloodFigure {
  readonly store: string;
  readonly requests: number;
  readonly beforeMiB: number;
  readonly afterMiB: number;
  readonly grownMiB: number;
  readonly seconds: number;
}

/** Options of {@link measureSandboxMemory}: how many of each (defaults as the module comment says). */
export interface MemoryBenchOptions {
  readonly unauthenticated?: number;
  readonly authenticated?: number;
  readonly deliveries?: number;
}

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));

interface Child {
  readonly process: ChildProcess;
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly sellerId: string;
  heapMiB(): Promise<number>;
  close(): Promise<void>;
}

/** Starts the sandbox process and waits for its addresses. */
async function startChild(webhookUrl: string): Promise<Child> {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const child = fork('bench/sandbox-heap-child.ts', [webhookUrl], {
    cwd: PACKAGE,
    execArgv: ['--expose-gc', '--import', tsx],
    env: { ...process.env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <T>(): Promise<T> =>
    new Promise((resolve, reject) => {
      const onExit = () => reject(new Error('the sandbox process exited'));
      child.once('exit', onExit);
      child.once('message', (message) => {
        child.off('exit', onExit);
        resolve(message as T);
      });
    });
  const started = await next<{ baseUrl: string; apiKey: string; sellerId: string }>();
  return {
    process: child,
    ...started,
    async heapMiB() {
      const answer = next<{ heapUsed: number }>();
      child.send('heap');
      return (await answer).heapUsed / 2 ** 20;
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send('close');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Sends `count` requests made by `make`, 8 at a time over kept-alive connections; resolves with their statuses. */
async function flood(
  baseUrl: string,
  count: number,
  make: (index: number) => { method: string; path: string; headers: Record<string, string>; body?: string },
): Promise<Map<number, number>> {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const statuses = new Map<number, number>();
  const { hostname, port } = new URL(baseUrl);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < count; index = next++) {
      const { method, path, headers, body } = make(index);
      const status = await new Promise<number>((resolve) => {
        const request = httpRequest({ host: hostname, port, method, path, headers, agent }, (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        });
        request.on('error', () => resolve(0));
        request.end(body);
      });
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  agent.destroy();
  return statuses;
}

/** Runs the three floods against one sandbox process; resolves with a figure per flood. */
export async function measureSandboxMemory(options: MemoryBenchOptions = {}): Promise<FloodFigure[]> {
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const child = await startChild(hook);
  const figures: FloodFigure[] = [];
  const measure = async (store: string, requests: number, run: () => Promise<void>) => {
    const beforeMiB = await child.heapMiB();
    const started = performance.now();
    await run();
    const afterMiB = await child.heapMiB();
    const seconds = (performance.now() - started) / 1000;
    figures.push({ store, requests, beforeMiB, afterMiB, grownMiB: afterMiB - beforeMiB, seconds });
  };
  const json = {
    authorization: `apikey ${child.apiKey}`,
    'x-seller-id': child.sellerId,
    'content-type': 'application/json',
  };
  try {
    // Warm up: the first requests compile code and fill caches that are no part of any store.
    await flood(child.baseUrl, 50, () => ({ method: 'GET', path: '/tasks/wallet-balance', headers: json }));
    const unauthenticated = options.unauthenticated ?? 1000;
    const query = Array.from({ length: 1500 }, (_, index) => `p${index}=${index % 10}`)
      .join('&')
      .slice(0, 12_000);
    const extra = Object.fromEntries(
      Array.from({ length: 20 }, (_, index) => [`x-extra-${index}`, 'v'.repeat(100)]),
    );
    const text = 'x'.repeat(64 * 1024);
    await measure('request log, no-cors POSTs from another origin', unauthenticated, async () => {
      await flood(child.baseUrl, unauthenticated, (index) => ({
        method: 'POST',
        path: `/tasks?n=${index}&${query}`,
        headers: {
          ...extra,
          'content-type': 'text/plain',
          origin: 'http://rebind.example',
          'sec-fetch-site': 'cross-site',
          'sec-fetch-mode': 'no-cors',
        },
        body: text,
      }));
    });
    const authenticated = options.authenticated ?? 1000;
    const brackets = `[${Array(5333).fill('{}').join(',')}]`.slice(0, 16_000 - 1);
    const body = `${brackets.slice(0, brackets.lastIndexOf(','))}]`;
    await measure('request log, authenticated 16 KB [{},{},…] bodies', authenticated, async () => {
      await flood(child.baseUrl, authenticated, () => ({
        method: 'POST',
        path: '/tasks/estimate',
        headers: json,
        body,
      }));
    });
    const deliveries = options.deliveries ?? 1000;
    // pending → requested → accepted → pickedup → enroute → delivered, plus the webhook-only events between.
    const tasks: string[] = [];
    const long = (letter: string) => letter.repeat(1000);
    const order = (index: number) =>
      JSON.stringify({
        orderNumber: `MEM-${index}`,
        customerName: long('n'),
        customerNumber: long('1'),
        additionalAddressDetail: long('d'),
        specialNotes: long('s'),
        deliveryZone: long('z'),
        deliveryLocation: { latitude: 29.3339, longitude: 48.0761, fullAddress: [long('a'), long('b')] },
      });
    let created = 0;
    const createSome = async (count: number) => {
      const first = created;
      created += count;
      await flood(child.baseUrl, count, (index) => ({
        method: 'POST',
        path: '/tasks',
        headers: json,
        body: order(first + index),
      }));
      const list = await fetch(`${child.baseUrl}/_sandbox/tasks?limit=${count}`);
      const { tasks: listed } = (await list.json()) as { tasks: Array<{ task: { id: string } }> };
      tasks.push(...listed.map(({ task }) => task.id));
    };
    await createSome(Math.ceil(deliveries / 5));
    await measure(
      'webhook delivery log, tasks with 1,000-character fields to delivered',
      deliveries,
      async () => {
        let sent = 0;
        for (const id of tasks) {
          if (sent >= deliveries) break;
          const response = await fetch(`${child.baseUrl}/_sandbox/tasks/${id}/advance`, {
            method: 'POST',
            body: '{"status":"delivered"}',
          });
          await response.arrayBuffer();
          sent = (await (await fetch(`${child.baseUrl}/_sandbox/webhooks?limit=1`)).json()).total as number;
        }
      },
    );
  } finally {
    await child.close();
    receiver.closeAllConnections();
    receiver.close();
  }
  return figures;
}

/** The figures as lines. */
export function formatFigures(figures: readonly FloodFigure[]): string[] {
  return figures.map(
    (figure) =>
      `${figure.store}: ${figure.requests} sent in ${figure.seconds.toFixed(1)} s; sandbox heap after GC ${figure.beforeMiB.toFixed(1)} → ${figure.afterMiB.toFixed(1)} MiB (${figure.grownMiB >= 0 ? '+' : ''}${figure.grownMiB.toFixed(1)} MiB; bound ${STORE_BOUND_MIB} MiB)`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const line of formatFigures(await measureSandboxMemory())) console.log(line);
}
