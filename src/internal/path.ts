/** Builds request paths; every caller-supplied segment goes through {@link taskPath}. */
import { RequestValidationError } from '../core/errors.js';
import { isWellFormedText } from '../schemas/text.js';

/** Longest task id sent (the service's ids are 24 hex digits; webhooks bound theirs at 128 too). */
export const MAX_TASK_ID_LENGTH = 128;

/**
 * The relative path of one task, `tasks/<id>`, with the id URL-encoded so it can never become a path
 * of its own (`../wallet-balance` → `tasks/..%2Fwallet-balance`).
 * @throws {RequestValidationError} (path `id`) for an id that is not a non-empty string, is longer than
 * {@link MAX_TASK_ID_LENGTH}, is `.` / `..`
 * (which URL parsers collapse into the parent path whatever their encoding), or holds an unpaired
 * surrogate (which has no UTF-8 form: `encodeURIComponent` would throw a `URIError`).
 */
export function taskPath(id: unknown, operation: string): string {
  if (typeof id !== 'string' || id.trim() === '') {
    throw new RequestValidationError(operation, [
      { path: 'id', message: 'Expected a non-empty task id string', code: 'invalid_type' },
    ]);
  }
  if (id.length > MAX_TASK_ID_LENGTH) {
    throw new RequestValidationError(operation, [
      {
        path: 'id',
        message: `A task id has at most ${MAX_TASK_ID_LENGTH} characters, got ${id.length}`,
        code: 'too_big',
      },
    ]);
  }
  if (id === '.' || id === '..') {
    throw new RequestValidationError(operation, [
      { path: 'id', message: 'A task id cannot be "." or ".."', code: 'custom' },
    ]);
  }
  if (!isWellFormedText(id)) {
    throw new RequestValidationError(operation, [
      {
        path: 'id',
        message: 'A task id cannot hold unpaired surrogates (it has no UTF-8 form)',
        code: 'invalid_format',
      },
    ]);
  }
  return `tasks/${encodeURIComponent(id)}`;
}
