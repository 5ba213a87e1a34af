/**
 * Folders a test file makes under the system's temporary folder, removed when the file ends
 * (test/support/file-end.ts, after the file's own hooks). A worker process runs file after file
 * (`isolate: false`) and is ended by vitest without its `exit` event, so a removal on exit would leave them
 * behind.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_RUN_ENV } from './no-leftover-processes.js';

const made = new Set<string>();

/**
 * A new empty folder `<temporary folder>/<prefix><run mark>-<6 random characters>`, removed when the test
 * file ends; the test run's mark (no-leftover-processes.ts) lets the run's end find one left behind.
 */
export function temporaryFolder(prefix: string): string {
  const mark = process.env[TEST_RUN_ENV];
  const folder = mkdtempSync(join(tmpdir(), mark === undefined ? prefix : `${prefix}${mark}-`));
  made.add(folder);
  return folder;
}

/** Removes every folder {@link temporaryFolder} made in this process and not removed yet. */
export function removeTemporaryFolders(): void {
  for (const folder of made) rmSync(folder, { recursive: true, force: true });
  made.clear();
}
