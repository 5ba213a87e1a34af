/**
 * `delivery-task`: the command-line tool of the SDK (design § Tooling). Dispatches to `sandbox`,
 * `openapi` and the operator commands.
 * @module
 */
import type { CliIo } from './io.js';
import { openapiCommand } from './openapi.js';
import { operatorCommand } from './operator.js';
import { sandboxCommand } from './sandbox.js';

/** Runs the command line `argv` (without `node` and the script) and resolves with the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'sandbox') return sandboxCommand(rest, io);
  if (command === 'openapi') return openapiCommand(rest, io);
  return operatorCommand(argv, io);
}
