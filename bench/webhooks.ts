/**
 * Webhook receiving under a burst (`npm run bench:webhooks`, or `npx tsx bench/webhooks.ts`).
 *
 * Sends 500 webhooks at once over real HTTP to a node:http receiver whose `onEvent` takes 1 s, and
 * prints the answer latency (p50, p99, max, in ms: the service waits 5 s at most and never retries),
 * the events processed (must be 500, each once) and the total processing time. Exits non-zero when an
 * answer is not 200 or an event is processed other than exactly once.
 *
 * The sender runs in a worker thread, so its own work (500 connections at once) does not share the
 * receiver's event loop. For scale, the same burst is first sent to a bare node:http server that only
 * reads the body and answers 200.
 *
 * Options: `--events=500`, `--on-event-ms=1000`, `--concurrency=100` (the handler's `concurrency`;
 * processing takes about events ÷ concurrency × on-event-ms).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { createWebhookHandler } from '../src/webhooks/index.js';

const KINDS = [
  'accepted',
  'inprogress',
  'pickup_location_reached',
  'pickedup',
  'enroute',
  'delivered',
  'cancelled',
];

function option(name: string, fallback: number): number {
  const given = process.argv.find((argument) => argument.startsWith(`--${name}=`))?.split('=')[1];
  const value = given === undefined ? fallback : Number(given);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  return value;
}

/** A webhook body like the service sends (spec § "Extra fields seen in the webhook task payload"). */
function webhookBody(taskId: string, status: string): string {
  return JSON.stringify({
    _id: taskId,
    orderNumber: `ORD-${taskId}`,
    customerName: 'Fatima Al-Sabah',
    customerNumber: '+96550000001',
    alternateCustomerNumber: '',
    status,
    statusHistory: [
      { status: 'requested', timestamp: '2026-11-21T09:00:00.000Z' },
      { status, timestamp: '2026-11-21T09:05:00.000Z' },
    ],
    deliveryId: `DLV-${taskId}`,
    driver: { name: 'Ahmad', phone: '+96560000002', trackingLink: 'https://track.example.test/abc' },
    deliveryDispatched: true,
    pickupLocation: { longitude: 47.9774, latitude: 29.3759, fullAddress: ['Kuwait City'] },
    deliveryLocation: {
      lat: 29.3397,
      lng: 48.0748,
      kwAddress: ['Block 10', 'Street 5'],
      fullAddress: ['Salmiya'],
    },
    travelDetail: { totalDistance: 9.2, duration: 18, durationInTraffic: 22, hasTraffic: true },
    estimatedPrice: '1.250',
    walletDeducted: true,
  });
}

/** The sender: POSTs every body at once, reports each answer's status and latency (ms). Plain JS for a worker. */
const SENDER = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, bodies } = workerData;
const started = performance.now();
Promise.all(bodies.map(async (body) => {
  const sent = performance.now();
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - sent };
})).then(
  (answers) => parentPort.postMessage({ answers, elapsed: performance.now() - started }),
  (error) => parentPort.postMessage({ error: String(error) }),
);
`;

interface Answer {
  status: number;
  ms: number;
}

/** The answers to a burst, in order, and the time from the first send to the last answer (ms). */
interface Burst {
  answers: Answer[];
  elapsed: number;
}

/** Sends `bodies` at once from a worker thread. */
function sendBurst(url: string, bodies: readonly string[]): Promise<Burst> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(SENDER, { eval: true, workerData: { url, bodies } });
    worker.once('message', (message: Burst | { error: string }) => {
      void worker.terminate();
      if ('error' in message) reject(new Error(message.error));
      else resolve(message);
    });
    worker.once('error', reject);
  });
}

async function listen(server: Server, backlog: number): Promise<string> {
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog }, resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/delivery`;
}

function close(server: Server): void {
  server.closeAllConnections();
  server.close();
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

async function main(): Promise<void> {
  const events = option('events', 500);
  const onEventMs = option('on-event-ms', 1000);
  const concurrency = option('concurrency', 100);

  const processedPerTask = new Map<string, number>();
  const handler = createWebhookHandler({
    concurrency,
    onEvent: async (event) => {
      await sleep(onEventMs);
      processedPerTask.set(event.taskId, (processedPerTask.get(event.taskId) ?? 0) + 1);
    },
  });
  const bodies = Array.from({ length: events }, (_, index) =>
    webhookBody(`bench-${String(index).padStart(4, '0')}`, KINDS[index % KINDS.length] ?? 'accepted'),
  );
  const fixed = (ms: number) => ms.toFixed(1);
  const summary = (answers: readonly Answer[]) => {
    const sorted = answers.map((answer) => answer.ms).sort((a, b) => a - b);
    return `p50 ${fixed(percentile(sorted, 50))}, p99 ${fixed(percentile(sorted, 99))}, max ${fixed(sorted.at(-1) ?? Number.NaN)}`;
  };

  const bare = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}'));
  });
  const bareBurst = await sendBurst(await listen(bare, events * 2), bodies);
  close(bare);
  console.log(`Bare node:http server, answer latency (ms): ${summary(bareBurst.answers)}`);

  const server = createServer((req, res) => handler.node(req, res));
  const url = await listen(server, events * 2);
  console.log(
    `Sending ${events} webhooks at once to ${url}; onEvent takes ${onEventMs} ms; concurrency ${concurrency}`,
  );
  const started = performance.now();
  const { answers, elapsed } = await sendBurst(url, bodies);
  await handler.idle();
  const total = performance.now() - started;
  close(server);

  const notOk = answers.filter((answer) => answer.status !== 200).length;
  const processed = [...processedPerTask.values()].reduce((sum, count) => sum + count, 0);
  const notOnce = bodies.length - [...processedPerTask.values()].filter((count) => count === 1).length;
  console.log(
    `Webhook handler, answer latency (ms): ${summary(answers)}; all ${events} answered in ${fixed(elapsed)} ms`,
  );
  console.log(`Answers other than 200: ${notOk}`);
  console.log(`Events processed: ${processed} (tasks processed other than exactly once: ${notOnce})`);
  console.log(
    `Total processing time: ${fixed(total)} ms (floor ${Math.ceil(events / concurrency) * onEventMs} ms at concurrency ${concurrency})`,
  );
  console.log(`Handler stats: ${JSON.stringify(handler.stats)}`);

  if (notOk > 0 || processed !== events || notOnce > 0 || handler.stats.processed !== events) {
    console.error('FAILED: every webhook must be answered 200 and processed exactly once');
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
