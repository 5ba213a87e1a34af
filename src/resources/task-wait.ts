/**
 * `tasks.waitForStatus`: `GET tasks/{id}` read until the task's status is one of those asked for, what a
 * lost webhook would have said (docs/webhooks.md).
 * @module
 */
import {
  APIUserAbortError,
  RequestValidationError,
  StatusWaitTimeoutError,
  type ValidationIssue,
} from '../core/errors.js';
import type { RequestOptions } from '../core/options.js';
import { deadline, sleep } from '../internal/abort.js';
import type { ResourceContext } from '../internal/context.js';
import { isRetryable } from '../internal/failure.js';
import { MAX_TIMER_MS } from '../internal/options.js';
import { pathOf } from '../internal/path.js';
import { checkIntegerOption } from '../internal/request-checks.js';
import type { AnyTaskStatus, TaskWithId } from '../schemas/task.js';
import { request } from './request.js';

/** Options of `tasks.waitForStatus`. */
export interface WaitForStatusOptions {
  /** Rejects the wait with `APIUserAbortError`. */
  signal?: AbortSignal;
  /** Time between reads in ms, an integer from 1 to 2 147 483 647. Default 5000. */
  intervalMs?: number;
  /**
   * Longest wait in ms before `StatusWaitTimeoutError`, reads included, an integer from 1 to 2 147 483 647.
   * Default: the client's `totalTimeout`, else 600 000 (10 min).
   */
  timeout?: number;
  request?: Omit<RequestOptions, 'signal'>;
}

/**
 * Reads task `id` every `intervalMs` until its status is one of `statuses`; a read that fails retryably is
 * logged and read again.
 * @throws {StatusWaitTimeoutError} after `options.timeout`; {@link APIUserAbortError};
 * {@link NotFoundError}; {@link RequestValidationError} for an empty id, no statuses, bad intervals.
 */
export async function waitForStatus(
  context: ResourceContext,
  id: string,
  statuses: AnyTaskStatus | readonly AnyTaskStatus[],
  options: WaitForStatusOptions,
): Promise<TaskWithId> {
  const wanted: readonly string[] = typeof statuses === 'string' ? [statuses] : statuses;
  const { intervalMs = 5000, timeout = context.totalTimeoutMs ?? 600_000, signal } = options;
  const issues: ValidationIssue[] = [];
  if (wanted.length === 0 || wanted.some((status) => typeof status !== 'string' || status === '')) {
    issues.push({ path: 'statuses', message: 'Expected one or more status strings', code: 'invalid_type' });
  }
  checkIntegerOption(issues, 'intervalMs', intervalMs, 1, MAX_TIMER_MS);
  checkIntegerOption(issues, 'timeout', timeout, 1, MAX_TIMER_MS);
  if (issues.length > 0) throw new RequestValidationError('tasks.waitForStatus', issues);
  const path = pathOf('/tasks/{id}', { id }, 'tasks.waitForStatus');
  const limit = deadline(timeout, 'total', signal);
  const combined = limit.signal;
  let lastStatus: string | undefined;
  const timedOut = () =>
    new StatusWaitTimeoutError({ taskId: id, statuses: wanted, lastStatus, timeoutMs: timeout });
  try {
    for (;;) {
      try {
        const task = await request(
          context,
          'tasks.retrieve',
          { id },
          { ...options.request, signal: combined },
        );
        lastStatus = task.status;
        if (task.status !== undefined && wanted.includes(task.status)) return task;
      } catch (error) {
        if (signal?.aborted) throw error;
        if (limit.signal.aborted) throw timedOut();
        if (!isRetryable(error)) throw error;
        context.logger.warn(
          `waitForStatus: reading task ${id} failed, trying again: ${(error as Error).message}`,
        );
      }
      try {
        await sleep(intervalMs, combined);
      } catch {
        if (signal?.aborted) throw new APIUserAbortError({ method: 'GET', url: path, cause: signal.reason });
        throw timedOut();
      }
    }
  } finally {
    limit.clear();
  }
}
