/**
 * The operator commands of `delivery-task`: `tasks list|get|create|watch`, `estimate`, `branches`,
 * `wallet balance|top-up`.
 * @module
 */
import type { CliCommand } from './io.js';

/** Runs one operator command; `argv` starts with the command words (`['tasks', 'list', …]`). */
export const operatorCommand: CliCommand = async (_argv, io) => {
  io.stderr('delivery-task: operator commands are not built yet\n');
  return 1;
};
