/**
 * The arguments of `node` that run the CLI from the sources, for a child process started in this package's
 * folder: the bundle the test run built once (test/support/source-bundles.ts), else `src/cli.ts` through tsx's
 * loader (a test file run outside that setup, or in watch mode).
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { bundleOr, TOOLS_CLI_BUNDLE_ENV } from '../../../../test/support/source-script.js';

/** `node` arguments before the CLI's own, e.g. `[...cliFromSources(), 'sandbox', '--port', '0']`. */
export function cliFromSources(): string[] {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return bundleOr(process.env[TOOLS_CLI_BUNDLE_ENV], 'src/cli.ts', tsx);
}
