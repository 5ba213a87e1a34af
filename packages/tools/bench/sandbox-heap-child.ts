/**
 * A sandbox in a process of its own for `sandbox-memory.ts`: started with `--expose-gc`, it tells its
 * addresses over IPC, answers `'heap'` with its heap in use after two full collections, and `'close'` by
 * closing and exiting. `argv[2]`: the webhook receiver's URL, if any.
 * @module
 */
import { startSandbox } from '../src/sandbox.js';

const collect = (globalThis as { gc?: () => void }).gc;
if (collect === undefined) throw new Error('run with --expose-gc');
const webhookUrl = process.argv[2];
const sandbox = await startSandbox({ port: 0, ...(webhookUrl ? { webhookUrl } : {}) });
process.send?.({ baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, sellerId: sandbox.sellerId });
process.on('message', (message) => {
  if (message === 'heap') {
    collect();
    collect();
    process.send?.({ heapUsed: process.memoryUsage().heapUsed });
  } else if (message === 'close') {
    void sandbox.close().then(() => process.exit(0));
  }
});
