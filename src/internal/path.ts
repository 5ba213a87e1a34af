/** Builds request paths; every caller-supplied segment goes through {@link taskPath}. */
import { RequestValidationError } from '../errors.js';

/**
 * The relative path of one task, `tasks/<id>`, with the id URL-encoded so it can never become a path
 * of its own (`../wallet-balance` → `tasks/..%2Fwallet-balance`).
 * @throws {RequestValidationError} for an id that is not a non-empty string, or is `.` / `..` (which URL
 * parsers collapse into the parent path whatever their encoding).
 */
export function taskPath(id: unknown, operation: string): string {
  if (typeof id !== 'string' || id.trim() === '') {
    throw new RequestValidationError(operation, [
      { path: 'id', message: 'Expected a non-empty task id string', code: 'invalid_type' },
    ]);
  }
  if (id === '.' || id === '..') {
    throw new RequestValidationError(operation, [
      { path: 'id', message: 'A task id cannot be "." or ".."', code: 'custom' },
    ]);
  }
  return `tasks/${encodeURIComponent(id)}`;
}
