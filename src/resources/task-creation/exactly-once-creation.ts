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
} from '../../core/errors.js';
import { OPERATIONS, requestOf } from '../../core/operations.js';
import type { RequestOptions, TaskCreateOptions } from '../../core/options.js';
import { DeadlineReason, sleep } from '../../internal/abort.js';
import { call, type ResourceContext } from '../../internal/context.js';
import { CreateDeadline } from '../../internal/create-deadline.js';
import { type FailureOutcome, failureOutcome } from '../../internal/failure.js';
import { checkRequestOptions } from '../../internal/request-checks.js';
import { retryDelayMs } from '../../internal/retry.js';
import { readServiceTime, timeDriftOf } from '../../schemas/service-time.js';
import type { Task, TaskWithId } from '../../schemas/task.js';
import type { TaskCreateParams } from '../../schemas/task-create.js';
import { type HeldPost, holdPost, stillUnanswered, untilEnded } from './held-post.js';
import { createUnderLease } from './order-lease.js';
import { findTasksOfOrder } from './order-lookup.js';
import type { PriorAttempt, SendGuard } from './prior-attempt.js';

const RECONCILING_ABORTED = 'the caller aborted during reconciliation';

/** One create in flight, shared by every caller of the same (seller, orderNumber). */
interface Flight {
  readonly promise: Promise<TaskWithId>;
  /** Fired when the last caller aborts. */
  readonly controller: AbortController;
  /** What a joiner's own deadline error says. */
  readonly run: CreateDeadline;
  callers: number;
}

/** How long a create waits for another process creating the same order, by default, ms. */
export const DEFAULT_LEASE_WAIT_MS = 120_000;

const flights = new Map<string, Flight>();

/**
 * Creates a task at most once; `body` is already validated.
 * @throws the rejection as is, {@link DuplicateTaskError}, {@link TaskCreationOutcomeUnknownError} (also at
 * `totalTimeout` once a POST may have reached the service; `APIConnectionTimeoutError` before),
 * `RequestValidationError` for bad options, {@link APIUserAbortError} before anything was sent.
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
    lookupFirst = context.lookupFirst ?? (repeatDelivery || !context.sharedStore),
    totalTimeout: ownTotalTimeout,
    ...requestOptions
  } = options;
  const callerSignal = options.signal;
  if (callerSignal?.aborted) {
    return Promise.reject(new APIUserAbortError({ method: 'POST', url: 'tasks', cause: callerSignal.reason }));
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
    const run = new CreateDeadline(undefined, totalTimeout, callerSignal);
    return withDeadline(createOnce(context, body, requestOptions, undefined, run, how), run);
  }
  const key = `${context.sellerScope}\n${orderNumber}\n${repeatDelivery}`;
  const flight = flights.get(key);
  // A flight every caller left is ending: a new create does not take its outcome, it starts its own.
  if (flight === undefined || flight.controller.signal.aborted) {
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
        (prior, guard, earlierTaskId) =>
          createOnce(context, body, flightOptions, prior, run, how, guard, earlierTaskId),
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

/** `work`, or the deadline's error as soon as it passes: a store call that never answers cannot hold the caller. */
function withDeadline(work: Promise<TaskWithId>, run: CreateDeadline): Promise<TaskWithId> {
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
    flight.promise.finally(stop).then(resolve, reject);
  });
}

/** One POST; a 2xx without a task id throws `ResponseValidationError` (then reconciled). */
async function send(context: ResourceContext, body: TaskCreateParams, options: RequestOptions): Promise<TaskWithId> {
  const response = await call(
    context,
    OPERATIONS['tasks.create'].response,
    { ...requestOf('tasks.create'), body },
    options,
  );
  return response.data.createTask;
}

/** How a create of an order sends: `tasks.create`'s options. */
interface HowToSend {
  readonly repeatDelivery: boolean;
  /** Look the order up before the first POST (no `prior`). */
  readonly lookupFirst: boolean;
  /** `resendUnknownOutcome`: no lookup for a `prior`. */
  readonly resendUnknown: boolean;
}

/**
 * The one task a reconciliation found, or `undefined`.
 * @throws {DuplicateTaskError} for several; {@link TaskCreationOutcomeUnknownError} for one without an id.
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

/** For log lines: a message may quote the service. */
function nameOf(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

/**
 * The create, its resends and reconciliations. Looked up before the first POST with `prior` (unless
 * `resendUnknown`), else when `lookupFirst`: a task found is returned (several: `DuplicateTaskError`),
 * or, for a repeat delivery, is an earlier delivery (as is `earlierTaskId`, the one its record remembers),
 * left out of every later lookup.
 */
async function createOnce(
  context: ResourceContext,
  body: TaskCreateParams,
  options: RequestOptions,
  prior: PriorAttempt | undefined,
  run: CreateDeadline,
  how: HowToSend,
  guard?: SendGuard,
  earlierTaskId?: string,
): Promise<TaskWithId> {
  const { orderNumber } = body;
  const { logger } = context;
  const maxRetries = options.maxRetries ?? context.maxRetries;
  let lookupFirst = how.lookupFirst;
  if (prior?.ofEarlierDelivery === true && how.repeatDelivery) {
    // A first delivery's attempt: once its task would be listed, it is one of the earlier deliveries.
    run.stage = "waiting until an earlier delivery's task would be listed";
    // Nothing was sent: an abort is the caller's (APIUserAbortError), the deadline's error says so.
    await sleep(Math.max(0, prior.decidableAt - Date.now()), run.signal).catch((reason: unknown) => {
      throw run.expired ? run.error() : new APIUserAbortError({ method: 'POST', url: 'tasks', cause: reason });
    });
    prior = undefined;
    lookupFirst = true;
  }
  const firstAttemptAt = prior?.since ?? Date.now();
  // A repeat delivery's earlier deliveries, by id; `undefined`: not known (then no task found is its own).
  let earlier: Set<string> | undefined;
  let found: TaskWithId | undefined;
  if (prior !== undefined && orderNumber !== undefined) {
    run.mayHaveCreated = true;
    run.decidableAt = Math.max(run.decidableAt ?? 0, prior.decidableAt);
    if (how.resendUnknown) logger.warn(`Order ${orderNumber}: resendUnknownOutcome`);
    else found = await decide(context, orderNumber, firstAttemptAt, options, undefined, run, how.repeatDelivery);
  } else if (lookupFirst && orderNumber !== undefined) {
    run.stage = 'looking the order up';
    // Nothing was sent: a failure is the lookup's own error, or the deadline's (no POST sent).
    const tasks = await findTasksOfOrder(context, orderNumber, options, run).catch((error: unknown) => {
      throw run.expired ? run.error() : error;
    });
    // The record's task too: created less than the listing delay ago, it may not be listed yet.
    if (how.repeatDelivery) earlier = new Set([...tasks.map((task) => task.id ?? ''), earlierTaskId ?? '']);
    else found = theTask(tasks, orderNumber);
  }
  if (found !== undefined) {
    logger.info(`Order ${orderNumber} was looked up before sending; its task exists: ${found.id}`);
    return found;
  }
  let held: HeldPost | undefined;
  try {
    for (let resend = 0; ; resend++) {
      run.stage = 'sending the POST';
      const leftMs = run.requestOptions(options).totalTimeout ?? Number.POSITIVE_INFINITY;
      const attemptMs = Math.min(options.timeout ?? context.attemptTimeoutMs, leftMs);
      await guard?.beforeAttempt(resend > 0, attemptMs);
      const sendOptions = run.requestOptions(options);
      run.posts++;
      run.posting = true;
      // Until it ends: the deadline's error then says when a retry can decide, not "at once".
      const decidableBefore = run.decidableAt;
      run.decidableAt = Math.max(run.decidableAt ?? 0, Date.now() + attemptMs + context.listingDelayMs);
      let failure: unknown;
      if (orderNumber === undefined) {
        try {
          return await send(context, body, sendOptions);
        } catch (error) {
          failure = error;
        } finally {
          run.posting = false;
        }
      } else {
        // Held open past `attemptMs` while the listing delay runs: its late answer still decides.
        held = holdPost(context, run, sendOptions, attemptMs, context.listingDelayMs, (sent) =>
          send(context, body, sent),
        );
        const answered = await held.attempt;
        if ('task' in answered) return answered.task;
        failure = answered.failure;
        if (held.open) {
          const open = held;
          guard?.holdingOpen(() => open.abandon());
        }
      }
      const outcome: FailureOutcome = failureOutcome(failure);
      if (outcome === 'rejected') throw failure;
      if (outcome === 'ambiguous' || outcome === 'committed' || outcome === 'aborted') {
        run.mayHaveCreated = true;
        run.decidableAt = Date.now() + context.listingDelayMs;
      } else run.decidableAt = decidableBefore;
      if (outcome === 'aborted') {
        throw new TaskCreationOutcomeUnknownError({
          orderNumber,
          reason: 'the caller aborted while the request was in flight',
          cause: failure,
          ...run.retryAfter(),
        });
      }
      if (run.expired) throw run.error();
      if (outcome === 'not-sent' || outcome === 'not-processed') {
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
      // After the last POST allowed, waiting out the listing delay could only end in the same error.
      const last = outcome === 'ambiguous' && resend >= maxRetries;
      const task = await decide(
        context,
        orderNumber,
        firstAttemptAt,
        options,
        failure,
        run,
        how.repeatDelivery,
        earlier,
        !last || held?.open === true,
        held,
      );
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
  } finally {
    // A POST abandoned while open may still reach the service: the order is decidable only later.
    if (held?.abandon()) run.decidableAt = Math.max(run.decidableAt ?? 0, Date.now() + context.listingDelayMs);
  }
}

/**
 * A listed task's `createdAt` in ms (a time without a zone read as UTC), `NaN` when unreadable: then the
 * task counts as in the window. A time not as the contract writes it is reported as drift.
 */
function createdAtOf(context: ResourceContext, task: Task, index: number): number {
  const read = readServiceTime(task.createdAt);
  const drift = timeDriftOf(task.createdAt, read);
  if (drift !== undefined)
    context.reportDrift('tasks.create', [{ path: `tasks.${index}.createdAt`, ...drift }], undefined);
  return read?.ms ?? Number.NaN;
}

/**
 * Looks the order up at once, and again at `run.decidableAt` if that is ahead: the task created since
 * `since` (less `windowSkewMs`), or `undefined` (none at all then: the order may be sent). A repeat
 * delivery leaves its `earlier` deliveries out; without them it cannot tell its own task from theirs.
 * @throws {DuplicateTaskError}; {@link TaskCreationOutcomeUnknownError} for tasks only before the window
 * (or a repeat delivery's, not told apart), a failed lookup, or a decision past the deadline (`retryAfterMs`).
 */
async function decide(
  context: ResourceContext,
  orderNumber: string,
  since: number,
  options: RequestOptions,
  failure: unknown,
  run: CreateDeadline,
  repeatDelivery: boolean,
  earlier?: ReadonlySet<string>,
  waitForListing = true,
  held?: HeldPost,
): Promise<TaskWithId | undefined> {
  const windowStart = since - context.reconciliation.windowSkewMs;
  for (;;) {
    run.stage = 'looking the order up';
    const lookedAt = Date.now();
    let found: Task[];
    try {
      found = (await findTasksOfOrder(context, orderNumber, options, run)).filter(
        // A task listed without an id cannot be told from the earlier deliveries: it stays (and, having
        // no id, is never returned nor taken as absent).
        (task) => typeof task.id !== 'string' || task.id === '' || !earlier?.has(task.id),
      );
    } catch (error) {
      if (run.expired) throw run.error();
      throw new TaskCreationOutcomeUnknownError({
        orderNumber,
        reason: `looking the order up failed with ${nameOf(error)}`,
        cause: error,
        ...run.retryAfter(),
      });
    }
    if (repeatDelivery && found.some((task) => typeof task.id !== 'string' || task.id === '')) {
      throw new TaskCreationOutcomeUnknownError({
        orderNumber,
        reason:
          "the order's tasks are listed without ids: this repeat delivery's task cannot be told from the earlier ones; nothing was sent again",
        cause: failure,
      });
    }
    const inWindow = found.filter((task, index) => !(createdAtOf(context, task, index) < windowStart));
    // Several new tasks for a repeat delivery: another create of the order ran meanwhile (not a duplicate).
    const told = repeatDelivery ? earlier !== undefined && inWindow.length === 1 : inWindow.length > 0;
    if (told) return theTask(inWindow, orderNumber);
    if (found.length > 0) {
      throw new TaskCreationOutcomeUnknownError({
        orderNumber,
        reason: `tasks of this order number ${inWindow.length > 1 ? 'appeared since this repeat delivery began; which is its own cannot be told' : inWindow.length > 0 ? "may be this repeat delivery's earlier ones" : 'predate this create'}; nothing was sent again`,
        candidateTaskIds: found.map((task) => task.id ?? '(no id)'),
        cause: failure,
      });
    }
    const decidableAt = run.decidableAt ?? 0;
    if (lookedAt >= decidableAt) {
      if (held?.abandon()) throw stillUnanswered(context, orderNumber, run, failure);
      return undefined;
    }
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
    if (held?.open !== true) {
      await run.sleep(Math.max(0, wait), RECONCILING_ABORTED, failure);
      continue;
    }
    const late = await untilEnded(held, Math.max(0, wait), run, RECONCILING_ABORTED, failure);
    if (late === undefined) continue;
    if ('task' in late) {
      context.logger.info(`Order ${orderNumber}: the POST was answered after its timeout: ${late.task.id}`);
      return late.task;
    }
    if (late.abandoned) throw stillUnanswered(context, orderNumber, run, late.failure);
    if (failureOutcome(late.failure) === 'rejected') throw late.failure;
    // Its connection ended only now: the service may have processed it until then.
    run.decidableAt = Math.max(decidableAt, late.at + context.listingDelayMs);
  }
}
