/**
 * Exactly-once task creation (README "Exactly-once creation"; OpenAPI `createTask`; the failure table and
 * reconciliation rules in docs/exactly-once.md). Concurrent creates of one (seller, `orderNumber`) share
 * one flight; across processes the flight runs under the order's lease (`order-lease.ts`); `totalTimeout`
 * bounds the whole create (`internal/create-deadline.ts`).
 * @module
 */
import {
  APIConnectionError,
  APIUserAbortError,
  connectionErrorAfter,
  type DeliveryError,
  DuplicateTaskError,
  TaskCreationOutcomeUnknownError,
} from '../core/errors.js';
import { OPERATIONS, requestOf } from '../core/operations.js';
import type { RequestOptions, TaskCreateOptions } from '../core/options.js';
import { DeadlineReason } from '../internal/abort.js';
import { call, type ResourceContext } from '../internal/context.js';
import { CreateDeadline } from '../internal/create-deadline.js';
import { type FailureOutcome, failureOutcome } from '../internal/failure.js';
import { checkRequestOptions } from '../internal/request-checks.js';
import { retryDelayMs } from '../internal/retry.js';
import type { Task, TaskWithId } from '../schemas/task.js';
import type { TaskCreateParams } from '../schemas/task-create.js';
import { createUnderLease } from './order-lease.js';
import { findTasksOfOrder } from './order-lookup.js';
import type { PriorAttempt, SendGuard } from './prior-attempt.js';

/** Why a create ended when its caller aborted while it waited to look the order up or to send again. */
const RECONCILING_ABORTED = 'the caller aborted during reconciliation';

/** One create in flight, shared by every caller of the same (seller, orderNumber). */
interface Flight {
  readonly promise: Promise<TaskWithId>;
  /** Aborts the request; fired when the last caller waiting on the flight aborts. */
  readonly controller: AbortController;
  /** The flight's deadline and progress: what a joiner's own deadline error says. */
  readonly run: CreateDeadline;
  /** Callers still waiting. */
  callers: number;
}

/** How long a create waits for another process creating the same order, by default, ms. */
export const DEFAULT_LEASE_WAIT_MS = 120_000;

/** Creates in flight in this process, by seller scope and order number. */
const flights = new Map<string, Flight>();

/**
 * Creates a task at most once; see this module's documentation. `body` is already validated.
 * @throws the rejection as is (e.g. `InsufficientBalanceError`), {@link DuplicateTaskError},
 * {@link TaskCreationOutcomeUnknownError} (cause: the last failure; also at `totalTimeout` when a POST
 * may have reached the service), `APIConnectionTimeoutError` at `totalTimeout` when no POST the service
 * could have processed was sent, `RequestValidationError` for bad options (nothing sent), or
 * {@link APIUserAbortError} when the caller aborts before anything was sent.
 */
export function createTask(
  context: ResourceContext,
  body: TaskCreateParams,
  options: TaskCreateOptions,
): Promise<TaskWithId> {
  const { orderNumber } = body;
  const {
    repeatDelivery = false,
    resendUnknownOutcome = false,
    totalTimeout: ownTotalTimeout,
    ...requestOptions
  } = options;
  const callerSignal = options.signal;
  if (callerSignal?.aborted) {
    return Promise.reject(new APIUserAbortError({ method: 'POST', url: 'tasks', cause: callerSignal.reason }));
  }
  try {
    // Checked before the deadline is armed and the lease taken: a bad option sends nothing.
    checkRequestOptions('tasks.create', options);
  } catch (error) {
    return Promise.reject(error);
  }
  // Each request of the create gets what is left of this deadline as its own `totalTimeout`.
  const totalTimeout = ownTotalTimeout ?? context.totalTimeoutMs;
  if (orderNumber === undefined) {
    const run = new CreateDeadline(undefined, totalTimeout, callerSignal);
    return withDeadline(createOnce(context, body, requestOptions, undefined, run), run);
  }
  const key = `${context.sellerScope}\n${orderNumber}\n${repeatDelivery}`;
  const flight = flights.get(key);
  if (flight === undefined) {
    const controller = new AbortController();
    const run = new CreateDeadline(orderNumber, totalTimeout, controller.signal);
    const flightOptions = { ...requestOptions, signal: controller.signal };
    const promise = withDeadline(
      createUnderLease(
        context,
        orderNumber,
        {
          repeatDelivery,
          waitMs: totalTimeout ?? DEFAULT_LEASE_WAIT_MS,
          attemptTimeoutMs: requestOptions.timeout ?? context.attemptTimeoutMs,
          signal: controller.signal,
          run,
        },
        (prior, guard) => createOnce(context, body, flightOptions, prior, run, guard, resendUnknownOutcome),
      ),
      run,
    );
    const started: Flight = { promise, controller, run, callers: 0 };
    flights.set(key, started);
    const leave = () => {
      if (flights.get(key) === started) flights.delete(key);
    };
    promise.then(leave, leave);
    return follow(started, callerSignal, orderNumber, undefined);
  }
  context.logger.debug(`Create of order ${orderNumber} joins the one already in flight`);
  return follow(flight, callerSignal, orderNumber, totalTimeout);
}

/**
 * `work`, or the deadline's error as soon as the deadline passes, whichever comes first: whatever the
 * create is waiting on (a store call that never answers included) cannot hold its caller longer. The
 * work itself stops at the deadline too (its requests and waits follow it) and records its outcome.
 */
function withDeadline(work: Promise<TaskWithId>, run: CreateDeadline): Promise<TaskWithId> {
  if (run.totalTimeoutMs === undefined) return work;
  return new Promise<TaskWithId>((resolve, reject) => {
    const onAbort = () => {
      // The task exists (its outcome is still being written to the store): it is the create's result.
      if (run.created !== undefined) resolve(run.created);
      else if (run.expired) reject(run.error());
    };
    run.signal.addEventListener('abort', onAbort, { once: true });
    const settle = () => {
      run.signal.removeEventListener('abort', onAbort);
      run.clear();
    };
    work.then(
      (task) => {
        settle();
        resolve(task);
      },
      (error: unknown) => {
        settle();
        reject(error);
      },
    );
  });
}

/**
 * The flight's outcome for one caller, who may stop waiting with their own signal, or (a caller that
 * joined the flight) at their own `totalTimeoutMs`.
 */
function follow(
  flight: Flight,
  signal: AbortSignal | undefined,
  orderNumber: string,
  totalTimeoutMs: number | undefined,
): Promise<TaskWithId> {
  flight.callers++;
  if (signal === undefined && totalTimeoutMs === undefined) return flight.promise;
  return new Promise<TaskWithId>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    /** This caller stops waiting: with `error` at once, or (the last caller, aborting) with the flight's own. */
    const leave = (reason: unknown, error: DeliveryError | undefined) => {
      stop();
      flight.callers--;
      if (flight.callers > 0) {
        reject(
          error ??
            new TaskCreationOutcomeUnknownError({
              orderNumber,
              reason:
                'the caller aborted while the create was in flight (it goes on for the other callers of this order)',
              cause: reason,
            }),
        );
        return;
      }
      // The last caller left: stop the request. The flight settles with its own typed error.
      flight.controller.abort(reason);
      if (error !== undefined) reject(error);
    };
    const onAbort = () => leave(signal?.reason, undefined);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (totalTimeoutMs !== undefined) {
      timer = setTimeout(() => {
        const { created } = flight.run;
        if (created === undefined) leave(new DeadlineReason('total', totalTimeoutMs), flight.run.error(totalTimeoutMs));
        else {
          stop();
          resolve(created);
        }
      }, totalTimeoutMs);
    }
    flight.promise.then(
      (task) => {
        stop();
        resolve(task);
      },
      (error: unknown) => {
        stop();
        reject(error);
      },
    );
  });
}

/**
 * Sends the create once (no transport retries) and returns the created task, unwrapped from
 * `data.createTask`. A 2xx without a task id throws `ResponseValidationError` (in every validation mode):
 * the create is then reconciled, never sent again blindly.
 */
async function send(context: ResourceContext, body: TaskCreateParams, options: RequestOptions): Promise<TaskWithId> {
  const response = await call(
    context,
    OPERATIONS['tasks.create'].response,
    { ...requestOf('tasks.create'), body },
    options,
  );
  return response.data.createTask;
}

/**
 * The one task a reconciliation found, `undefined` when it found none.
 * @throws {DuplicateTaskError} when it found several.
 * @throws {TaskCreationOutcomeUnknownError} when the one it found was listed without an id: the order
 * exists (nothing is sent again) but the task cannot be returned.
 */
function theTask(found: readonly Task[], orderNumber: string): TaskWithId | undefined {
  if (found.length > 1) {
    throw new DuplicateTaskError({ orderNumber, taskIds: found.map((task) => task.id ?? '(no id)') });
  }
  const [task] = found;
  if (task === undefined) return undefined;
  if (typeof task.id === 'string' && task.id !== '') return task as TaskWithId;
  throw new TaskCreationOutcomeUnknownError({
    orderNumber,
    reason: 'the order was found, but the service listed its task without an id',
  });
}

/** An error's class name, for log lines (its message may quote the service). */
function nameOf(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

/**
 * The create, its resends and reconciliations, for one flight. With `prior` (an earlier attempt began
 * sending then and recorded no outcome), the order is looked up first and sent only if absent, unless
 * `resendUnknown`. Every request and wait ends by `run`'s deadline, and then throws its error.
 */
async function createOnce(
  context: ResourceContext,
  body: TaskCreateParams,
  options: RequestOptions,
  prior: PriorAttempt | undefined,
  run: CreateDeadline,
  guard?: SendGuard,
  resendUnknown = false,
): Promise<TaskWithId> {
  const { orderNumber } = body;
  const { logger } = context;
  const maxRetries = options.maxRetries ?? context.maxRetries;
  const firstAttemptAt = prior?.since ?? Date.now();
  if (prior !== undefined && orderNumber !== undefined) {
    run.mayHaveCreated = true;
    run.decidableAt = Math.max(run.decidableAt ?? 0, prior.decidableAt);
    if (resendUnknown) {
      logger.warn(`Order ${orderNumber}: resendUnknownOutcome`);
    } else {
      const task = await decide(context, orderNumber, firstAttemptAt, options, undefined, run);
      if (task !== undefined) {
        logger.info(`Order ${orderNumber} was looked up before sending; its task exists: ${task.id}`);
        return task;
      }
    }
  }
  for (let resend = 0; ; resend++) {
    let failure: unknown;
    run.stage = 'sending the POST';
    // Under a lease: still held, and the order's record says until when this attempt may be in flight
    // (its attempt timeout, or less when the deadline comes first).
    const leftMs = run.requestOptions(options).totalTimeout ?? Number.POSITIVE_INFINITY;
    await guard?.beforeAttempt(resend > 0, Math.min(options.timeout ?? context.attemptTimeoutMs, leftMs));
    const sendOptions = run.requestOptions(options);
    run.posts++;
    run.posting = true;
    try {
      return await send(context, body, sendOptions);
    } catch (error) {
      failure = error;
    } finally {
      run.posting = false;
    }
    const outcome: FailureOutcome = failureOutcome(failure);
    if (outcome === 'rejected') throw failure;
    if (outcome === 'ambiguous' || outcome === 'committed' || outcome === 'aborted') {
      run.mayHaveCreated = true;
      // The service may list this POST's task up to listingDelayMs after it ended.
      run.decidableAt = Date.now() + context.listingDelayMs;
    }
    if (outcome === 'aborted') {
      throw new TaskCreationOutcomeUnknownError({
        orderNumber,
        reason: 'the caller aborted while the request was in flight',
        cause: failure,
        ...run.retryAfter(),
      });
    }
    // The POST ended with the deadline (it was sent with what was left of it): the deadline's error.
    if (run.expired) throw run.error();
    if (outcome === 'not-sent' || outcome === 'not-processed') {
      // Each resend was its own request of one attempt: the error says how many were made.
      if (resend >= maxRetries)
        throw failure instanceof APIConnectionError ? connectionErrorAfter(failure, resend + 1) : failure;
      const wait = retryDelayMs(resend + 1, (failure as { headers?: Headers }).headers);
      logger.warn(`Create was not processed (${nameOf(failure)}); sending it again in ${wait} ms`);
      run.stage = 'waiting before sending the POST again';
      await run.sleep(wait, RECONCILING_ABORTED, failure);
      continue;
    }
    if (orderNumber === undefined) {
      throw new TaskCreationOutcomeUnknownError({
        orderNumber,
        reason: `the POST failed with ${nameOf(failure)}`,
        cause: failure,
      });
    }
    // After the last POST allowed, one lookup at once: waiting out the listing delay could only end in
    // this same error (nothing more may be sent), so the error says when a retry can decide instead.
    const last = outcome === 'ambiguous' && resend >= maxRetries;
    const task = await decide(context, orderNumber, firstAttemptAt, options, failure, run, !last);
    if (task !== undefined) {
      logger.info(`Create of order ${orderNumber} failed (${nameOf(failure)}) but the task exists: ${task.id}`);
      return task;
    }
    if (outcome === 'committed') {
      throw new TaskCreationOutcomeUnknownError({
        orderNumber,
        reason: 'the answer to an accepted POST could not be used, and no task is listed',
        cause: failure,
        retryAfterMs: 0,
      });
    }
    if (resend >= maxRetries) {
      throw new TaskCreationOutcomeUnknownError({
        orderNumber,
        reason: `no task is listed after ${resend + 1} POST(s), the last failing with ${nameOf(failure)}`,
        cause: failure,
        ...run.retryAfter(),
      });
    }
    logger.warn(`Order ${orderNumber} not listed after ${nameOf(failure)}; sending it again`);
  }
}

/** `createdAt` in ms since the epoch; `NaN` when absent or unreadable. */
const createdAtOf = (task: Task): number => (task.createdAt === undefined ? Number.NaN : Date.parse(task.createdAt));

/**
 * Decides an unknown outcome by looking the order up: at once, and once more at `run.decidableAt`
 * (when the service has listed any task a POST made) if that is still ahead and within the deadline.
 * Returns the order's task (created since `since`, less `windowSkewMs`), or `undefined` when no task
 * carries the order number at all at or after `run.decidableAt`: then the order may be sent.
 * @throws {DuplicateTaskError} for several tasks in the window; {@link TaskCreationOutcomeUnknownError}
 * for tasks found only outside the window (`candidateTaskIds`), for a lookup that failed or used up its
 * list requests, and when the decision needs more time than the deadline leaves (`retryAfterMs`).
 */
async function decide(
  context: ResourceContext,
  orderNumber: string,
  since: number,
  options: RequestOptions,
  failure: unknown,
  run: CreateDeadline,
  waitForListing = true,
): Promise<TaskWithId | undefined> {
  const windowStart = since - context.reconciliation.windowSkewMs;
  for (;;) {
    run.stage = 'looking the order up';
    const lookedAt = Date.now();
    let found: Task[];
    try {
      found = await findTasksOfOrder(context, orderNumber, options, run);
    } catch (error) {
      if (run.expired) throw run.error();
      throw new TaskCreationOutcomeUnknownError({
        orderNumber,
        reason: `looking the order up failed with ${nameOf(error)}`,
        cause: error,
        ...run.retryAfter(),
      });
    }
    const inWindow = found.filter((task) => !(createdAtOf(task) < windowStart));
    if (inWindow.length > 0) return theTask(inWindow, orderNumber);
    if (found.length > 0) {
      throw new TaskCreationOutcomeUnknownError({
        orderNumber,
        reason: 'tasks of this order number predate this create; nothing was sent again',
        candidateTaskIds: found.map((task) => task.id ?? '(no id)'),
        cause: failure,
      });
    }
    const decidableAt = run.decidableAt ?? 0;
    if (lookedAt >= decidableAt) return undefined;
    const wait = decidableAt - Date.now();
    if (!waitForListing) return undefined;
    if (wait >= run.remaining()) {
      throw new TaskCreationOutcomeUnknownError({
        orderNumber,
        reason: 'no task is listed yet, and listingDelayMs ends past the totalTimeout',
        cause: failure,
        retryAfterMs: wait,
      });
    }
    await run.sleep(Math.max(0, wait), RECONCILING_ABORTED, failure);
  }
}
