/**
 * A create's POST held open past its attempt timeout (docs/several-instances.md "Stalls"). The attempt
 * still ends at `timeout` for the create (an `APIConnectionTimeoutError`, an unknown outcome), but the
 * request is not aborted: a request held outside the service (a full accept queue, TCP retransmissions)
 * or in it (a stalled process) reaches it whenever it does, aborted or not, and only an open connection
 * still carries its answer. Neither the caller's abort nor its deadline closes it: the create sends again
 * only once the connection ended, and the order's lease stays held (its `until` ahead of the POST) until
 * then, so its late answer is recorded as the order's task. Only {@link HELD_POST_MAX_MS} past its
 * attempt, or a lease the store no longer renews, abandons it (`TaskCreationOutcomeUnknownError`).
 * @module
 */
import { APIConnectionTimeoutError, TaskCreationOutcomeUnknownError } from '../../core/errors.js';
import { requestOf } from '../../core/operations.js';
import type { RequestOptions } from '../../core/options.js';
import { deadline } from '../../internal/abort.js';
import type { ResourceContext } from '../../internal/context.js';
import type { TaskWithId } from '../../schemas/task.js';
import type { CreateRun } from './create-run.js';

/**
 * How long a POST stays open past its attempt timeout at most, ms (at least `listingDelayMs`): a service
 * that answers later than this is not waited for, and the order is decidable a listing delay after.
 */
export const HELD_POST_MAX_MS = 120_000;

/** How a held POST ended: its task, or its failure (`abandoned`: this create gave up on it while open). */
export type PostOutcome =
  | { readonly task: TaskWithId }
  | { readonly failure: unknown; readonly abandoned: boolean; readonly at: number };

/** A POST whose connection may outlive its attempt timeout. */
export interface HeldPost {
  /**
   * The answer within the attempt timeout, or an `APIConnectionTimeoutError` failure (the POST stays open).
   */
  readonly attempt: Promise<PostOutcome>;
  /** How it ended: answered, its connection closed, or abandoned. */
  readonly ended: Promise<PostOutcome>;
  /** True until it ended. */
  readonly open: boolean;
  /** How it ended, once it did (read after an await that it may have ended during). */
  readonly outcome: PostOutcome | undefined;
  /**
   * Aborts it if still open.
   * @returns true if it was open: it may still reach the service (a resend then needs `listingDelayMs` more).
   */
  abandon(): boolean;
}

/**
 * Sends `post` with its own abort, not `options.signal` (the caller leaving does not close it); `attemptMs`
 * ends the attempt, not the request, which stays open for `holdMs` more at most (then
 * `APIConnectionTimeoutError`, counted as abandoned). `run.posting` stays true while it is open.
 */
export function holdPost(
  context: ResourceContext,
  run: CreateRun,
  options: RequestOptions,
  attemptMs: number,
  holdMs: number,
  post: (options: RequestOptions) => Promise<TaskWithId>,
): HeldPost {
  const controller = new AbortController();
  let open = true;
  let abandoned = false;
  // Nor does the create's deadline: the request is bounded by its own timeout only.
  const { totalTimeout: _createDeadline, ...requestOptions } = options;
  const ended = post({ ...requestOptions, signal: controller.signal, timeout: attemptMs + holdMs }).then(
    (task): PostOutcome => ({ task }),
    (failure: unknown): PostOutcome => ({
      failure,
      abandoned: abandoned || failure instanceof APIConnectionTimeoutError,
      at: Date.now(),
    }),
  );
  let outcome: PostOutcome | undefined;
  void ended.then((ending) => {
    outcome = ending;
    open = false;
    run.posting = false;
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const attempt = Promise.race([
    ended,
    new Promise<PostOutcome>((resolve) => {
      timer = setTimeout(() => {
        const { path, method } = requestOf('tasks.create');
        const url = context.redactor.text(new URL(path, context.transport.baseUrl).href);
        resolve({
          failure: new APIConnectionTimeoutError({ method, url, attempts: 1, timeoutMs: attemptMs }),
          abandoned: false,
          at: Date.now(),
        });
      }, attemptMs);
    }),
  ]);
  void attempt.then(() => clearTimeout(timer));
  return {
    attempt,
    ended,
    get open() {
      return open;
    },
    get outcome() {
      return outcome;
    },
    abandon() {
      if (!open) return false;
      abandoned = true;
      controller.abort();
      return true;
    },
  };
}

/**
 * Waits `ms` (`undefined`: as long as it stays open, which its own timeout bounds) or until `held` ended,
 * whichever is first: how it ended, or `undefined` after `ms`.
 * @throws what {@link CreateRun.sleep} throws when the create's deadline passes or its callers left.
 */
export async function untilEnded(
  held: HeldPost,
  ms: number | undefined,
  run: CreateRun,
  reason: string,
  cause: unknown,
): Promise<PostOutcome | undefined> {
  const limit =
    ms === undefined ? { signal: run.signal, clear: () => {} } : deadline(ms, 'attempt', run.signal);
  let outcome: PostOutcome | undefined;
  try {
    outcome = await Promise.race([
      held.ended,
      new Promise<undefined>((resolve) => {
        if (limit.signal.aborted) resolve(undefined);
        else limit.signal.addEventListener('abort', () => resolve(undefined), { once: true });
      }),
    ]);
  } finally {
    limit.clear();
  }
  // Its callers left or the deadline passed: that is the outcome, unless the task came with it.
  if (run.signal.aborted && (outcome === undefined || !('task' in outcome)))
    await run.sleep(0, reason, cause);
  return outcome;
}

/**
 * A POST abandoned while open ({@link HELD_POST_MAX_MS}, or uncovered by the lease): it may still create the
 * task.
 */
export function stillUnanswered(
  context: ResourceContext,
  orderNumber: string,
  run: CreateRun,
  cause: unknown,
): TaskCreationOutcomeUnknownError {
  run.decidableAt = Math.max(run.decidableAt ?? 0, Date.now() + context.listingDelayMs);
  return new TaskCreationOutcomeUnknownError({
    orderNumber,
    reason: `its POST was abandoned unanswered, its connection open: it may still create the task; nothing was sent again`,
    cause,
    ...run.retryAfter(),
  });
}
