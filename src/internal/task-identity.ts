/**
 * Whether a task read back by `GET tasks/{id}` is the task asked for (README "Receiving webhooks": the
 * release rule rests on it). A read of another task, or of one without an id, is a failed read, never
 * data: `tasks.retrieve` and the webhook confirmation both refuse it.
 * @module
 */
import type { ValidationIssue } from '../core/errors.js';

/** The fields a task read back may carry its id in: `id` (the API form), `_id` (the webhook form). */
const ID_FIELDS = ['id', '_id'] as const;

/** Longest id quoted in a message; a longer one is cut (a service's ids are 24 characters). */
const MAX_QUOTED = 128;

function quoted(id: string): string {
  return JSON.stringify(id.length > MAX_QUOTED ? `${id.slice(0, MAX_QUOTED)}…` : id);
}

/**
 * The issue that makes `task` not the task `asked` for, or `undefined` when it is: each of `id` and `_id`
 * that holds a non-empty string must equal `asked` exactly (no decoding: `asked` is what the caller
 * passed, the id is compared as the service wrote it), and at least one must.
 */
export function taskIdIssue(asked: string, task: object): ValidationIssue | undefined {
  const record = task as Record<string, unknown>;
  let found = false;
  for (const field of ID_FIELDS) {
    const value = record[field];
    if (typeof value !== 'string' || value === '') continue;
    found = true;
    if (value !== asked) {
      return {
        path: field,
        message: `Expected the task asked for (${quoted(asked)}), received task ${quoted(value)}`,
        code: 'task_mismatch',
      };
    }
  }
  if (found) return undefined;
  return {
    path: 'id',
    message: `Expected the id of the task asked for (${quoted(asked)}), received none (id, or _id)`,
    code: 'invalid_type',
  };
}
