/**
 * The sandbox dashboard's figures (docs/sandbox.md, "Dashboard figures"), against the built executable
 * (`dist/cli.js sandbox`, run `npm run build` first; `npm run bench` does) on loopback:
 *
 * - time from just before `client.tasks.create` is called to its `task` event read from
 *   `GET /_sandbox/events`, and to its row inserted in the page in chromium
 *   (`/usr/bin/chromium` or `CHROMIUM_PATH`; skipped when absent), median and p95 of 40 tasks;
 * - the page's weight gzipped, as served (`accept-encoding: gzip`);
 * - the sandbox process's memory (RSS) with 50 open event streams, and after 200 task events fanned
 *   out to them.
 *
 * Run with `npx tsx bench/dashboard.ts`. Prints figures, asserts nothing.
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { DeliveryClient } from 'delivery-task-sdk';
import { CHROMIUM_PATH, startBrowser } from '../test/sandbox/dashboard/browser.js';

const TASKS = 40;
const STREAMS = 50;

const params = (orderNumber: string) => ({
  orderNumber,
  customerName: 'Fatma Al-Sabah',
  customerNumber: '+96550001234',
  deliveryLocation: { latitude: 29.3339, longitude: 48.0761, fullAddress: ['Block 10, Street 5', 'Salmiya'] },
});

function percentile(values: readonly number[], fraction: number): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

const summary = (values: readonly number[]) =>
  `median ${percentile(values, 0.5).toFixed(1)} ms, p95 ${percentile(values, 0.95).toFixed(1)} ms (${values.length} tasks)`;

/** Starts `dist/cli.js sandbox` and resolves with its printed JSON line. */
async function startSandbox(): Promise<{
  child: ChildProcess;
  baseUrl: string;
  apiKey: string;
  sellerId: string;
}> {
  if (!existsSync('dist/cli.js')) throw new Error('dist/cli.js is missing: run npm run build first');
  const child = spawn(
    process.execPath,
    ['dist/cli.js', 'sandbox', '--port', '0', '--json', '--account', 'invoice'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const line = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      text += chunk;
      const end = text.indexOf('\n');
      if (end >= 0) resolve(text.slice(0, end));
    });
    child.once('exit', (code) => reject(new Error(`the sandbox exited (${code}) before printing its line`)));
  });
  return { child, ...(JSON.parse(line) as { baseUrl: string; apiKey: string; sellerId: string }) };
}

/** Resident memory of a process, bytes (Linux `/proc`). */
function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) * 1024;
}

/** Time from just before each create to its `task` event on the stream. */
async function sseLatency(baseUrl: string, client: DeliveryClient): Promise<number[]> {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}/_sandbox/events`, { signal: controller.signal });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const seen = new Map<string, (at: number) => void>();
  let buffer = '';
  const reading = (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      const at = performance.now();
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const order = /"orderNumber":"([^"]+)"/.exec(block)?.[1];
        if (block.startsWith('event: task') && order !== undefined) seen.get(order)?.(at);
      }
    }
  })();
  const times: number[] = [];
  for (let index = 0; index < TASKS; index += 1) {
    const order = `BENCH-SSE-${index}`;
    const arrived = new Promise<number>((resolve) => seen.set(order, resolve));
    const started = performance.now();
    await client.tasks.create(params(order));
    times.push((await arrived) - started);
  }
  controller.abort();
  await reading;
  return times;
}

/** Time from just before each create to its row inserted in the page (chromium's clock, same machine). */
async function pageLatency(baseUrl: string, client: DeliveryClient): Promise<number[] | undefined> {
  if (!existsSync(CHROMIUM_PATH)) return undefined;
  const browser = await startBrowser();
  try {
    const { page } = await browser.newPage();
    await page.goto(`${baseUrl}/#tasks`);
    await page.locator('#connection', { hasText: 'live' }).waitFor({ timeout: 30_000 });
    const times: number[] = [];
    for (let index = 0; index < TASKS; index += 1) {
      const order = `BENCH-PAGE-${index}`;
      // The page notes the wall-clock time at which the row's link appears (observer set up first).
      await page.evaluate((wanted) => {
        const scope = window as unknown as { benchShown?: Promise<number> };
        scope.benchShown = new Promise<number>((resolve) => {
          const body = document.querySelector('#tasks-table tbody');
          const observer = new MutationObserver(() => {
            for (const link of body?.querySelectorAll('a') ?? []) {
              if (link.textContent === wanted) {
                observer.disconnect();
                resolve(Date.now());
                return;
              }
            }
          });
          if (body) observer.observe(body, { childList: true, subtree: true });
        });
      }, order);
      const started = Date.now();
      await client.tasks.create(params(order));
      const shown = await page.evaluate(
        () => (window as unknown as { benchShown?: Promise<number> }).benchShown,
      );
      times.push(Number(shown) - started);
    }
    return times;
  } finally {
    await browser.close();
  }
}

/** The page's three files as served gzipped, bytes. */
async function pageWeight(baseUrl: string): Promise<{ files: string[]; total: number }> {
  const files: string[] = [];
  let total = 0;
  for (const path of ['/', '/_dashboard/dashboard.js', '/_dashboard/dashboard.css']) {
    const response = await fetch(`${baseUrl}${path}`, { headers: { 'accept-encoding': 'gzip' } });
    const bytes = Number(response.headers.get('content-length'));
    await response.arrayBuffer();
    files.push(`${path} ${(bytes / 1024).toFixed(1)} KB`);
    total += bytes;
  }
  return { files, total };
}

/** Opens `count` event streams on raw sockets that read and discard what comes. */
async function openStreams(baseUrl: string, count: number): Promise<Socket[]> {
  const { port } = new URL(baseUrl);
  const sockets: Socket[] = [];
  for (let index = 0; index < count; index += 1) {
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.on('data', () => {});
    socket.write(`GET /_sandbox/events HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`);
    sockets.push(socket);
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  return sockets;
}

const sandbox = await startSandbox();
const pid = sandbox.child.pid ?? -1;
const client = new DeliveryClient({
  apiKey: sandbox.apiKey,
  sellerId: sandbox.sellerId,
  baseUrl: sandbox.baseUrl,
});
try {
  console.log('Sandbox dashboard (dist/cli.js sandbox on 127.0.0.1):');
  for (let index = 0; index < 20; index += 1) await client.tasks.create(params(`WARM-${index}`));
  const sse = await sseLatency(sandbox.baseUrl, client);
  console.log(`  create → its SSE event:          ${summary(sse)}`);
  const page = await pageLatency(sandbox.baseUrl, client);
  console.log(
    page === undefined
      ? `  create → its row on the page:    skipped (no chromium at ${CHROMIUM_PATH})`
      : `  create → its row on the page:    ${summary(page)}`,
  );
  const weight = await pageWeight(sandbox.baseUrl);
  console.log(
    `  page weight gzipped:             ${(weight.total / 1024).toFixed(1)} KB (${weight.files.join(', ')})`,
  );
  await new Promise((resolve) => setTimeout(resolve, 500));
  const idle = rssOf(pid);
  const streams = await openStreams(sandbox.baseUrl, STREAMS);
  const open = rssOf(pid);
  for (let index = 0; index < 200; index += 1) await client.tasks.create(params(`FAN-${index}`));
  await new Promise((resolve) => setTimeout(resolve, 500));
  const fanned = rssOf(pid);
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  console.log(
    `  sandbox RSS: ${mb(idle)} idle, ${mb(open)} with ${STREAMS} open streams (+${((open - idle) / STREAMS / 1024).toFixed(1)} KB each), ${mb(fanned)} after 200 task events to each`,
  );
  for (const socket of streams) socket.destroy();
} finally {
  sandbox.child.kill('SIGTERM');
}
