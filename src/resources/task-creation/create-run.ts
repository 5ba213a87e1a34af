/**
 * The run record of one `tasks.create`: its deadline (`totalTimeout`, README "Retries and timeouts"),
 * shared by every POST, lookup, wait, lease poll and store call of it, and what it has done so far, so the
 * error at the deadline says whether a task may exist (`TaskCreationOutcomeUnknownError`) or none was sent.
 * {@link LookupRun}: the same for `tasks.findByOrderNumber`, whose pages and retries it covers.
 */
import {
  APIConnectionTimeoutError,
  type DeliveryError,
  TaskCreationOutcomeUnknownError,
} from '../../core/errors.js';
import type { RequestOptions } from '../../core/options.js';
import { DeadlineReason, deadline, sleep } from '../../internal/abort.js';
import type { TracedCall } from '../../internal/http-request.js';
import type { TaskWithId } from '../../schemas/task.js';

/** What a create is doing, as its deadline's error names it. */
export type CreateStage =
  | 'reading the order record in the store'
  | 'waiting for another process creating this order'
  | 'reading back the task of this order'
  | 'waiting until an earlier POST of this order cannot be in flight'
  | "waiting until an earlier delivery's task would be listed"
  | 'looking the order up'
  | 'sending the POST'
  | 'waiting before sending the POST again';

/** One create's run: its deadline and signal, its stage, the POSTs it sent, when its order is decidable. */
export class CreateRun {
  /** `totalTimeout` in ms; `undefined` for a create without one (then only the signal ends its waits). */
  readonly totalTimeoutMs: number | undefined;
  /** Aborts at the deadline (reason: a {@link DeadlineReason}) or when `outer` aborts (its reason). */
  readonly signal: AbortSignal;
  /** The traced call the run's requests are events of (POSTs, lookups); `undefined`: their own spans. */
  readonly call: TracedCall | undefined;
  posts = 0;
  /**
   * A POST may have reached the service: one of this call's failed ambiguously, or an earlier attempt or
   * another process may have sent one.
   */
  mayHaveCreated = false;
  posting = false;
  /** When a lookup can decide the outcome, ms since the epoch; `undefined` while no POST may have arrived. */
  decidableAt: number | undefined;
  listRequests = 0;
  /** The created task, once answered: at the deadline the create returns it rather than an error. */
  created: TaskWithId | undefined;
  /**
   * When the last caller was given an error while the create still ran (its deadline), ms since the epoch:
   * the failure recorded for the order is dated then, so a create called after it looks the order up
   * instead of taking that failure as the outcome it waited for.
   */
  failedAt: number | undefined;
  stage: CreateStage = 'reading the order record in the store';
  /**
   * Set when a POST was sent after a lookup found no task of an earlier, unanswered POST of the order: the
   * start of the order's window (ms since the epoch), which `late-commit.ts` looks through again.
   */
  resentSince: number | undefined;
  /** The task the order's record names while it is read back: the deadline's error names it. */
  remembered: string | undefined;
  readonly #orderNumber: string | undefined;
  readonly #outer: AbortSignal | undefined;
  readonly #endsAt: number;
  readonly #clear: () => void;

  /**
   * @param totalTimeoutMs the deadline from now, ms, or `undefined`; `outer` the flight's or caller's signal.
   */
  constructor(
    orderNumber: string | undefined,
    totalTimeoutMs: number | undefined,
    outer: AbortSignal | undefined,
    call?: TracedCall,
  ) {
    this.#orderNumber = orderNumber;
    this.call = call;
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

  remaining(): number {
    return Math.max(0, this.#endsAt - performance.now());
  }

  /** True once the deadline itself has passed (not when `outer` aborted). */
  get expired(): boolean {
    if (this.remaining() === 0) return true;
    return this.signal.aborted && this.signal.reason instanceof DeadlineReason && !this.#outer?.aborted;
  }

  clear(): void {
    this.#clear();
  }

  /**
   * `options` for one request, `totalTimeout` what is left. @throws the error at the deadline once passed.
   */
  requestOptions(options: RequestOptions): RequestOptions {
    if (this.totalTimeoutMs === undefined) return options;
    if (this.expired) throw this.error();
    return { ...options, totalTimeout: Math.max(1, Math.ceil(this.remaining())) };
  }

  retryAfter(): { retryAfterMs: number } {
    return { retryAfterMs: Math.max(0, (this.decidableAt ?? 0) - Date.now()) };
  }

  /**
   * Waits `ms`. @throws the error at the deadline; on the caller's abort, {@link
   * TaskCreationOutcomeUnknownError}.
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
   * The error of a create that could not read back the task its order's record names (`remembered`): the
   * task named in `candidateTaskIds`, for the caller to read or to create again (which reads it back).
   */
  unreadTask(reason: string, cause?: unknown): TaskCreationOutcomeUnknownError {
    return new TaskCreationOutcomeUnknownError({
      orderNumber: this.#orderNumber,
      reason: `${reason}; its task ${this.remembered} is recorded as created`,
      cause,
      candidateTaskIds: [this.remembered ?? ''],
      retryAfterMs: 0,
    });
  }

  /** The error a create ends with at its deadline (`ms`: the deadline that passed). */
  error(ms: number = this.totalTimeoutMs ?? 0): DeliveryError {
    const elapsed = `totalTimeout of ${ms} ms elapsed while ${this.stage}`;
    if (this.remembered !== undefined) return this.unreadTask(elapsed);
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
    return new APIConnectionTimeoutError({
      method: 'POST',
      url: 'tasks',
      attempts: this.posts,
      timeoutMs: ms,
      reason,
    });
  }
}

/** The deadline of one `tasks.findByOrderNumber`: every page and retry of it; its error names the reads. */
export class LookupRun extends CreateRun {
  override error(ms: number = this.totalTimeoutMs ?? 0): DeliveryError {
    return new APIConnectionTimeoutError({
      method: 'GET',
      url: 'tasks',
      attempts: this.listRequests,
      timeoutMs: ms,
      reason: `totalTimeout of ${ms} ms elapsed while looking the order up`,
    });
  }
}
