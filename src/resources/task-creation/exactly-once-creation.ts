/**
 * Exactly-once task creation (README "Exactly-once creation"; OpenAPI `createTask`; the failure table and
 * reconciliation rules in docs/exactly-once.md). Concurrent creates of one (seller, `orderNumber`) share
 * one flight. Across processes the flight takes the order's lease (`order-lease.ts`), sends its POSTs
 * with `task-post.ts` under it (reconciled by `order-reconciliation.ts`), and settles the lease with the
 * outcome (`lease-holder.ts`): each is called once and returns. `totalTimeout` bounds the whole create
 * (its run, `create-run.ts`).
 * @module
 */
import { APIUserAbortError, type DeliveryError, TaskCreationOutcomeUnknownError } from '../../core/errors.js';
import type { TaskCreateOptions } from '../../core/options.js';
import { DeadlineReason } from '../../internal/abort.js';
import type { ResourceContext } from '../../internal/context.js';
import type { TracedCall } from '../../internal/http-request.js';
import { checkRequestOptions } from '../../internal/request-checks.js';
import type { TaskWithId } from '../../schemas/task.js';
import type { TaskCreateParams } from '../../schemas/task-create.js';
import { CreateRun } from './create-run.js';
import { checkForLateCommit } from './late-commit.js';
import { takeOrderLease } from './order-lease.js';
import { createOnce, type HowToSend } from './task-post.js';

/** One create in flight, shared by every caller of the same (seller, orderNumber). */
interface Flight {
  readonly promise: Promise<TaskWithId>;
  /** Fired when the last caller aborts. */
  readonly controller: AbortController;
  /** What a joiner's own deadline error says. */
  readonly run: CreateRun;
  callers: number;
}

/** How long a create waits for another process creating the same order, by default, ms. */
export const DEFAULT_LEASE_WAIT_MS = 120_000;

const flights = new Map<string, Flight>();

/**
 * Creates a task at most once; `body` is already validated; `call`: the traced call its requests belong to.
 * @throws the rejection as is, {@link DuplicateTaskError}, {@link TaskCreationOutcomeUnknownError} (also at
 * `totalTimeout` once a POST may have reached the service; `APIConnectionTimeoutError` before),
 * `RequestValidationError` for bad options, {@link APIUserAbortError} before anything was sent.
 */
export function createTask(
  context: ResourceContext,
  body: TaskCreateParams,
  options: TaskCreateOptions,
  call: TracedCall | undefined,
): Promise<TaskWithId> {
  const { orderNumber } = body;
  const {
    repeatDelivery = false,
    resendUnknownOutcome = false,
    lookupFirst = context.lookupFirst ?? (repeatDelivery || !context.sharedStore),
    totalTimeout: ownTotalTimeout,
    ...requestOptions
  } = options;
  const callerSignal = options.signal;
  if (callerSignal?.aborted) {
    return Promise.reject(
      new APIUserAbortError({ method: 'POST', url: 'tasks', cause: callerSignal.reason }),
    );
  }
  try {
    checkRequestOptions(
      'tasks.create',
      options,
      typeof lookupFirst === 'boolean'
        ? []
        : [{ path: 'options.lookupFirst', message: 'Expected a boolean', code: 'invalid_option' }],
    );
  } catch (error) {
    return Promise.reject(error);
  }
  const totalTimeout = ownTotalTimeout ?? context.totalTimeoutMs;
  const how: HowToSend = { repeatDelivery, lookupFirst, resendUnknown: resendUnknownOutcome };
  if (orderNumber === undefined) {
    const run = new CreateRun(undefined, totalTimeout, callerSignal, call);
    return withDeadline(createOnce(context, body, requestOptions, undefined, run, how), run);
  }
  const key = `${context.sellerScope}\n${orderNumber}\n${repeatDelivery}`;
  const flight = flights.get(key);
  // A flight every caller left is ending: a new create does not take its outcome, it starts its own.
  if (flight === undefined || flight.controller.signal.aborted) {
    const controller = new AbortController();
    const run = new CreateRun(orderNumber, totalTimeout, controller.signal, call);
    const flightOptions = { ...requestOptions, signal: controller.signal };
    const leaseOptions = {
      repeatDelivery,
      waitMs: totalTimeout ?? DEFAULT_LEASE_WAIT_MS,
      attemptTimeoutMs: requestOptions.timeout ?? context.attemptTimeoutMs,
      signal: controller.signal,
      run,
    };
    const promise = withDeadline(
      (async () => {
        const lease = await takeOrderLease(context, orderNumber, leaseOptions);
        if ('task' in lease) return lease.task;
        const { prior, guard, earlierTaskId } = lease;
        return lease.settle(createOnce(context, body, flightOptions, prior, run, how, guard, earlierTaskId));
      })(),
      run,
    );
    const started: Flight = { promise, controller, run, callers: 0 };
    flights.set(key, started);
    const leave = () => {
      if (flights.get(key) === started) flights.delete(key);
    };
    // A create sent again after an unanswered POST is looked up again for a late commit, whether it
    // returned a task or an error (its POST may still be answered, and the earlier one committed).
    promise.then(leave, leave).then(() => {
      if (run.resentSince !== undefined) checkForLateCommit(context, orderNumber, run.resentSince);
    });
    return follow(started, callerSignal, orderNumber, undefined);
  }
  context.logger.debug(`Create of order ${orderNumber} joins the one already in flight`);
  return follow(flight, callerSignal, orderNumber, totalTimeout);
}

/**
 * `work`, or the deadline's error as soon as it passes: a store call that never answers cannot hold the
 * caller.
 */
function withDeadline(work: Promise<TaskWithId>, run: CreateRun): Promise<TaskWithId> {
  if (run.totalTimeoutMs === undefined) return work;
  return new Promise<TaskWithId>((resolve, reject) => {
    const onAbort = () => {
      if (run.created !== undefined) resolve(run.created);
      else if (run.expired) {
        run.failedAt ??= Date.now();
        reject(run.error());
      }
    };
    run.signal.addEventListener('abort', onAbort, { once: true });
    const settle = () => {
      run.signal.removeEventListener('abort', onAbort);
      run.clear();
    };
    work.finally(settle).then(resolve, reject);
  });
}

/** The flight's outcome for one caller, who may leave on their own signal or `totalTimeoutMs`. */
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
    const leave = (reason: unknown, error: DeliveryError | undefined) => {
      stop();
      flight.callers--;
      if (flight.callers > 0) {
        reject(
          error ??
            new TaskCreationOutcomeUnknownError({
              orderNumber,
              reason: "the caller aborted; the create goes on for the order's other callers",
              cause: reason,
            }),
        );
        return;
      }
      if (error !== undefined) flight.run.failedAt ??= Date.now();
      flight.controller.abort(reason);
      if (error !== undefined) reject(error);
      // A POST in flight is not closed by the abort (held-post.ts): the caller leaves now, the flight goes
      // on.
      else if (flight.run.posting) {
        flight.run.failedAt ??= Date.now();
        reject(
          new TaskCreationOutcomeUnknownError({
            orderNumber,
            reason: 'the caller aborted while the request was in flight',
            cause: reason,
            ...flight.run.retryAfter(),
          }),
        );
      }
    };
    const onAbort = () => leave(signal?.reason, undefined);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (totalTimeoutMs !== undefined) {
      timer = setTimeout(() => {
        const { created } = flight.run;
        if (created === undefined)
          leave(new DeadlineReason('total', totalTimeoutMs), flight.run.error(totalTimeoutMs));
        else {
          stop();
          resolve(created);
        }
      }, totalTimeoutMs);
    }
    flight.promise.finally(stop).then(resolve, reject);
  });
}
