import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

/** Every test file: the SDK's, the tools', the example shop's. */
const TESTS = ['test/**/*.test.ts', 'packages/tools/test/**/*.test.ts', 'examples/shop/test/**/*.test.ts'];

/** Test files that set `process.env.TZ` (directly, or through test/support/model-run.ts). */
const ZONED = [
  'test/model/**/*.test.ts',
  'test/resources/task-list/zoneless-times.test.ts',
  'test/webhooks/sync-order.test.ts',
];

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
    globalSetup: ['test/support/no-leftover-processes.ts'],
    testTimeout: 20_000,
    // Two test files per core (at most 8): most of the suite waits on sockets, servers and child
    // processes, so one file per core (vitest's default is cores − 1) leaves the cores idle. Under
    // CI=true one file per core: the multi-process tests (several-instances, intake-kill) share the
    // cores with fewer neighbours, and a CI run's minutes matter less than its verdict.
    maxWorkers: process.env.CI === 'true' ? availableParallelism() : Math.min(8, 2 * availableParallelism()),
    typecheck: { enabled: false },
    // Worker threads start and load faster than child processes: the whole suite took 348 s and 579 CPU-s
    // instead of 392 s and 703 in processes (2 cores). The files that set the machine's zone (TZ, which
    // Node applies to the whole process) run in processes of their own (test/support/machine-zone.ts
    // throws in a thread).
    projects: [
      {
        extends: true,
        test: {
          name: 'threads',
          pool: 'threads',
          include: TESTS,
          exclude: [...configDefaults.exclude, ...ZONED],
        },
      },
      { extends: true, test: { name: 'zoned', pool: 'forks', include: ZONED } },
    ],
  },
});
