/**
 * `delivery-task sandbox`: the stateful mock served over HTTP with `/_sandbox/` control endpoints.
 * @module
 */
import type { CliCommand } from './io.js';

/** Runs `delivery-task sandbox [options]` until the process is asked to stop. */
export const sandboxCommand: CliCommand = async (_argv, io) => {
  io.stderr('delivery-task sandbox: not built yet\n');
  return 1;
};
