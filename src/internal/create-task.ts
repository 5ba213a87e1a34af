/**
 * Exactly-once task creation (design § Reliability).
 *
 * The service has no idempotency key and every task costs a delivery fee, so a create is never sent
 * again blindly. After a failure:
 *
 * | failure | outcome | what happens |
 * |---|---|---|
 * | 4xx other than 408 and 429 (400, 401, 402 low balance, 404, 422, …) | rejected | thrown as is |
 * | 429 | not processed | waits (`Retry-After`) and resends, within `maxRetries` |
 * | connection refused, DNS failure, TLS failure | never sent | resends at once, within `maxRetries` |
 * | timeout, connection reset, 408, 5xx | unknown | reconciles, then resends only if no task is found |
 * | 2xx whose body cannot be read | created | reconciles to return the task; never resends |
 *
 * Reconciliation lists the seller's tasks with a literal search for the `orderNumber`
 * (`ignoreRegex=true`), newest first, keeps exact matches created since the first attempt (less a
 * clock-skew allowance), and checks a few times with growing waits: one match is the created task,
 * several throw {@link DuplicateTaskError}, none allows one resend (and, if that one fails the same
 * way, another reconciliation, within `maxRetries` resends). Without an `orderNumber`, an unknown
 * outcome throws {@link TaskCreationOutcomeUnknownError} at once.
 *
 * Limits: two processes creating the same order at the same moment can both create it (nothing on
 * the service side serialises them); keep one writer per order.
 */
import {
  APIConnectionError,
  APIError,
  APIUserAbortError,
  DeliveryError,
  DuplicateTaskError,
  ResponseValidationError,
  TaskCreationOutcomeUnknownError,
} from '../errors.js';
import type { Task } from '../schemas/task.js';
import { sleep } from './abort.js';
import type { ReconciliationOptions } from './context.js';
import { provablyNotSent, type RequestOptions } from './http.js';
import type { LevelLogger } from './logger.js';
import { backoffMs, retryDelayMs } from './retry.js';

/** What {@link createTaskExactlyOnce} needs from the client. */
export interface CreateTaskSteps {
  /** Sends the create once (no transport retries) and returns the created task. */
  send(options: RequestOptions): Promise<Task>;
  /** Lists tasks whose `orderNumber` equals the given one exactly, newest first, created at or after `since` (ms epoch). */
  findByOrderNumber(orderNumber: string, since: number, options: RequestOptions): Promise<Task[]>;
  logger: LevelLogger;
  reconciliation: ReconciliationOptions;
  /** Resends allowed (never-sent, rate-limited, or reconciled as absent). */
  maxRetries: number;
}

type Failure =
  | { kind: 'rejected' }
  | { kind: 'retry-now'; wait: number }
  | { kind: 'unknown'; committed: boolean }
  | { kind: 'aborted' };

function classify(error: unknown, resend: number): Failure {
  if (error instanceof APIUserAbortError) return { kind: 'aborted' };
  if (error instanceof APIError) {
    if (error.status === 429) return { kind: 'retry-now', wait: retryDelayMs(resend, error.headers) };
    if (error.status === 408 || error.status >= 500) return { kind: 'unknown', committed: false };
    return { kind: 'rejected' };
  }
  if (error instanceof APIConnectionError) {
    return provablyNotSent(error)
      ? { kind: 'retry-now', wait: backoffMs(resend) }
      : { kind: 'unknown', committed: false };
  }
  // A 2xx arrived (so the task was created) but its body could not be read or did not match.
  if (error instanceof ResponseValidationError)
    return { kind: 'unknown', committed: error.status >= 200 && error.status < 300 };
  return { kind: 'rejected' };
}

function describeFailure(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Creates a task at most once; see this module's table.
 * @throws the rejection as is (e.g. {@link InsufficientBalanceError}), {@link DuplicateTaskError},
 * {@link TaskCreationOutcomeUnknownError} (cause: the last failure), or {@link APIUserAbortError}
 * when the caller aborts before anything was sent.
 */
export async function createTaskExactlyOnce(
  orderNumber: string | undefined,
  options: RequestOptions,
  steps: CreateTaskSteps,
): Promise<Task> {
  const firstAttemptAt = Date.now();
  const { logger } = steps;
  if (options.signal?.aborted) {
    throw new APIUserAbortError({ method: 'POST', url: 'tasks', cause: options.signal.reason });
  }
  for (let resend = 0; ; resend++) {
    let failure: unknown;
    try {
      return await steps.send(options);
    } catch (error) {
      failure = error;
    }
    const outcome = classify(failure, resend + 1);
    if (outcome.kind === 'rejected') throw failure;
    if (outcome.kind === 'aborted') {
      throw new TaskCreationOutcomeUnknownError({
        orderNumber,
        reason: 'the caller aborted while the request was in flight',
        cause: failure,
      });
    }
    if (outcome.kind === 'retry-now') {
      if (resend >= steps.maxRetries) throw failure;
      logger.warn(`Create was not processed (${describeFailure(failure)}); sending it again in ${outcome.wait} ms`);
      await waitOrAbort(outcome.wait, options.signal, orderNumber, failure);
      continue;
    }
    if (orderNumber === undefined) {
      throw new TaskCreationOutcomeUnknownError({ orderNumber, reason: describeFailure(failure), cause: failure });
    }
    const found = await reconcile(orderNumber, firstAttemptAt, options, steps, failure);
    if (found.length === 1 && found[0]) {
      logger.info(
        `Create of order ${orderNumber} failed (${describeFailure(failure)}) but the task exists: ${found[0].id ?? ''}`,
      );
      return found[0];
    }
    if (found.length > 1) {
      throw new DuplicateTaskError({ orderNumber, taskIds: found.map((task) => task.id ?? '(no id)') });
    }
    if (outcome.committed) {
      throw new TaskCreationOutcomeUnknownError({
        orderNumber,
        reason: `the service answered success but the response could not be read (${describeFailure(failure)}), and the task was not found`,
        cause: failure,
      });
    }
    if (resend >= steps.maxRetries) {
      throw new TaskCreationOutcomeUnknownError({
        orderNumber,
        reason: `no task found after ${resend + 1} attempt${resend === 0 ? '' : 's'}; last failure: ${describeFailure(failure)}`,
        cause: failure,
      });
    }
    logger.warn(
      `Create of order ${orderNumber} failed (${describeFailure(failure)}) and no task was found; sending it again`,
    );
  }
}

async function waitOrAbort(
  ms: number,
  signal: AbortSignal | undefined,
  orderNumber: string | undefined,
  failure: unknown,
) {
  try {
    await sleep(ms, signal);
  } catch (reason) {
    throw new TaskCreationOutcomeUnknownError({
      orderNumber,
      reason: 'the caller aborted during reconciliation',
      cause: reason ?? failure,
    });
  }
}

/** Looks for the task a few times with growing waits; stops at the first non-empty answer. */
async function reconcile(
  orderNumber: string,
  firstAttemptAt: number,
  options: RequestOptions,
  steps: CreateTaskSteps,
  failure: unknown,
): Promise<Task[]> {
  const { checks, intervalMs, windowSkewMs } = steps.reconciliation;
  for (let check = 0; check < checks; check++) {
    if (check > 0) await waitOrAbort(intervalMs * 2 ** (check - 1), options.signal, orderNumber, failure);
    let found: Task[];
    try {
      found = await steps.findByOrderNumber(orderNumber, firstAttemptAt - windowSkewMs, options);
    } catch (error) {
      const reason = error instanceof DeliveryError ? error.message : String(error);
      throw new TaskCreationOutcomeUnknownError({
        orderNumber,
        reason: `create failed (${describeFailure(failure)}) and looking the order up failed too (${reason})`,
        cause: failure,
      });
    }
    if (found.length > 0) return found;
  }
  return [];
}
