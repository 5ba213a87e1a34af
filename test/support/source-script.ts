/**
 * The `node` arguments that run a program the tests start as a child process: its bundle built once for
 * the run (source-bundles.ts), else its source through tsx's loader (a test file run outside that setup,
 * in watch mode, or a script not bundled).
 */
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';

/** The environment variable holding the tools' CLI bundle's absolute path. */
export const TOOLS_CLI_BUNDLE_ENV = 'DELIVERY_TASK_TEST_CLI_BUNDLE';
/** The environment variable holding the folder of the worker scripts' bundles. */
export const WORKER_BUNDLES_ENV = 'DELIVERY_TASK_TEST_WORKER_BUNDLES';

/** `[bundle]` when the run built it, else `script` through tsx (`tsx`: the specifier to import it by). */
export function bundleOr(bundle: string | undefined, script: string, tsx = 'tsx'): string[] {
  if (bundle !== undefined && bundle !== '' && existsSync(bundle)) return [bundle];
  return ['--import', tsx, script];
}

/** e.g. `[...scriptArgs('test/support/create-worker.ts'), JSON.stringify(config)]`, from the project root. */
export function scriptArgs(script: string): string[] {
  const folder = process.env[WORKER_BUNDLES_ENV];
  return bundleOr(folder && join(folder, `${basename(script, '.ts')}.mjs`), script);
}
