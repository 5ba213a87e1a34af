/**
 * One call's overhead: `tasks.retrieve` against bare ky and raw `fetch` + `res.json()`, all three on the
 * same loopback node:http server (real sockets) answering one task. Run alone with
 * `npx tsx bench/call-path.ts`; `bench/index.ts` runs it too.
 * @module
 */
import ky from 'ky';
import { DeliveryClient } from '../src/index.node.js';
import { ratioSpread, spread } from './support/stats.js';
import { serveTask } from './support/task-server.js';

const API_KEY = 'bench-key';
const SELLER_ID = 'bench-seller';
const TASK_ID = '6b023c326d6f636b00000001';

/** Per-call time in µs of each variant, and per-round ratios of the SDK to its neighbouring runs. */
export interface CallPathFigures {
  sdk: number[];
  ky: number[];
  fetch: number[];
  /** Per round: the SDK's time / the mean of the bare ky runs just before and after it. */
  sdkToKy: number[];
  /** Per round: the SDK's time / the mean of the raw fetch runs just before and after it. */
  sdkToFetch: number[];
}

/**
 * Measures in rounds of five short runs, `calls` sequential retrieves each: ky, fetch, SDK, fetch, ky
 * (the order reversed every other round). A ratio taken within one round, about a quarter of a second
 * long, cancels the slow drifts of a shared machine that make separate timings of the same code differ
 * by ±20 %.
 */
export async function measureCallPath(rounds = 40, calls = 150): Promise<CallPathFigures> {
  const server = await serveTask();
  const base = server.url;
  const headers = {
    authorization: `apikey ${API_KEY}`,
    'x-seller-id': SELLER_ID,
    accept: 'application/json',
  };
  const client = new DeliveryClient({ apiKey: API_KEY, sellerId: SELLER_ID, baseUrl: base });
  const bareKy = ky.create({ prefixUrl: base, headers });
  const time = async (call: () => Promise<unknown>) => {
    const started = performance.now();
    for (let index = 0; index < calls; index++) await call();
    return ((performance.now() - started) * 1000) / calls;
  };
  const sdk = () => time(() => client.tasks.retrieve(TASK_ID));
  const viaKy = () => time(() => bareKy.get(`tasks/${TASK_ID}`).json());
  const viaFetch = () => time(async () => (await fetch(`${base}tasks/${TASK_ID}`, { headers })).json());
  const figures: CallPathFigures = { sdk: [], ky: [], fetch: [], sdkToKy: [], sdkToFetch: [] };
  try {
    for (let warm = 0; warm < 5; warm++) for (const variant of [sdk, viaKy, viaFetch]) await variant();
    for (let round = 0; round < rounds; round++) {
      const [outer, inner] = round % 2 === 0 ? [viaKy, viaFetch] : [viaFetch, viaKy];
      const first = await outer();
      const second = await inner();
      const took = await sdk();
      const third = await inner();
      const fourth = await outer();
      const [kyTimes, fetchTimes] =
        round % 2 === 0
          ? [
              [first, fourth],
              [second, third],
            ]
          : [
              [second, third],
              [first, fourth],
            ];
      figures.sdk.push(took);
      figures.ky.push(...kyTimes);
      figures.fetch.push(...fetchTimes);
      figures.sdkToKy.push((2 * took) / ((kyTimes[0] ?? 0) + (kyTimes[1] ?? 0)));
      figures.sdkToFetch.push((2 * took) / ((fetchTimes[0] ?? 0) + (fetchTimes[1] ?? 0)));
    }
    return figures;
  } finally {
    await server.close();
  }
}

/** Prints the figures and the ratios the issue sets goals for (SDK ≤ 1.10× bare ky). */
export function printCallPath(figures: CallPathFigures): void {
  console.log('tasks.retrieve per call on loopback (µs, median (min–max); ratios within each round):');
  console.log(`  raw fetch + res.json()  ${spread(figures.fetch, 1)}`);
  console.log(`  bare ky .json()         ${spread(figures.ky, 1)}`);
  console.log(`  SDK tasks.retrieve      ${spread(figures.sdk, 1)}`);
  console.log(
    `  SDK / bare ky = ${ratioSpread(figures.sdkToKy)} (goal ≤ 1.10×); SDK / raw fetch = ${ratioSpread(figures.sdkToFetch)}`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) printCallPath(await measureCallPath());
