/**
 * The test run's global setup (vitest.config.ts `globalSetup`) that bundles, once per run and from their
 * sources, the programs the tests start as child processes (esbuild; packages left to `node_modules`):
 * a start of the CLI then costs about 0.3 CPU-s (0.4 for `sandbox`), against 0.6 in one file, where every
 * command loaded msw, and 1.1 through tsx's loader. Removed at the end of the run; not built in watch mode
 * (`vitest` without `run`), where the tests start the sources through tsx.
 *
 * - The tools' CLI (`packages/tools/src/cli.ts`, the SDK from `src/` through the tools' tsconfig paths), at
 *   the path in {@link TOOLS_CLI_BUNDLE_ENV} (read by `packages/tools/test/support/cli-command.ts`), each
 *   command's modules in a file beside it. It sits two folders below `packages/tools`, as
 *   `src/sandbox/pages.ts` does, so the dashboard it looks for beside its module (`../../dist/dashboard`) is
 *   the same one.
 * - The SDK tests' worker scripts ({@link WORKER_SCRIPTS}), each as `<name>.mjs` in the folder in
 *   {@link WORKER_BUNDLES_ENV} (read by `source-script.ts`).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build, stop } from 'esbuild';
import type { TestProject } from 'vitest/node';
import { TOOLS_CLI_BUNDLE_ENV, WORKER_BUNDLES_ENV } from './source-script.js';

/** The SDK tests' scripts run as child processes, from the project root. */
export const WORKER_SCRIPTS = [
  'test/support/create-worker.ts',
  'test/support/intake-receiver.ts',
  'test/support/late-commit-exit.ts',
  'test/support/restart-worker.ts',
  'test/webhooks/stall-receiver.ts',
] as const;

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TOOLS = join(ROOT, 'packages/tools');

const COMMON: BuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  packages: 'external',
  logLevel: 'silent',
};

/** A new folder under `parent` (created if needed). */
function runFolder(parent: string): string {
  mkdirSync(parent, { recursive: true });
  return mkdtempSync(join(parent, 'run-'));
}

export default async function setup(project: TestProject): Promise<() => void> {
  // In watch mode a bundle would go stale as the sources change: the tests start them through tsx.
  if (project.config.watch) return () => {};
  const folders = [
    runFolder(join(TOOLS, '.test-cli')),
    runFolder(join(ROOT, 'node_modules/.cache/test-bundles')),
  ];
  const remove = () => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  };
  const [cliFolder, workerFolder] = folders as [string, string];
  try {
    await Promise.all([
      // Split as the package's executable is (packages/tools/tsup.config.ts): a command loads no other
      // command's packages (msw for the sandbox) at start.
      build({
        ...COMMON,
        entryPoints: { cli: join(TOOLS, 'src/cli.ts') },
        outdir: cliFolder,
        outExtension: { '.js': '.mjs' },
        splitting: true,
        chunkNames: 'cli-[name]-[hash]',
        tsconfig: join(TOOLS, 'tsconfig.json'),
      }),
      build({
        ...COMMON,
        entryPoints: Object.fromEntries(
          WORKER_SCRIPTS.map((script) => [basename(script, '.ts'), join(ROOT, script)]),
        ),
        outdir: workerFolder,
        outExtension: { '.js': '.mjs' },
        tsconfig: join(ROOT, 'tsconfig.json'),
      }),
    ]);
  } catch (error) {
    remove();
    throw error;
  } finally {
    // esbuild's service process, which would outlive the run (test/support/no-leftover-processes.ts).
    await stop();
  }
  process.env[TOOLS_CLI_BUNDLE_ENV] = join(cliFolder, 'cli.mjs');
  process.env[WORKER_BUNDLES_ENV] = workerFolder;
  return remove;
}
