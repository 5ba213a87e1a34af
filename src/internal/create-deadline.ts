/**
 * The deadline of one `tasks.create` (its `totalTimeout`, README "Retries and timeouts"), shared by
 * everything the create waits on: each POST and lookup (sent with what is left of it), every backoff
 * and `Retry-After` wait, the order lease and its polls, the wait until an earlier POST cannot be in
 * flight, and store calls (the flight's outcome is raced against it in `exactly-once-creation.ts`).
 *
 * It also keeps what the create has done, so the error at the deadline tells the truth:
 * `TaskCreationOutcomeUnknownError` when a POST of the order may have reached the service (this call's,
 * an earlier attempt's recorded in the order's record, or another process's that holds the lease), else
 * `APIConnectionTimeoutError` saying that no POST was sent, or that the service processed none of the
 * POSTs sent.
 */
import { APIConnectionTimeoutError, type DeliveryError, TaskCreationOutcomeUnknownError } from '../core/errors.js';
import type { RequestOptions } from '../core/options.js';
import type { TaskWithId } from '../schemas/task.js';
import { DeadlineReason, deadline, sleep } from './abort.js';

/** What a create is doing, for the message of the error at its deadline ("… elapsed while <stage>"). */
export type CreateStage =
  | 'reading the order record in the store'
  | 'waiting for another process creating this order'
  | 'reading back the task of this order'
  | 'waiting until an earlier POST of this order cannot be in flight'
  | 'looking the order up'
  | 'sending the POST'
  | 'waiting before sending the POST again';

/** One create's deadline, abort signal and progress. */
export class CreateDeadline {
  /** `totalTimeout` in ms; `undefined` for a create without one (then only the signal ends its waits). */
  readonly totalTimeoutMs: number | undefined;
  /** Aborts at the deadline (reason: a {@link DeadlineReason}) or when `outer` aborts (its reason). */
  readonly signal: AbortSignal;
  /** POSTs sent so far (started). */
  posts = 0;
  /** A POST may have reached the service: one of this call's failed ambiguously, or an earlier attempt or another process may have sent one. */
  mayHaveCreated = false;
  /** A POST of this call is in flight. */
  posting = false;
  /**
   * When a lookup can decide the outcome, ms since the epoch: the last time a POST of the order may have
   * reached the service plus `listingDelayMs`. `undefined` while no POST may have.
   */
  decidableAt: number | undefined;
  /** List requests sent to look the order up (reconciliation's budget counts them). */
  listRequests = 0;
  /**
   * The created task, once the service has answered with it (its outcome may still be being written to
   * the store): at the deadline the create returns it rather than an error.
   */
  created: TaskWithId | undefined;
  stage: CreateStage = 'reading the order record in the store';
  readonly #orderNumber: string | undefined;
  readonly #outer: AbortSignal | undefined;
  readonly #endsAt: number;
  readonly #clear: () => void;

  /**
   * @param totalTimeoutMs the deadline from now, ms (an integer 1…2^31−1, checked by the caller), or `undefined`.
   * @param outer the flight's own signal (aborted when every caller has left), or the caller's.
   */
  constructor(orderNumber: string | undefined, totalTimeoutMs: number | undefined, outer: AbortSignal | undefined) {
    this.#orderNumber = orderNumber;
    this.#outer = outer;
    this.totalTimeoutMs = totalTimeoutMs;
    if (totalTimeoutMs === undefined) {
      this.signal = outer ?? new AbortController().signal;
      this.#endsAt = Number.POSITIVE_INFINITY;
      this.#clear = () => {};
    } else {
      const limit = deadline(totalTimeoutMs, 'total', outer);
      this.signal = limit.signal;
      this.#endsAt = performance.now() + totalTimeoutMs;
      this.#clear = limit.clear;
    }
  }

  /** Time left before the deadline, ms (`Infinity` without one; 0 once passed). */
  remaining(): number {
    return Math.max(0, this.#endsAt - performance.now());
  }

  /**
   * True once the deadline has passed: its own timer fired (the signal aborted with a
   * {@link DeadlineReason} while `outer` had not), or the time is up. Not when `outer` aborted.
   */
  get expired(): boolean {
    if (this.remaining() === 0) return true;
    return this.signal.aborted && this.signal.reason instanceof DeadlineReason && !this.#outer?.aborted;
  }

  /** Stops the deadline's timer (the create settled). */
  clear(): void {
    this.#clear();
  }

  /**
   * `options` for one request of the create: its `totalTimeout` what is left of the deadline, so the
   * request ends with it.
   * @throws the error at the deadline ({@link CreateDeadline.error}) when it has passed: nothing more is sent.
   */
  requestOptions(options: RequestOptions): RequestOptions {
    if (this.totalTimeoutMs === undefined) return options;
    if (this.expired) throw this.error();
    return { ...options, totalTimeout: Math.max(1, Math.ceil(this.remaining())) };
  }

  /** `retryAfterMs` for a {@link TaskCreationOutcomeUnknownError} thrown now: when a retry can decide. */
  retryAfter(): { retryAfterMs: number } {
    return { retryAfterMs: Math.max(0, (this.decidableAt ?? 0) - Date.now()) };
  }

  /**
   * Waits `ms` (following {@link CreateDeadline.signal}).
   * @throws the error at the deadline ({@link CreateDeadline.error}) when it passes; when the caller
   * aborts, a {@link TaskCreationOutcomeUnknownError} with `reason` (its cause the abort's reason, else `cause`).
   */
  async sleep(ms: number, reason: string, cause?: unknown): Promise<void> {
    try {
      await sleep(ms, this.signal);
    } catch (aborted) {
      if (this.expired) throw this.error();
      throw new TaskCreationOutcomeUnknownError({
        orderNumber: this.#orderNumber,
        reason,
        cause: aborted ?? cause,
        ...this.retryAfter(),
      });
    }
  }

  /**
   * The error a create ends with at its deadline (`ms`: the deadline that passed, this create's unless a
   * caller that joined its flight has a shorter one).
   */
  error(ms: number = this.totalTimeoutMs ?? 0): DeliveryError {
    const elapsed = `totalTimeout of ${ms} ms elapsed while ${this.stage}`;
    if (this.mayHaveCreated || this.posting) {
      return new TaskCreationOutcomeUnknownError({
        orderNumber: this.#orderNumber,
        reason: elapsed,
        ...this.retryAfter(),
      });
    }
    const reason =
      this.posts === 0
        ? `${elapsed}; no POST was sent, so no task was created by this call`
        : `${elapsed}; the service processed none of the ${this.posts} POST${this.posts === 1 ? '' : 's'} sent (429 or a connection never made), so no task was created by this call`;
    return new APIConnectionTimeoutError({ method: 'POST', url: 'tasks', attempts: this.posts, timeoutMs: ms, reason });
  }
}
