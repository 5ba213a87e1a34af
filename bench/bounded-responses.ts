/**
 * Peak memory of the SDK under hostile answers (`npm run bench:bounded`, part of `npm run bench`).
 *
 * Each case runs in a child process of its own (so its peak is its own): a server on 127.0.0.1 in that
 * process answers `tasks.retrieve` with a 200 MB body, an endless chunked body, or a gzip / deflate /
 * brotli bomb that inflates to 320 MiB, and the client (default `maxResponseBytes`, 4 MiB) reads it.
 * Prints the error class, the time to fail, and the process's peak RSS above its RSS just before the
 * call (`process.resourceUsage().maxRSS`, which misses no spike). The goal is cap + 64 MiB at most.
 */
import { spawnSync } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBrotliCompress, createDeflate, createGzip } from 'node:zlib';
import { DeliveryClient } from '../src/index.js';

const MiB = 1024 * 1024;
const CASES = ['200 MB body', 'endless chunked body', 'gzip bomb', 'deflate bomb', 'brotli bomb'] as const;
type Case = (typeof CASES)[number];

async function pump(target: NodeJS.WritableStream, response: ServerResponse, bytes: number): Promise<void> {
  const chunk = Buffer.alloc(MiB, 0x20);
  for (let sent = 0; sent < bytes && !response.destroyed; sent += chunk.length) {
    if (!target.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          target.removeListener('drain', done);
          response.off('close', done);
          resolve();
        };
        target.on('drain', done);
        response.on('close', done);
      });
    }
  }
  target.end();
}

async function runCase(name: Case): Promise<void> {
  const server = createServer((_request, response) => {
    const encoding = name.startsWith('gzip')
      ? 'gzip'
      : name.startsWith('deflate')
        ? 'deflate'
        : name.startsWith('brotli')
          ? 'br'
          : undefined;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (name === '200 MB body') headers['content-length'] = String(200 * MiB);
    if (encoding) headers['content-encoding'] = encoding;
    response.writeHead(200, headers);
    if (encoding === undefined) {
      void pump(response, response, name === '200 MB body' ? 200 * MiB : Number.POSITIVE_INFINITY);
      return;
    }
    const compressor =
      encoding === 'gzip' ? createGzip() : encoding === 'deflate' ? createDeflate() : createBrotliCompress();
    compressor.pipe(response);
    response.once('close', () => compressor.destroy());
    void pump(compressor, response, 320 * MiB);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const client = new DeliveryClient({
    apiKey: 'bench-key',
    sellerId: 'bench-seller',
    baseUrl: `http://127.0.0.1:${port}`,
    logLevel: 'off',
  });
  const before = process.memoryUsage().rss;
  const started = performance.now();
  const outcome = await client.tasks.retrieve('t1').then(
    () => 'no error',
    (error: unknown) => (error instanceof Error ? error.name : String(error)),
  );
  const ms = performance.now() - started;
  const peak = process.resourceUsage().maxRSS * 1024;
  server.closeAllConnections();
  server.close();
  console.log(
    JSON.stringify({
      outcome,
      ms,
      peakAboveStartMiB: (peak - before) / MiB,
      capMiB: client.maxResponseBytes / MiB,
    }),
  );
}

function main(): void {
  const only = process.argv[2] as Case | undefined;
  if (only !== undefined) {
    void runCase(only);
    return;
  }
  console.log('bounded responses: peak RSS above the start of the call (goal: cap + 64 MiB)');
  for (const name of CASES) {
    const child = spawnSync(process.execPath, [...process.execArgv, process.argv[1] ?? '', name], {
      encoding: 'utf8',
    });
    const line = child.stdout.trim().split('\n').pop() ?? '{}';
    const result = JSON.parse(line) as {
      outcome: string;
      ms: number;
      peakAboveStartMiB: number;
      capMiB: number;
    };
    console.log(
      `  ${name.padEnd(22)} ${result.outcome.padEnd(22)} in ${result.ms.toFixed(0).padStart(5)} ms, peak +${result.peakAboveStartMiB.toFixed(1)} MiB (cap ${result.capMiB} MiB)`,
    );
  }
}

main();
