import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: {
      'delivery-task-sdk/testing': fileURLToPath(new URL('./src/testing/index.ts', import.meta.url)),
      'delivery-task-sdk/redis': fileURLToPath(new URL('./src/redis.ts', import.meta.url)),
      'delivery-task-sdk': fileURLToPath(new URL('./src/index.ts', import.meta.url)),
    },
  },
  test: {
    include: ['test/**/*.test.ts', 'examples/shop/test/**/*.test.ts'],
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
  },
});
