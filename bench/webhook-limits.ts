/**
 * The webhook receiver's bounds under hostile or heavy senders (`npm run bench:webhook-limits`). Prints
 * figures; asserts nothing about speed (machines differ), but exits non-zero when a bound does not hold.
 *
 * 1. Slow senders: `--slow-senders=100` connections to a node:http receiver with the default options,
 *    each sending its headers, then one body byte a second. Prints how long each waited for its answer
 *    (the service waits 5 s at most), the answers, and the sockets the server still holds afterwards.
 * 2. Large-event flood: `--events=600` webhooks of 1 MiB each, `--in-flight=8` at a time, to a receiver
 *    whose `onEvent` never finishes, running in a child process with `--max-old-space-size=512`. Prints
 *    the answers, the receiver's peak RSS and heap, and the heap once the events are let go.
 *
 * Run with `--child` the file is that receiver (it talks to its parent over IPC).
 */
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createWebhookHandler } from '../src/webhooks/index.js';
import { sendSlowly } from '../test/webhooks/slow-senders.js';

const MiB = 1024 * 1024;
const HEAP_LIMIT_MB = 512;

function option(name: string, fallback: number): number {
  const given = process.argv.find((argument) => argument.startsWith(`--${name}=`))?.split('=')[1];
  const value = given === undefined ? fallback : Number(given);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  return value;
}

const megabytes = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`;

/** Messages from the receiver child. */
type ChildMessage =
  | { type: 'listening'; url: string }
  | { type: 'memory'; peakRss: number; peakHeapUsed: number; heapUsedAfterRelease: number; stats: unknown };

/** The receiver of part 2: a hung `onEvent`, the default bounds, memory sampled every 5 ms. */
async function runChild(): Promise<void> {
  const send = (message: ChildMessage) => process.send?.(message);
  let release = (): void => {};
  const hung = new Promise<void>((resolve) => {
    release = resolve;
  });
  const handler = createWebhookHandler({ onEvent: () => hung, logLevel: 'off' });
  let peakRss = 0;
  let peakHeapUsed = 0;
  const sample = () => {
    const { rss, heapUsed } = process.memoryUsage();
    peakRss = Math.max(peakRss, rss);
    peakHeapUsed = Math.max(peakHeapUsed, heapUsed);
  };
  const sampler = setInterval(sample, 5);
  const server = createServer((req, res) => {
    void handler.node(req, res).finally(sample);
  });
  server.listen(0, '127.0.0.1', () => {
    send({ type: 'listening', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks` });
  });
  process.on('message', async () => {
    clearInterval(sampler);
    sample();
    release();
    await handler.idle();
    (globalThis as { gc?: () => void }).gc?.();
    const heapUsedAfterRelease = process.memoryUsage().heapUsed;
    send({ type: 'memory', peakRss, peakHeapUsed, heapUsedAfterRelease, stats: handler.stats });
    server.close();
    process.disconnect();
  });
}

/** A webhook body of exactly 1 MiB. */
function largeWebhook(taskId: string): string {
  const base = JSON.stringify({ _id: taskId, status: 'accepted', orderNumber: `ORD-${taskId}`, pad: '' });
  return JSON.stringify({
    _id: taskId,
    status: 'accepted',
    orderNumber: `ORD-${taskId}`,
    pad: 'x'.repeat(MiB - base.length),
  });
}

async function slowSenders(): Promise<boolean> {
  const count = option('slow-senders', 100);
  const handler = createWebhookHandler({ onEvent: () => {}, logLevel: 'off' });
  const server = createServer((req, res) => handler.node(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  const outcomes = await Promise.all(
    Array.from({ length: count }, () =>
      sendSlowly(url, { contentLength: 1000, firstBytes: '{', dribbleEveryMs: 1000, giveUpAfterMs: 10_000 }),
    ),
  );
  const waits = outcomes
    .map((outcome) => outcome.answeredAfterMs ?? Number.POSITIVE_INFINITY)
    .sort((a, b) => a - b);
  const statuses = new Map<string, number>();
  for (const outcome of outcomes) {
    const key = String(outcome.status ?? 'none');
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  const open = await new Promise<number>((resolve) => server.getConnections((_error, n) => resolve(n)));
  server.close();
  console.log(
    `Slow senders: ${count} connections dribbling 1 byte/s; answers ${JSON.stringify(Object.fromEntries(statuses))}; ` +
      `wait for the answer (ms) min ${waits[0]?.toFixed(0)}, max ${waits.at(-1)?.toFixed(0)}; ` +
      `closed by the receiver ${outcomes.filter((outcome) => outcome.closedByReceiver).length}; sockets still open ${open}`,
  );
  return (
    outcomes.every((outcome) => outcome.status === 408) && (waits.at(-1) ?? Infinity) < 5000 && open === 0
  );
}

async function largeEventFlood(): Promise<boolean> {
  const events = option('events', 600);
  const inFlight = option('in-flight', 8);
  const child = fork(fileURLToPath(import.meta.url), ['--child'], {
    execArgv: [`--max-old-space-size=${HEAP_LIMIT_MB}`, '--expose-gc', '--import', 'tsx'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const message = <T extends ChildMessage['type']>(type: T) =>
    new Promise<Extract<ChildMessage, { type: T }> | undefined>((resolve) => {
      child.on('message', (received: ChildMessage) => {
        if (received.type === type) resolve(received as Extract<ChildMessage, { type: T }>);
      });
      void exited.then(() => resolve(undefined));
    });
  const listening = await message('listening');
  if (listening === undefined) throw new Error('the receiver did not start');
  const answers = new Map<string, number>();
  let next = 0;
  const sender = async () => {
    while (next < events) {
      const index = next++;
      const status = await fetch(listening.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: largeWebhook(`flood-${index}`),
      }).then(
        async (response) => {
          await response.arrayBuffer();
          return String(response.status);
        },
        () => 'no answer (receiver gone)',
      );
      answers.set(status, (answers.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, sender));
  const memory = message('memory');
  if (child.connected) child.send('release');
  const report = await memory;
  const code = report === undefined ? await exited : 0;
  console.log(
    `Large-event flood: ${events} webhooks of 1 MiB, ${inFlight} in flight, onEvent never finishes, receiver heap limit ${HEAP_LIMIT_MB} MiB; ` +
      `answers ${JSON.stringify(Object.fromEntries(answers))}`,
  );
  if (report === undefined) {
    console.log(`The receiver died (exit code ${code}).`);
    return false;
  }
  console.log(
    `Receiver peak RSS ${megabytes(report.peakRss)}, peak heap used ${megabytes(report.peakHeapUsed)}; ` +
      `heap used once the events were let go ${megabytes(report.heapUsedAfterRelease)}; stats ${JSON.stringify(report.stats)}`,
  );
  return true;
}

async function main(): Promise<void> {
  if (process.argv.includes('--child')) return runChild();
  const slowOk = await slowSenders();
  const floodOk = await largeEventFlood();
  if (!slowOk || !floodOk) {
    console.error('FAILED: a receiver bound did not hold');
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
