/**
 * The test run's global setup (vitest.config.ts `globalSetup`) that starts `npm run build` as the run
 * starts when a file the tests load from the build is missing (a fresh clone has no `dist/`), so that it
 * runs beside the first, long files rather than inside one of the later files that load `dist/` while the
 * others wait for its lock (`ensureBuilt`, test/support/build.ts). Not awaited: the files start at once,
 * and each file that loads `dist/` still takes the lock and checks its own files, so it waits for this
 * build or finds it done. A build that fails here is left to those files to report; the teardown waits
 * for it. A build that is only older than the sources is left to those files (a run of one file after an
 * edit does not build), and so is watch mode (`vitest` without `run`).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { builtAfterSource, ensureBuilt } from './build.js';
import { ROOT } from './root.js';

/** The built files the tests check before loading `dist/` (each newer than both packages' sources). */
export const BUILT_FILES = [
  'dist/index.js',
  'dist/index.cjs',
  'dist/index.d.ts',
  'dist/testing.d.ts',
  'dist/webhooks.js',
  'dist/webhooks.cjs',
  'dist/openapi.json',
  'packages/tools/dist/cli-main.js',
  'packages/tools/dist/dashboard/dashboard.js',
] as const;

export default function setup(project: TestProject): () => Promise<void> {
  const missing = BUILT_FILES.some((file) => !existsSync(join(ROOT, file)));
  if (project.config.watch || !missing) return async () => {};
  const building = ensureBuilt(() => BUILT_FILES.every((file) => builtAfterSource(file))).catch(() => {});
  return async () => {
    await building;
  };
}
