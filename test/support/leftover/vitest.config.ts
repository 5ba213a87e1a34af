/** The run of test/testing/leftover-processes.test.ts: one leaking test, the project's global setup. */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['leak.fixture.ts'],
    globalSetup: [fileURLToPath(new URL('../no-leftover-processes.ts', import.meta.url))],
  },
});
