/**
 * The sandbox under hostile requests (docs/sandbox.md, "Bounds"), against `delivery-task sandbox` as a
 * separate process on loopback (`node --import tsx src/cli.ts sandbox`, one process):
 *
 * 1. a fuzz of 5,000 random requests (methods, raw request targets, query strings with regex searches,
 *    headers, bodies large, deep or malformed; fixed seed, 8 at a time) with a health probe
 *    (`GET /tasks/wallet-balance`, one at a time) beside it: crashes (the process ended and was
 *    restarted), answers of 500, other failures, the longest answer, probe p50/p99/max;
 * 2. a regex search `((a?){100}){9}q` over 200 tasks whose `customerName` is 1,000 × `a`: answer, time;
 * 3. the request log, in this process: 300 unauthenticated 1 MB POSTs, then 1,000 authenticated 100 KB
 *    ones: heap growth after garbage collection (run with `--expose-gc`), `GET /_sandbox/requests` (one
 *    page) time and size, and after one body nested 100,000 deep its status;
 * 4. a webhook receiver answering 200 with 100 MiB: RSS growth over 5 deliveries.
 *
 * Run with `npx tsx --expose-gc bench/sandbox-fuzz.ts` (Linux: RSS from /proc; `BENCH_PARTS=fuzz,regex,log,webhook`
 * picks parts). Prints figures, asserts nothing,
 * and leaves no process behind (the sandbox leads its own process group, killed at the end).
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startSandbox as startSandboxInProcess } from 'delivery-task-tools/sandbox';
import fc from 'fast-check';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FUZZ_REQUESTS = 5000;
const CONCURRENCY = 8;
const PROBE_PATH = '/tasks/wallet-balance';

interface Running {
  readonly child: ChildProcess;
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly sellerId: string;
}

let current: Running | undefined;

/** Starts the sandbox (own process group) and resolves with its JSON line. */
async function startSandbox(args: readonly string[] = []): Promise<Running> {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const child = spawn(
    process.execPath,
    ['--import', tsx, 'src/cli.ts', 'sandbox', '--port', '0', '--json', ...args],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: true,
      env: { ...process.env, NODE_OPTIONS: '' },
    },
  );
  const line = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      text += chunk;
      if (text.includes('\n')) resolve(text.slice(0, text.indexOf('\n')));
    });
    child.once('exit', () => reject(new Error('the sandbox exited before printing its line')));
  });
  const started = JSON.parse(line) as { baseUrl: string; apiKey: string; sellerId: string };
  current = { child, ...started };
  return current;
}

function stop(running: Running | undefined): void {
  if (running?.child.pid === undefined) return;
  try {
    process.kill(-running.child.pid, 'SIGKILL');
  } catch {
    // Ended.
  }
}

const rssMiB = (pid: number | undefined): number => {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? Number.NaN) / 1024;
};

interface Answer {
  /** The HTTP status, or the error code of a failed exchange (`ECONNRESET`, …). */
  readonly status: number | string;
  readonly ms: number;
  readonly bytes: number;
}

/** One raw HTTP request (any method, any target); never throws. */
function send(
  running: Running,
  method: string,
  target: string,
  headers: Record<string, string>,
  body?: string,
  timeoutMs = 15_000,
): Promise<Answer> {
  const { hostname, port } = new URL(running.baseUrl);
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const finish = (status: number | string, bytes = 0) => {
      if (settled) return;
      settled = true;
      resolve({ status, ms: performance.now() - started, bytes });
    };
    // Node sends a DELETE or OPTIONS body without framing unless given its length.
    const framed =
      body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    try {
      const request = httpRequest(
        { host: hostname, port, method, path: target, headers: framed, timeout: timeoutMs, agent: false },
        (response) => {
          let bytes = 0;
          response.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
          });
          response.on('end', () => finish(response.statusCode ?? 0, bytes));
          response.on('error', (error: NodeJS.ErrnoException) => finish(error.code ?? 'error'));
        },
      );
      request.on('timeout', () => request.destroy());
      request.on('error', (error: NodeJS.ErrnoException) => finish(error.code ?? 'error'));
      request.end(body);
    } catch (error) {
      finish((error as NodeJS.ErrnoException).code ?? 'thrown');
    }
  });
}

const credentials = (running: Running) => ({
  authorization: `apikey ${running.apiKey}`,
  'x-seller-id': running.sellerId,
});

function percentile(values: readonly number[], fraction: number): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

const order = (orderNumber: string, customerName = 'Fatma Al-Sabah') => ({
  orderNumber,
  customerName,
  customerNumber: '+96550001234',
  deliveryLocation: { latitude: 29.3339, longitude: 48.0761, fullAddress: ['Block 10, Street 5', 'Salmiya'] },
});

/** The fuzz's requests: fixed seed. */
function fuzzRequests(): Array<{
  method: string;
  target: string;
  authenticated: boolean;
  headers: Record<string, string>;
  body?: string;
}> {
  const segment = fc.oneof(
    fc.constantFrom(
      'tasks',
      'rest',
      '_sandbox',
      'requests',
      'faults',
      'advance',
      'wallet-topup',
      'wallet-balance',
    ),
    fc.constantFrom(
      'estimate',
      'branches',
      'pay',
      'events',
      'reset',
      'webhooks',
      'wallet',
      'top-ups',
      'complete',
    ),
    fc.constantFrom('%', '..', '[', '', '%2F', '%00', '*', '?', '#'),
    fc.string({ maxLength: 12 }).map(encodeURIComponent),
  );
  const search = fc.oneof(
    fc.constantFrom('((a?){100}){9}q', '(a+)+$', '^ORD', '(?=a)', '\\1', '[', 'a{1000}', '(.*){50}x'),
    fc.string({ maxLength: 40 }),
  );
  const query = fc.oneof(
    fc.constant(''),
    fc.webQueryParameters().map((text) => `?${text}`),
    fc
      .tuple(search, fc.boolean())
      .map(([text, regex]) => `?search=${encodeURIComponent(text)}&ignoreRegex=${regex ? 'false' : 'true'}`),
  );
  const target = fc.oneof(
    {
      weight: 8,
      arbitrary: fc
        .tuple(fc.array(segment, { maxLength: 5 }), query)
        .map(([parts, q]) => `/${parts.join('/')}${q}`),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom('//[', '//[::1', 'http://[', '*', '//x/tasks', '/%', 'http://h/tasks'),
    },
  );
  const body = fc.oneof(
    fc.constant(undefined),
    fc.string({ maxLength: 300 }),
    fc.json({ maxDepth: 5 }),
    fc.constant(JSON.stringify(order('FUZZ'))),
    fc.constant(`${'['.repeat(100_000)}${']'.repeat(100_000)}`),
    fc.constant(JSON.stringify({ note: 'x'.repeat(900_000) })),
    fc.constant(JSON.stringify({ kind: 'delay', ms: 5, times: 1 })),
  );
  const sample = fc.record({
    method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'PROPFIND', 'TRACE'),
    target,
    authenticated: fc.boolean(),
    contentType: fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', ''),
    host: fc.constantFrom('own', 'own', 'own', 'rebind.test', ''),
    origin: fc.constantFrom(undefined, 'http://evil.test'),
    body,
  });
  return fc.sample(sample, { seed: 2727, numRuns: FUZZ_REQUESTS }).map((drawn) => {
    const headers: Record<string, string> = {};
    if (drawn.contentType !== '') headers['content-type'] = drawn.contentType;
    if (drawn.host !== 'own' && drawn.host !== '') headers.host = drawn.host;
    if (drawn.origin !== undefined) headers.origin = drawn.origin;
    const body = drawn.method === 'GET' || drawn.method === 'HEAD' ? undefined : drawn.body;
    return {
      method: drawn.method,
      target: drawn.target,
      authenticated: drawn.authenticated,
      headers,
      ...(body === undefined ? {} : { body }),
    };
  });
}

async function fuzz(): Promise<void> {
  let running = await startSandbox();
  const requests = fuzzRequests();
  let crashes = 0;
  let errors = 0;
  let fiveHundreds = 0;
  let slowest = 0;
  let slowestRequest = '';
  const statuses = new Map<string, number>();
  const probes: number[] = [];
  let done = false;
  const probe = (async () => {
    while (!done) {
      const answer = await send(running, 'GET', PROBE_PATH, credentials(running));
      if (answer.status === 200) probes.push(answer.ms);
      else probes.push(Number.POSITIVE_INFINITY);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < requests.length; index = next++) {
      const request = requests[index];
      if (request === undefined) break;
      const headers = { ...(request.authenticated ? credentials(running) : {}), ...request.headers };
      const answer = await send(running, request.method, request.target, headers, request.body);
      statuses.set(String(answer.status), (statuses.get(String(answer.status)) ?? 0) + 1);
      if (answer.status === 500) fiveHundreds++;
      if (typeof answer.status === 'string') {
        errors++;
        if (errors <= 8)
          console.log(
            `  failure ${answer.status}: ${request.method} ${request.target.slice(0, 60)} ${JSON.stringify(request.headers)} ${request.authenticated} body ${request.body?.length ?? 0} chars`,
          );
      }
      if (answer.ms > slowest) {
        slowest = answer.ms;
        slowestRequest = `${request.method} ${request.target.slice(0, 80)}`;
      }
      if (running.child.exitCode !== null || running.child.signalCode !== null) {
        crashes++;
        running = await startSandbox();
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  done = true;
  await probe;
  const failedProbes = probes.filter((ms) => !Number.isFinite(ms)).length;
  const answered = probes.filter(Number.isFinite);
  console.log(`fuzz: ${FUZZ_REQUESTS} requests (seed 2727, ${CONCURRENCY} at a time)`);
  console.log(`  crashes ${crashes}, answers of 500 ${fiveHundreds}, connection failures ${errors}`);
  console.log(`  longest answer ${slowest.toFixed(0)} ms (${slowestRequest})`);
  console.log(`  statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
  console.log(
    `  probe GET ${PROBE_PATH}: ${probes.length} probes, p50 ${percentile(answered, 0.5).toFixed(1)} ms, p99 ${percentile(answered, 0.99).toFixed(1)} ms, max ${Math.max(...answered).toFixed(1)} ms, failed ${failedProbes}`,
  );
  stop(running);
}

async function regexSearch(): Promise<void> {
  const running = await startSandbox();
  const json = { ...credentials(running), 'content-type': 'application/json' };
  // A create takes at most 1,000 characters a field: 200 names of 1,000 × a, 200,000 characters to scan.
  for (let index = 0; index < 200; index++) {
    await send(running, 'POST', '/tasks', json, JSON.stringify(order(`LONG-${index}`, 'a'.repeat(1000))));
  }
  const answer = await send(
    running,
    'GET',
    `/tasks?search=${encodeURIComponent('((a?){100}){9}q')}&ignoreRegex=false`,
    credentials(running),
  );
  const probe = await send(running, 'GET', PROBE_PATH, credentials(running));
  console.log(
    `regex search ((a?){100}){9}q over 200 names of 1,000 × a: answer ${answer.status} in ${answer.ms.toFixed(0)} ms; probe after ${probe.ms.toFixed(1)} ms`,
  );
  stop(running);
}

/** Heap in use after a full collection (run with `--expose-gc`), MiB; RSS without it. */
function retainedMiB(): number {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) return process.memoryUsage().rss / 2 ** 20;
  collect();
  collect();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

/** The request log in this process (its growth is read after garbage collection). */
async function requestLog(): Promise<void> {
  const sandbox = await startSandboxInProcess({ port: 0 });
  const running: Running = {
    child: process as unknown as ChildProcess,
    ...sandbox,
    baseUrl: sandbox.baseUrl,
  };
  const unit = (globalThis as { gc?: unknown }).gc === undefined ? 'RSS (no --expose-gc)' : 'heap after GC';
  await send(running, 'GET', PROBE_PATH, credentials(running));
  const start = retainedMiB();
  const megabyte = JSON.stringify({ note: 'x'.repeat(1_000_000 - 12) });
  for (let index = 0; index < 300; index++) {
    await send(running, 'POST', '/tasks', { 'content-type': 'application/json' }, megabyte);
  }
  const afterUnauthenticated = retainedMiB();
  const hundredKb = JSON.stringify({ ...order('BIG'), note: 'y'.repeat(100_000) });
  const json = { ...credentials(running), 'content-type': 'application/json' };
  for (let index = 0; index < 1000; index++) await send(running, 'POST', '/tasks/estimate', json, hundredKb);
  const afterAuthenticated = retainedMiB();
  const entry = JSON.stringify(sandbox.mock.requests.at(-1)).length;
  const page = await send(running, 'GET', '/_sandbox/requests', {});
  const biggest = await send(running, 'GET', '/_sandbox/requests?limit=200', {});
  await send(running, 'POST', '/tasks', json, `${'['.repeat(100_000)}${']'.repeat(100_000)}`);
  const deep = await send(running, 'GET', '/_sandbox/requests', {});
  console.log(
    `request log (${unit}): ${start.toFixed(0)} MiB at start, +${(afterUnauthenticated - start).toFixed(1)} MiB after 300 unauthenticated 1 MB POSTs, +${(afterAuthenticated - start).toFixed(1)} MiB after 1,000 more of 100 KB (one such entry: ${(entry / 1024).toFixed(1)} KiB as JSON)`,
  );
  console.log(
    `  GET /_sandbox/requests: ${page.status}, ${(page.bytes / 1024).toFixed(0)} KiB in ${page.ms.toFixed(0)} ms (100 entries); limit=200: ${(biggest.bytes / 1024).toFixed(0)} KiB in ${biggest.ms.toFixed(0)} ms; after a body nested 100,000 deep: ${deep.status}`,
  );
  await sandbox.close();
}

async function webhookAnswers(): Promise<void> {
  const chunk = Buffer.alloc(1024 * 1024, 120);
  const receiver = createServer((request, response) => {
    request.resume();
    response.writeHead(200, { 'content-length': String(100 * chunk.length) });
    let sent = 0;
    const pump = () => {
      while (sent < 100 && !response.destroyed) {
        sent++;
        if (!response.write(chunk)) return;
      }
      if (sent >= 100) response.end();
    };
    response.on('drain', pump);
    pump();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const running = await startSandbox(['--webhook-url', hook]);
  const pid = running.child.pid;
  const json = { ...credentials(running), 'content-type': 'application/json' };
  const created = await new Promise<string>((resolve) => {
    const request = httpRequest(`${running.baseUrl}/tasks`, { method: 'POST', headers: json }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (part: string) => {
        text += part;
      });
      response.on('end', () =>
        resolve((JSON.parse(text) as { data: { createTask: { id: string } } }).data.createTask.id),
      );
    });
    request.end(JSON.stringify(order('HOOK')));
  });
  const start = rssMiB(pid);
  const started = performance.now();
  for (let step = 0; step < 5; step++) await send(running, 'POST', `/_sandbox/tasks/${created}/advance`, {});
  const elapsed = performance.now() - started;
  console.log(
    `webhook receiver answering 200 with 100 MiB: RSS +${(rssMiB(pid) - start).toFixed(0)} MiB over 5 deliveries, ${(elapsed / 5).toFixed(0)} ms each`,
  );
  stop(running);
  receiver.closeAllConnections();
  receiver.close();
}

// `BENCH_PARTS=fuzz,regex` runs some of them only.
const parts = process.env.BENCH_PARTS?.split(',');
const runs = (part: string) => parts === undefined || parts.includes(part);
try {
  if (runs('fuzz')) await fuzz();
  if (runs('regex')) await regexSearch();
  if (runs('log')) await requestLog();
  if (runs('webhook')) await webhookAnswers();
} finally {
  stop(current);
}
