/**
 * Set up before each test file (vitest.config.ts `setupFiles`): at the file's end, the late-commit checks
 * its creates left waiting (120 s and more) are stopped, so none reaches a later file that runs in the
 * same worker process (the `shared` project) with a request of its own; and the temporary folders it made
 * with `temporaryFolder` are removed.
 */
import { afterAll } from 'vitest';
import { stopLateCommitChecks } from '../../src/resources/task-creation/late-commit.js';
import { removeTemporaryFolders } from './temporary-folders.js';

afterAll(() => {
  stopLateCommitChecks();
  removeTemporaryFolders();
});
