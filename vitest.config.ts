import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

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
    include: ['test/**/*.test.ts', 'packages/tools/test/**/*.test.ts', 'examples/shop/test/**/*.test.ts'],
    environment: 'node',
    // Fails the run when a process a test started is still alive at its end.
    globalSetup: ['test/support/no-leftover-processes.ts', 'test/support/source-bundles.ts'],
    testTimeout: 20_000,
    // Two test files per core (at most 8): most of the suite waits on sockets, servers and child
    // processes, so one file per core (vitest's default is cores − 1) leaves the cores idle. Under
    // CI=true one file per core: the multi-process tests (several-instances, intake-kill) share the
    // cores with fewer neighbours, and a CI run's minutes matter less than its verdict.
    maxWorkers: process.env.CI === 'true' ? availableParallelism() : Math.min(8, 2 * availableParallelism()),
    typecheck: { enabled: false },
  },
});
