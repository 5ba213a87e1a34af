/**
 * The `node` arguments that run one of the SDK tests' worker scripts from the project root: its bundle
 * built once for the run (source-bundles.ts), else the script through tsx's loader (a test file run
 * outside that setup, or a script not bundled).
 */
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';

/** e.g. `[...scriptArgs('test/support/create-worker.ts'), JSON.stringify(config)]`. */
export function scriptArgs(script: string): string[] {
  const folder = process.env.DELIVERY_TASK_TEST_WORKER_BUNDLES;
  const bundle = folder && join(folder, `${basename(script, '.ts')}.mjs`);
  if (bundle && existsSync(bundle)) return [bundle];
  return ['--import', 'tsx', script];
}
