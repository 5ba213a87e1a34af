/**
 * What the built executable (`dist/cli.js`, as the package ships it) loads to start a command: a command
 * loads no other command's packages (msw for `sandbox`, the MCP SDK for `mcp`), so `--version`, `--help`
 * and the operator commands start without the mock. Each run records every module its process resolves,
 * through a resolve hook (`module.registerHooks`) loaded with `--import`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, builtAfterSource, ensureBuilt } from '../../../../test/support/build.js';
import { ROOT } from '../../../../test/support/root.js';

const run = promisify(execFile);
const TOOLS = join(ROOT, 'packages/tools');

/** Records each URL resolved, then writes them, one per line, to the file named by its env variable. */
const RECORDER = `
import { registerHooks } from 'node:module';
import { writeFileSync } from 'node:fs';
const urls = new Set();
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    urls.add(resolved.url);
    return resolved;
  },
});
process.on('exit', () => writeFileSync(process.env.RESOLVED_URLS_FILE, [...urls].join('\\n')));
`;

let folder: string;
let recorder: string;

beforeAll(async () => {
  await ensureBuilt(() => builtAfterSource('packages/tools/dist/cli-main.js'));
  folder = mkdtempSync(join(tmpdir(), 'delivery-task-start-modules-'));
  recorder = join(folder, 'record-resolved.mjs');
  writeFileSync(recorder, RECORDER);
}, BUILD_TIMEOUT_MS);

afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

let runs = 0;

/** The URLs `delivery-task <argv>` resolved, from the built executable. */
async function resolvedBy(argv: readonly string[]): Promise<string[]> {
  const file = join(folder, `run-${++runs}.txt`);
  await run(process.execPath, ['--import', recorder, 'dist/cli.js', ...argv], {
    cwd: TOOLS,
    env: { ...process.env, NODE_OPTIONS: '', RESOLVED_URLS_FILE: file },
  }).catch((error: { code?: number }) => {
    // `openapi` and `--help` exit 0; a usage error (2) still counts: what matters is what was loaded.
    if (error.code !== 2) throw error;
  });
  return readFileSync(file, 'utf8').split('\n');
}

const MOCK = /\/node_modules\/(msw|@mswjs)\/|\/dist\/testing\.js$/;
const MCP_SDK = /\/node_modules\/@modelcontextprotocol\//;

describe('the built delivery-task executable', () => {
  it.each(['--version', '--help', 'tasks list --help', 'wallet balance --help', 'openapi'])(
    'delivery-task %s loads neither msw nor the MCP SDK',
    async (command) => {
      const urls = await resolvedBy(command.split(' '));
      expect(urls.some((url) => url.endsWith('/dist/cli-main.js'))).toBe(true);
      expect(urls.filter((url) => MOCK.test(url) || MCP_SDK.test(url))).toEqual([]);
    },
  );

  it('delivery-task sandbox --help loads msw, and no MCP SDK', async () => {
    const urls = await resolvedBy(['sandbox', '--help']);
    expect(urls.some((url) => MOCK.test(url))).toBe(true);
    expect(urls.filter((url) => MCP_SDK.test(url))).toEqual([]);
  });
});
