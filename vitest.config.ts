import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import DurationSequencer from './test/support/duration-sequencer.js';
import { TEST_DIRECTORIES, testFiles } from './test/support/test-files.js';

const ROOT = fileURLToPath(new URL('.', import.meta.url));

const TEST_FILES = TEST_DIRECTORIES.map((directory) => `${directory}/**/*.test.ts`);

/**
 * What makes a test file need a process of its own: it replaces a module (`vi.mock`), or it mounts a
 * webhook receiver in Hono's Node adapter (test/webhooks/servers.ts), which replaces the process's
 * global `Request` and `Response` for good (msw then no longer tells the mock's dropped connections
 * from answers).
 */
const NEEDS_OWN_PROCESS = /vi\.mock\(|from '\.\/(shared-receivers|servers)\.js'|@hono\/node-server/;

/** The test files that need a process of their own, as paths relative to this directory. */
const OWN_PROCESS_FILES = testFiles(ROOT).filter((file) =>
  NEEDS_OWN_PROCESS.test(readFileSync(new URL(file, import.meta.url), 'utf8')),
);

export default defineConfig({
  // Both packages' tests run from the sources, no build first: the SDK's entries and the tools' entries
  // resolve to their source files (exact names, so `delivery-task-sdk/openapi.json` stays the package's).
  resolve: {
    alias: Object.entries({
      'delivery-task-sdk': './src/index.ts',
      'delivery-task-sdk/testing': './src/testing.ts',
      'delivery-task-sdk/redis': './src/redis.ts',
      'delivery-task-sdk/postgres': './src/postgres.ts',
      'delivery-task-sdk/webhooks': './src/webhooks.ts',
      'delivery-task-sdk/kwd': './src/kwd.ts',
      'delivery-task-sdk/schemas': './src/schemas.ts',
      'delivery-task-sdk/internal': './src/internal.ts',
      'delivery-task-tools/sandbox': './packages/tools/src/sandbox.ts',
      'delivery-task-tools/mcp': './packages/tools/src/mcp.ts',
    }).map(([name, file]) => ({
      find: new RegExp(`^${name.replace('/', '\\/')}$`),
      replacement: fileURLToPath(new URL(file, import.meta.url)),
    })),
  },
  test: {
    environment: 'node',
    // Fails the run when a process a test started is still alive at its end.
    globalSetup: ['test/support/no-leftover-processes.ts', 'test/support/source-bundles.ts'],
    // Each file ends with none of the late-commit checks its creates left (they would reach the next file).
    setupFiles: ['test/support/file-end.ts'],
    testTimeout: 20_000,
    // Longest files first (test/support/duration-sequencer.ts), from both projects alike.
    sequence: { sequencer: DurationSequencer },
    // Two test files per core (at most 8): most of the suite waits on sockets, servers and child
    // processes, so one file per core (vitest's default is cores − 1) leaves the cores idle. Under
    // CI=true one file per core: the multi-process tests (several-instances, intake-kill) share the
    // cores with fewer neighbours, and a CI run's minutes matter less than its verdict.
    maxWorkers: process.env.CI === 'true' ? availableParallelism() : Math.min(8, 2 * availableParallelism()),
    typecheck: { enabled: false },
    // A worker process runs file after file with the modules it has loaded: the files share the SDK's
    // modules instead of each importing them again (about a third of the suite's CPU). A file that
    // changes what other files would load or find (OWN_PROCESS_FILES) gets a process of its own.
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: TEST_FILES,
          exclude: [...configDefaults.exclude, ...OWN_PROCESS_FILES],
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: OWN_PROCESS_FILES, isolate: true } },
    ],
  },
});
