/**
 * The published executable: `dist/cli.js` (msw bundled in) runs `delivery-task sandbox` under plain
 * `node`, without tsx. Builds the package first when `dist/cli.js` is missing.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAllSandboxes, ROOT, startSandboxProcess } from './support/sandbox-process.js';

/** Longest a build may take, ms. */
const BUILD_TIMEOUT_MS = 240_000;

beforeAll(async () => {
  if (existsSync(join(ROOT, 'dist', 'cli.js'))) return;
  const code = await new Promise<number | null>((resolve, reject) => {
    const build = spawn('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
    const timer = setTimeout(() => {
      build.kill('SIGKILL');
      reject(new Error(`npm run build did not end within ${BUILD_TIMEOUT_MS} ms`));
    }, BUILD_TIMEOUT_MS);
    build.once('error', reject);
    build.once('close', (exit) => {
      clearTimeout(timer);
      resolve(exit);
    });
  });
  expect(code).toBe(0);
}, BUILD_TIMEOUT_MS + 10_000);

afterAll(() => killAllSandboxes());

describe('dist/cli.js', () => {
  it('runs the sandbox under plain node: serves the service and the control endpoints, then stops on SIGTERM', async () => {
    const sandbox = await startSandboxProcess(['--balance', '12.5'], 'dist');
    try {
      const created = await sandbox.fetch('/tasks', {
        method: 'POST',
        headers: sandbox.headers({ 'content-type': 'application/json' }),
        body: JSON.stringify({ orderNumber: 'DIST-1', deliveryLocation: { latitude: 29.34, longitude: 48.05 } }),
      });
      expect(created.status).toBe(200);
      const { id } = ((await created.json()) as { data: { createTask: { id: string } } }).data.createTask;
      const advanced = await sandbox.fetch(`/_sandbox/tasks/${id}/advance`, {
        method: 'POST',
        body: JSON.stringify({ status: 'accepted' }),
      });
      expect(((await advanced.json()) as { status: string }).status).toBe('accepted');
      const balance = await sandbox.fetch('/tasks/wallet-balance', { headers: sandbox.headers() });
      expect(((await balance.json()) as { walletAmount: number }).walletAmount).toBeLessThan(12.5);
    } finally {
      expect(await sandbox.stop()).toEqual({ code: 0, signal: null });
    }
  });
});
