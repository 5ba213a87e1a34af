/**
 * The `delivery-task` executable: wires {@link runCli} to the process.
 * @module
 */
import { runCli } from './main.js';

const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
const code = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  signal: stop.signal,
  stderrIsTTY: process.stderr.isTTY === true,
});
process.exitCode = code;
