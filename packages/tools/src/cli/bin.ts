/**
 * The `delivery-task` executable: wires {@link runCli} to the process. `delivery-task mcp` takes a
 * short path: an agent host starts it and waits for its tool list, so it loads the MCP command alone
 * (in the built package, `dist/cli-mcp.js`), not every other command's modules.
 * @module
 */
import module from 'node:module';
import type { CliIo } from './io.js';

// Node's on-disk cache of compiled code (Node ≥ 22.1; TypeScript's tsc does the same): a second start
// skips compiling the executable's files (a fifth of `delivery-task mcp`'s start on the machine measured).
module.enableCompileCache?.();

const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
const io: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  signal: stop.signal,
  stderrIsTTY: process.stderr.isTTY === true,
};
const argv = process.argv.slice(2);
process.exitCode =
  argv[0] === 'mcp'
    ? await (await import('./mcp.js')).mcpCommand(argv.slice(1), io)
    : await (await import('./main.js')).runCli(argv, io);
