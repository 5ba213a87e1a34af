/**
 * `delivery-task openapi`: prints the service contract as OpenAPI 3.1 JSON on standard output.
 *
 * It builds the document in process from the SDK's zod schemas, with the same two functions that
 * `npm run build` uses to write `dist/openapi.json` (the `delivery-task-sdk/openapi.json` export), so
 * the output is byte for byte that file, whether the command runs from the built `dist/cli.js` or from
 * source, and there is one source of truth: the schemas. (Reading the shipped file instead would need
 * a different relative path from source and from `dist/`, and would print a stale file after a schema
 * change until the next build.) Building takes a few milliseconds.
 * @module
 */
import { parseArgs } from 'node:util';
import { buildOpenApiDocument, serializeOpenApiDocument } from '../openapi/document.js';
import type { CliCommand } from './io.js';

const USAGE = `Usage: delivery-task openapi

Prints the Delivery Task Service contract as an OpenAPI 3.1 document (JSON) on standard output: the
same document as the package's delivery-task-sdk/openapi.json.

  delivery-task openapi > openapi.json
`;

/**
 * Runs `delivery-task openapi [--json] [--help]` (`--json` is accepted and changes nothing: the output
 * is JSON). Exit code 0, or 2 for an unknown option or argument (the usage goes to standard error).
 */
export const openapiCommand: CliCommand = async (argv, io) => {
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
  io.stdout(serializeOpenApiDocument(buildOpenApiDocument()));
  return 0;
};
