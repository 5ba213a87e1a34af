/**
 * The arguments of `node` that run the CLI from the sources, for a child process started in this package's
 * folder: the bundle the test run built once (test/support/source-bundles.ts), else `src/cli.ts` through tsx's
 * loader (a test file run outside that setup).
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/** `node` arguments before the CLI's own, e.g. `[...cliFromSources(), 'sandbox', '--port', '0']`. */
export function cliFromSources(): string[] {
  const bundle = process.env.DELIVERY_TASK_TEST_CLI_BUNDLE;
  if (bundle) return [bundle];
  return ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href, 'src/cli.ts'];
}
