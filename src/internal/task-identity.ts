/**
 * Whether a task read back by `GET tasks/{id}` is the task asked for (README "Receiving webhooks": the
 * release rule rests on it). A read of another task, or of one without an id, is a failed read, never
 * data: `tasks.retrieve` and the webhook confirmation both refuse it.
 * @module
 */
import { ResponseValidationError, type ValidationIssue } from '../core/errors.js';
import type { ClientRedactor } from './seller.js';

/** An id as quoted in a message: JSON text, cut at 128 characters (a service's ids have 24). */
function quoted(id: string): string {
  return JSON.stringify(id.length > 128 ? `${id.slice(0, 128)}…` : id);
}

/**
 * The issue that makes `task` not the task `asked` for, or `undefined` when it is: each of `id` and `_id`
 * that holds a non-empty string must equal `asked` exactly (no decoding: `asked` is what the caller
 * passed, the id is compared as the service wrote it), and at least one must.
 */
export function taskIdIssue(asked: string, task: object): ValidationIssue | undefined {
  const record = task as Record<string, unknown>;
  let found = false;
  // `id` is the API form, `_id` the webhook form.
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
 * `task` when it is the task `asked` for (with `id` set when it came as `_id` only).
 * @throws {ResponseValidationError} with the {@link taskIdIssue} of `answer` (the GET that read it),
 * message and body redacted by `redactor`.
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
