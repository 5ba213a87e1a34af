/**
 * The MCP server's two bounds (`npm run bench:mcp`, part of `npm run bench`; README "Agents (MCP)"):
 *
 * 1. startup: `node dist/cli.js mcp` spawned, connected with the MCP SDK's own client over stdio, to the
 *    first `tools/list` answer (goal ≤ 300 ms); beside it, a bare `node -e 0` and `delivery-task
 *    --version`, so the figure can be read on a busy machine;
 * 2. the added cost of a guarded booking: `create_delivery` (its second, confirmed step, over the SDK's
 *    in-memory transport) against a plain `client.tasks.create`, both against the sandbox on 127.0.0.1,
 *    interleaved in rounds, medians; and the whole agent flow (quote, first step, confirmed step).
 *
 * Needs `npm run build` first (`npm run bench` builds). Prints figures; asserts nothing about speed.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { DeliveryClient } from 'delivery-task-sdk';
import { startSandbox } from 'delivery-task-tools/sandbox';
import { createMcpServer } from '../src/mcp.js';

const STARTS = 10;
const ROUNDS = 5;
const BOOKINGS_PER_ROUND = 40;

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const ms = (value: number) => `${value.toFixed(1)} ms`;

/** Wall time of running `node args` to its end, ms. */
async function runTime(args: readonly string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: 'ignore' });
  await new Promise((resolve) => child.once('close', resolve));
  return performance.now() - started;
}

const sandbox = await startSandbox({ account: { type: 'wallet', balance: 1_000_000 } });
const env = {
  PATH: process.env.PATH ?? '',
  DELIVERY_API_KEY: sandbox.apiKey,
  DELIVERY_SELLER_ID: sandbox.sellerId,
  DELIVERY_BASE_URL: sandbox.baseUrl,
};

/** Spawn to first `tools/list` answer of `delivery-task mcp`, ms. */
async function startupTime(): Promise<number> {
  const started = performance.now();
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['dist/cli.js', 'mcp'],
      env,
      stderr: 'ignore',
    }),
  );
  const { tools } = await client.listTools();
  const elapsed = performance.now() - started;
  if (tools.length === 0) throw new Error('no tools listed');
  await client.close();
  return elapsed;
}

console.log(
  `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, load ${os.loadavg()[0]?.toFixed(1)}, Node ${process.version}\n`,
);
const bare: number[] = [];
const version: number[] = [];
const startup: number[] = [];
for (let run = 0; run < STARTS; run++) {
  bare.push(await runTime(['-e', '0']));
  version.push(await runTime(['dist/cli.js', '--version']));
  startup.push(await startupTime());
}
console.log(
  `delivery-task mcp, spawn to first tools/list (median of ${STARTS}): ${ms(median(startup))} (goal ≤ 300 ms)`,
);
console.log(
  `  for scale on this machine: node -e 0 ${ms(median(bare))}, delivery-task --version ${ms(median(version))}\n`,
);

// Guarded booking against plain create.
const deliveryClient = new DeliveryClient({
  apiKey: sandbox.apiKey,
  sellerId: sandbox.sellerId,
  baseUrl: sandbox.baseUrl,
  logLevel: 'off',
});
const server = createMcpServer(deliveryClient, {
  allow: ['read', 'create'],
  maxFeeKwd: 100,
  dailyCapKwd: 1_000_000,
});
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await server.connect(serverSide);
const agent = new Client({ name: 'bench', version: '1' });
await agent.connect(clientSide);

const from = { latitude: 29.3759, longitude: 47.9774 };
const to = { latitude: 29.3339, longitude: 48.0761 };
let orders = 0;
const order = (kind: string) => ({
  orderNumber: `BENCH-${kind}-${++orders}`,
  customerName: 'Bench',
  deliveryLocation: { ...to, fullAddress: ['Block 10', 'Salmiya'] },
});
type Structured = { structuredContent?: Record<string, unknown>; isError?: boolean };

const plain: number[] = [];
const confirmed: number[] = [];
const flow: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  for (let index = 0; index < BOOKINGS_PER_ROUND; index++) {
    let started = performance.now();
    await deliveryClient.tasks.create(order('plain'));
    plain.push(performance.now() - started);

    const flowStarted = performance.now();
    const quote = (await agent.callTool({
      name: 'estimate_delivery',
      arguments: { from, to },
    })) as Structured;
    const args = { ...order('mcp'), estimateId: quote.structuredContent?.estimateId };
    const first = (await agent.callTool({ name: 'create_delivery', arguments: args })) as Structured;
    started = performance.now();
    const booked = (await agent.callTool({
      name: 'create_delivery',
      arguments: { ...args, confirmationToken: first.structuredContent?.confirmationToken },
    })) as Structured;
    confirmed.push(performance.now() - started);
    flow.push(performance.now() - flowStarted);
    if (booked.isError || booked.structuredContent?.status !== 'booked') {
      throw new Error(`booking failed: ${JSON.stringify(booked)}`);
    }
  }
}
const plainMedian = median(plain);
const confirmedMedian = median(confirmed);
console.log(`Booking on loopback (median of ${plain.length} each, ${ROUNDS} interleaved rounds):`);
console.log(`  plain client.tasks.create:                ${ms(plainMedian)}`);
console.log(
  `  create_delivery, confirmed step:          ${ms(confirmedMedian)} (+${ms(confirmedMedian - plainMedian)}: claim, order look-up, re-quote, reservation, wallet read)`,
);
console.log(`  agent flow (quote, first step, confirmed): ${ms(median(flow))}`);

await agent.close();
await server.close();
await sandbox.close();
