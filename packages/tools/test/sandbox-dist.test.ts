/**
 * The published executable: `dist/cli.js` (msw bundled in) runs `delivery-task sandbox` under plain
 * `node`, without tsx. Builds the package first when `dist/cli.js` is missing.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../../test/support/build.js';
import { killAllSandboxes, ROOT, startSandboxProcess } from './support/sandbox-process.js';

beforeAll(async () => {
  await ensureBuilt(() => existsSync(join(ROOT, 'dist', 'cli.js')));
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
