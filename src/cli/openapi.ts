/**
 * `delivery-task openapi`: prints the service contract as OpenAPI 3.1.
 * @module
 */
import type { CliCommand } from './io.js';

/** Runs `delivery-task openapi`. */
export const openapiCommand: CliCommand = async (_argv, io) => {
  io.stderr('delivery-task openapi: not built yet\n');
  return 1;
};
