/** `delivery-task openapi`: prints the installed SDK's `delivery-task-sdk/openapi.json`, byte for byte. */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, builtAfterSource, ensureBuilt } from '../../../../test/support/build.js';
import { ROOT } from '../../../../test/support/root.js';
import type { CliIo } from '../../src/cli/io.js';
import { installedOpenApiPath, openapiCommand, openapiCommandFrom } from '../../src/cli/openapi.js';

function capture(): { io: CliIo; out: () => string; err: () => string } {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env: {},
    signal: new AbortController().signal,
    stderrIsTTY: false,
  };
  return { io, out: () => stdout, err: () => stderr };
}

describe('delivery-task openapi', () => {
  it('prints the file the SDK build writes, byte for byte', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'openapi-'));
    try {
      const file = join(directory, 'openapi.json');
      const tsx = createRequire(import.meta.url).resolve('tsx/cli');
      const child = spawn(process.execPath, [tsx, 'scripts/build-openapi.ts', '--out', file], { cwd: ROOT });
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code).toBe(0);
      const { io, out, err } = capture();
      expect(await openapiCommandFrom(() => file)([], io)).toBe(0);
      expect(err()).toBe('');
      expect(out()).toBe(readFileSync(file, 'utf8'));
      expect(JSON.parse(out())).toMatchObject({ openapi: '3.1.0' });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }, 60_000);

  describe('the installed package', () => {
    // `delivery-task-sdk/openapi.json` resolves to the build's `dist/openapi.json`: built here.
    beforeAll(() => ensureBuilt(() => builtAfterSource('dist/openapi.json')), BUILD_TIMEOUT_MS);

    it('reads the installed delivery-task-sdk package, through its openapi.json export', () => {
      const path = installedOpenApiPath();
      expect(path.endsWith(join('dist', 'openapi.json'))).toBe(true);
      expect(realpathSync(join(path, '..', '..'))).toBe(realpathSync(ROOT));
    });
  });

  it('exits 1 naming the file when it cannot be read', async () => {
    const { io, out, err } = capture();
    expect(await openapiCommandFrom(() => '/nonexistent/openapi.json')([], io)).toBe(1);
    expect(out()).toBe('');
    expect(err()).toContain('cannot read /nonexistent/openapi.json');
  });

  it('refuses an unknown option with exit code 2 and the usage', async () => {
    const { io, out, err } = capture();
    expect(await openapiCommand(['--yaml'], io)).toBe(2);
    expect(out()).toBe('');
    expect(err()).toContain("Unknown option '--yaml'");
    expect(err()).toContain('Usage: delivery-task openapi');
  });
});
