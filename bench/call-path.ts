/**
 * One call's overhead: `tasks.retrieve` against bare ky and raw `fetch` + `res.json()`, all three on the
 * same loopback node:http server (real sockets) answering one task. Run alone with
 * `npx tsx bench/call-path.ts`; `bench/index.ts` runs it too.
 * @module
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import ky from 'ky';
import { DeliveryClient } from '../src/index.node.js';
import { sampleTask } from './support/sample-task.js';
import { interleave, median, spread } from './support/stats.js';

const API_KEY = 'bench-key';
const SELLER_ID = 'bench-seller';
const TASK_ID = '6b023c326d6f636b00000001';

/** Per-call time in µs of each variant: medians over interleaved rounds, with spread. */
export interface CallPathFigures {
  sdk: number[];
  ky: number[];
  fetch: number[];
}

/** Measures `calls` sequential retrieves per variant per round. */
export async function measureCallPath(rounds = 5, calls = 2000): Promise<CallPathFigures> {
  const body = JSON.stringify(sampleTask(1));
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const headers = { authorization: `apikey ${API_KEY}`, 'x-seller-id': SELLER_ID, accept: 'application/json' };
  const client = new DeliveryClient({ apiKey: API_KEY, sellerId: SELLER_ID, baseUrl: base });
  const bareKy = ky.create({ baseUrl: base, headers });
  const time = async (call: () => Promise<unknown>) => {
    const started = performance.now();
    for (let index = 0; index < calls; index++) await call();
    return ((performance.now() - started) * 1000) / calls;
  };
  const variants = {
    sdk: () => time(() => client.tasks.retrieve(TASK_ID)),
    ky: () => time(() => bareKy.get(`tasks/${TASK_ID}`).json()),
    fetch: () => time(async () => (await fetch(`${base}tasks/${TASK_ID}`, { headers })).json()),
  };
  for (const warm of Object.values(variants)) await warm();
  try {
    return await interleave(rounds, variants);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** Prints the figures and the ratios the issue sets goals for (SDK ≤ 1.10× bare ky). */
export function printCallPath(figures: CallPathFigures): void {
  console.log('tasks.retrieve per call on loopback (µs, median (min–max) of interleaved rounds):');
  console.log(`  raw fetch + res.json()  ${spread(figures.fetch, 1)}`);
  console.log(`  bare ky .json()         ${spread(figures.ky, 1)}`);
  console.log(`  SDK tasks.retrieve      ${spread(figures.sdk, 1)}`);
  const sdk = median(figures.sdk);
  console.log(
    `  SDK / bare ky = ${(sdk / median(figures.ky)).toFixed(2)}× (goal ≤ 1.10×); SDK / raw fetch = ${(sdk / median(figures.fetch)).toFixed(2)}×`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) printCallPath(await measureCallPath());
