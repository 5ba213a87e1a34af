/**
 * Set up before each test file (vitest.config.ts `setupFiles`): at the file's end, the late-commit checks
 * its creates left waiting (120 s and more) are stopped, so none reaches a later file that runs in the
 * same worker process (the `shared` project) with a request of its own; the temporary folders it made
 * with `temporaryFolder` are removed; and the file fails when Node warned, while it ran, that listeners
 * piled up on one emitter (`MaxListenersExceededWarning`: a listener added per call and never removed).
 */
import { afterAll } from 'vitest';
import { stopLateCommitChecks } from '../../src/resources/task-creation/late-commit.js';
import { removeTemporaryFolders } from './temporary-folders.js';

/** The process's listener warnings, recorded by one `warning` listener however many files it runs. */
const WARNINGS = Symbol.for('delivery-task-sdk.test.listener-warnings');
const processState = globalThis as { [WARNINGS]?: string[] };
function listenerWarnings(): string[] {
  const recorded = processState[WARNINGS];
  if (recorded !== undefined) return recorded;
  const seen: string[] = [];
  processState[WARNINGS] = seen;
  process.on('warning', (warning) => {
    if (warning.name === 'MaxListenersExceededWarning') seen.push(warning.message);
  });
  return seen;
}
const warnings = listenerWarnings();
const warnedBefore = warnings.length;

afterAll(async () => {
  stopLateCommitChecks();
  removeTemporaryFolders();
  // Node emits a warning on the next tick.
  await new Promise((resolve) => setImmediate(resolve));
  const warned = warnings.slice(warnedBefore);
  if (warned.length > 0) throw new Error(`Listeners piled up while this file ran: ${warned.join('; ')}`);
});
