/** Builds request paths from the operations table's templates; every task id is checked and encoded here. */
import { RequestValidationError } from '../core/errors.js';
import { isWellFormedText } from '../schemas/text.js';

/** Longest task id sent (the service's are 24 hex digits). */
export const MAX_TASK_ID_LENGTH = 128;

/**
 * `id` URL-encoded as one path segment (the operations table's `{id}`): it cannot become a path of its
 * own.
 * @throws {RequestValidationError} (path `id`) for an id that is empty, not a string, over
 * {@link MAX_TASK_ID_LENGTH}, `.` / `..`, or holds an unpaired surrogate.
 */
function taskIdSegment(id: unknown, operation: string): string {
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
  return encodeURIComponent(id);
}

/**
 * `template` (`/tasks/{id}`) relative to the base URL, each `{param}` of `params` checked and encoded as a
 * task id ({@link taskIdSegment}: the service's path parameters are task ids).
 * @throws {RequestValidationError} (path `id`); nothing is sent.
 */
export function pathOf(
  template: string,
  params: Readonly<Record<string, unknown>>,
  operation: string,
): string {
  return template
    .slice(1)
    .replace(/\{(\w+)\}/g, (_, param: string) => taskIdSegment(params[param], operation));
}
