/**
 * `delivery-task openapi`: prints the installed SDK's `delivery-task-sdk/openapi.json` (the OpenAPI 3.1
 * document `npm run build` writes from the SDK's zod schemas) on standard output.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import type { CliCommand } from './io.js';

const USAGE = `Usage: delivery-task openapi

Prints the Delivery Task Service contract as an OpenAPI 3.1 document (JSON) on standard output: the
same document as the package's delivery-task-sdk/openapi.json.

  delivery-task openapi > openapi.json
`;

/** The path of the installed `delivery-task-sdk/openapi.json`, resolved through the package's exports. */
export function installedOpenApiPath(): string {
  return createRequire(import.meta.url).resolve('delivery-task-sdk/openapi.json');
}

/**
 * `delivery-task openapi` reading the document from `locate()`: exit code 1 naming the file when it
 * cannot be read.
 */
export function openapiCommandFrom(locate: () => string): CliCommand {
  return async (argv, io) => {
    const code = parseOpenapiArgs(argv, io);
    if (code !== undefined) return code;
    let path = 'delivery-task-sdk/openapi.json';
    try {
      path = locate();
      io.stdout(await readFile(path, 'utf8'));
      return 0;
    } catch (error) {
      const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
      io.stderr(
        `delivery-task openapi: cannot read ${path} (is delivery-task-sdk installed and built?): ${reason}\n`,
      );
      return 1;
    }
  };
}

/**
 * Runs `delivery-task openapi [--json] [--help]` (`--json` is accepted and changes nothing: the output
 * is JSON). Exit code 0, or 2 for an unknown option or argument (the usage goes to standard error).
 */
export const openapiCommand: CliCommand = openapiCommandFrom(installedOpenApiPath);

/** Reads the options: an exit code when the command is done (help, bad option), else `undefined`. */
function parseOpenapiArgs(argv: readonly string[], io: Parameters<CliCommand>[1]): number | undefined {
  let help: boolean | undefined;
  try {
    ({
      values: { help },
    } = parseArgs({
      args: [...argv],
      options: { help: { type: 'boolean', short: 'h' }, json: { type: 'boolean' } },
      allowPositionals: false,
      strict: true,
    }));
  } catch (error) {
    io.stderr(`delivery-task openapi: ${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  if (help) {
    io.stdout(USAGE);
    return 0;
  }
  return undefined;
}
