/**
 * The test run's global setup (vitest.config.ts `globalSetup`) that bundles the tools' CLI from its sources
 * (`packages/tools/src/cli.ts`, the SDK from `src/` through the tools' tsconfig paths, packages left to
 * `node_modules`) once per run, for the tests that start it as a child process: a start then costs about
 * 0.7 CPU-s instead of 1.1 through tsx's loader (the tools' tests took 204 CPU-s instead of 260). Its path
 * is in {@link TOOLS_CLI_BUNDLE_ENV}; `packages/tools/test/support/cli-command.ts` reads it.
 *
 * The bundle sits two folders below `packages/tools`, as `src/sandbox/pages.ts` sits below it, so the
 * dashboard it looks for beside its module (`../../dist/dashboard`) is the same one. Removed at the end.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** The environment variable holding the bundle's absolute path. */
export const TOOLS_CLI_BUNDLE_ENV = 'DELIVERY_TASK_TEST_CLI_BUNDLE';

const TOOLS = fileURLToPath(new URL('../../packages/tools/', import.meta.url));

export default async function setup(): Promise<() => void> {
  const parent = join(TOOLS, '.test-cli');
  mkdirSync(parent, { recursive: true });
  const folder = mkdtempSync(join(parent, 'run-'));
  const outfile = join(folder, 'cli.mjs');
  try {
    await build({
      entryPoints: [join(TOOLS, 'src/cli.ts')],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      tsconfig: join(TOOLS, 'tsconfig.json'),
      logLevel: 'silent',
    });
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
  process.env[TOOLS_CLI_BUNDLE_ENV] = outfile;
  return () => rmSync(folder, { recursive: true, force: true });
}
