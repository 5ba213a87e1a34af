/**
 * `npm start` (examples/quickstart.ts) against a service given by DELIVERY_BASE_URL: a separate process
 * talking to the mock over real HTTP. On a real service creating 25 tasks costs 25 fees, so without
 * `--live` (or DELIVERY_QUICKSTART_LIVE=1) it runs the read-only steps and says so.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMockDeliveryService, type MockHttpServer, startMockHttpServer } from '../../src/testing.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = createRequire(import.meta.url).resolve('tsx/cli');
const mock = createMockDeliveryService({ account: { type: 'wallet', balance: 100 } });
let server: MockHttpServer;

beforeAll(async () => {
  server = await startMockHttpServer(mock);
});
afterAll(() => server.close());
beforeEach(() => mock.reset());

/** Runs the quickstart with `args` and extra env against the mock server. */
function quickstart(args: readonly string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [TSX, 'examples/quickstart.ts', ...args],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          NODE_OPTIONS: '',
          DELIVERY_BASE_URL: server.url,
          DELIVERY_API_KEY: mock.apiKey,
          DELIVERY_SELLER_ID: mock.sellerId,
          DELIVERY_QUICKSTART_LIVE: '',
          ...env,
        },
        timeout: 60_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe('npm start against a configured service', () => {
  it('runs only the read-only steps without --live, says so, and sends no create or top-up', async () => {
    const run = await quickstart([]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Read-only steps only');
    expect(run.stdout).toContain('--live');
    expect(run.stdout).toContain('Done (read-only).');
    expect(mock.requestsFor('tasks.create')).toHaveLength(0);
    expect(mock.requestsFor('wallet.topUp')).toHaveLength(0);
    expect(mock.requestsFor('tasks.estimate')).toHaveLength(1);
  }, 60_000);

  it.each([
    ['--live', ['--live'], {}],
    ['DELIVERY_QUICKSTART_LIVE=1', [], { DELIVERY_QUICKSTART_LIVE: '1' }],
  ] as const)(
    'creates the 25 tasks and asks for a top-up link with %s',
    async (_how, args, env) => {
      const run = await quickstart(args, env);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).not.toContain('Read-only');
      expect(mock.requestsFor('tasks.create')).toHaveLength(25);
      expect(mock.requestsFor('wallet.topUp')).toHaveLength(1);
      expect(run.stdout).toContain('Done.');
    },
    60_000,
  );
});
