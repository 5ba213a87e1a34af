/**
 * The POST of a create and its resends (docs/exactly-once.md): an order's POST is held open past its
 * attempt while the listing delay runs, and a failure that may have created the task is reconciled.
 * @module
 */
import {
  APIConnectionError,
  APIUserAbortError,
  connectionErrorAfter,
  TaskCreationOutcomeUnknownError,
} from '../../core/errors.js';
import type { RequestOptions } from '../../core/options.js';
import { sleep } from '../../internal/abort.js';
import type { ResourceContext } from '../../internal/context.js';
import { type FailureOutcome, failureOutcome } from '../../internal/failure.js';
import { retryRules } from '../../internal/retry.js';
import { sendOperation } from '../../internal/send-operation.js';
import type { TaskWithId } from '../../schemas/task.js';
import type { TaskCreateParams } from '../../schemas/task-create.js';
import type { CreateRun } from './create-run.js';
import { HELD_POST_MAX_MS, type HeldPost, holdPost } from './held-post.js';
import { findTasksOfOrder } from './order-lookup.js';
import { decide, nameOf, RECONCILING_ABORTED, soleTaskOf } from './order-reconciliation.js';
import type { PriorAttempt, SendGuard } from './prior-attempt.js';

/** One POST; a 2xx without a task id throws `ResponseValidationError` (then reconciled). */
async function send(
  context: ResourceContext,
  body: TaskCreateParams,
  options: RequestOptions,
  run: CreateRun,
): Promise<TaskWithId> {
  const response = await sendOperation(context, 'tasks.create', { body }, options, { call: run.call });
  return response.data.data.createTask;
}

/** How a create of an order sends: `tasks.create`'s options. */
export interface HowToSend {
  readonly repeatDelivery: boolean;
  /** Look the order up before the first POST (no `prior`). */
  readonly lookupFirst: boolean;
  /** `resendUnknownOutcome`: no lookup for a `prior`. */
  readonly resendUnknown: boolean;
}

/**
 * The create, its resends and reconciliations. Looked up before the first POST with `prior` (unless
 * `resendUnknown`), else when `lookupFirst`: a task found is returned (several: `DuplicateTaskError`),
 * or, for a repeat delivery, is an earlier delivery (as is `earlierTaskId`, the one its record remembers),
 * left out of every later lookup.
 */
export async function createOnce(
  context: ResourceContext,
  body: TaskCreateParams,
  options: RequestOptions,
  prior: PriorAttempt | undefined,
  run: CreateRun,
  how: HowToSend,
  guard?: SendGuard,
  earlierTaskId?: string,
): Promise<TaskWithId> {
  const { orderNumber } = body;
  const { logger } = context;
  const retries = retryRules(options.maxRetries ?? context.maxRetries);
  let lookupFirst = how.lookupFirst;
  if (prior?.ofEarlierDelivery === true && how.repeatDelivery) {
    // A first delivery's attempt: once its task would be listed, it is one of the earlier deliveries.
    run.stage = "waiting until an earlier delivery's task would be listed";
    // Nothing was sent: an abort is the caller's (APIUserAbortError), the deadline's error says so.
    await sleep(Math.max(0, prior.decidableAt - Date.now()), run.signal).catch((reason: unknown) => {
      throw run.expired
        ? run.error()
        : new APIUserAbortError({ method: 'POST', url: 'tasks', cause: reason });
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
    else
      found = await decide(context, orderNumber, firstAttemptAt, options, undefined, run, how.repeatDelivery);
  } else if (lookupFirst && orderNumber !== undefined) {
    run.stage = 'looking the order up';
    // Nothing was sent: a failure is the lookup's own error, or the deadline's (no POST sent).
    const tasks = await findTasksOfOrder(context, orderNumber, options, run).catch((error: unknown) => {
      throw run.expired ? run.error() : error;
    });
    // The record's task too: created less than the listing delay ago, it may not be listed yet.
    if (how.repeatDelivery) earlier = new Set([...tasks.map((task) => task.id ?? ''), earlierTaskId ?? '']);
    else found = soleTaskOf(tasks, orderNumber);
  }
  if (found !== undefined) {
    logger.info(`Order ${orderNumber} was looked up before sending; its task exists: ${found.id}`);
    return found;
  }
  // Sent after a lookup found nothing of an unanswered POST: a late commit of that POST is looked for.
  if (prior?.unanswered === true && !how.repeatDelivery) run.resentSince = firstAttemptAt;
  let held: HeldPost | undefined;
  try {
    for (let resend = 0; ; resend++) {
      run.stage = 'sending the POST';
      const leftMs = run.requestOptions(options).totalTimeout ?? Number.POSITIVE_INFINITY;
      const attemptMs = Math.min(options.timeout ?? context.attemptTimeoutMs, leftMs);
      await guard?.beforeAttempt(resend > 0, attemptMs);
      // The POST does not follow the caller's signal once sent (held-post.ts): an abort before it, it is not
      // sent.
      if (run.signal.aborted) {
        if (run.expired) throw run.error();
        if (run.posts === 0 && !run.mayHaveCreated) {
          throw new APIUserAbortError({ method: 'POST', url: 'tasks', cause: run.signal.reason });
        }
        await run.sleep(0, RECONCILING_ABORTED);
      }
      const sendOptions = run.requestOptions(options);
      run.posts++;
      run.posting = true;
      // Until it ends: the deadline's error then says when a retry can decide, not "at once".
      const decidableBefore = run.decidableAt;
      run.decidableAt = Math.max(run.decidableAt ?? 0, Date.now() + attemptMs + context.listingDelayMs);
      let failure: unknown;
      if (orderNumber === undefined) {
        try {
          return await send(context, body, sendOptions, run);
        } catch (error) {
          failure = error;
        } finally {
          run.posting = false;
        }
      } else {
        // Held open past `attemptMs`, whatever the caller does: its late answer still decides.
        const holdMs = Math.max(context.listingDelayMs, HELD_POST_MAX_MS);
        held = holdPost(context, run, sendOptions, attemptMs, holdMs, (sent) =>
          send(context, body, sent, run),
        );
        const answered = await held.attempt;
        if ('task' in answered) return answered.task;
        failure = answered.failure;
        if (held.open) guard?.holdingOpen(held);
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
        if (resend >= retries.limit)
          throw failure instanceof APIConnectionError ? connectionErrorAfter(failure, resend + 1) : failure;
        const wait = retries.delayMs(resend + 1, failure);
        logger.warn(
          `Create of order ${orderNumber ?? '(none)'} was not processed (${nameOf(failure)}); sending it again in ${wait} ms`,
        );
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
      const last = outcome === 'ambiguous' && resend >= retries.limit;
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
        logger.info(
          `Create of order ${orderNumber} failed (${nameOf(failure)}) but the task exists: ${task.id}`,
        );
        held?.abandon();
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
      if (resend >= retries.limit) {
        throw new TaskCreationOutcomeUnknownError({
          orderNumber,
          reason: `no task is listed after ${resend + 1} POST(s), the last failing with ${nameOf(failure)}`,
          cause: failure,
          ...run.retryAfter(),
        });
      }
      logger.warn(`Order ${orderNumber} not listed after ${nameOf(failure)}; sending it again`);
      if (!how.repeatDelivery) run.resentSince = firstAttemptAt;
    }
  } catch (error) {
    // A POST still open is left to the lease's holder, which waits for its answer (`holdingOpen`).
    if (held?.open === true && guard === undefined) held.abandon();
    throw error;
  }
}
