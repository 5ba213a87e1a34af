/** Whether a task read by `GET tasks/{id}` is the task asked for (README "Receiving webhooks"). @module */
import { ResponseValidationError, type ValidationIssue } from '../core/errors.js';
import type { ClientRedactor } from './client-internals.js';

function quoted(id: string): string {
  return JSON.stringify(id.length > 128 ? `${id.slice(0, 128)}…` : id);
}

/**
 * Why `task` is not the task `asked` for, or `undefined`: each of `id`/`_id` set must equal `asked`, and one
 * must be.
 */
export function taskIdIssue(asked: string, task: object): ValidationIssue | undefined {
  const record = task as Record<string, unknown>;
  let found = false;
  for (const field of ['id', '_id']) {
    const value = record[field];
    if (typeof value !== 'string' || value === '') continue;
    found = true;
    if (value !== asked) {
      return {
        path: field,
        message: `Expected task ${quoted(asked)}, received ${quoted(value)}`,
        code: 'task_mismatch',
      };
    }
  }
  if (found) return undefined;
  return { path: 'id', message: `Expected task ${quoted(asked)}, received no id`, code: 'invalid_type' };
}

/**
 * `task` when it is the task `asked` for (`id` set from `_id` when needed).
 * @throws {ResponseValidationError} with its {@link taskIdIssue}, redacted.
 */
export function assertTaskId<T extends object>(
  asked: string,
  task: T,
  answer: { readonly method: string; readonly url: string; readonly status: number; readonly body: unknown },
  redactor: ClientRedactor | undefined,
): T & { id: string } {
  const issue = taskIdIssue(asked, task);
  if (issue !== undefined) {
    throw new ResponseValidationError({
      method: answer.method,
      url: answer.url,
      status: answer.status,
      issues: [{ ...issue, message: redactor?.text(issue.message) ?? issue.message }],
      body: redactor?.value(answer.body) ?? answer.body,
    });
  }
  return (task as { id?: unknown }).id === asked ? (task as T & { id: string }) : { ...task, id: asked };
}
