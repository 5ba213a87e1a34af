/**
 * A deadline that neither a stall of this process nor a busy store uses up (docs/several-instances.md
 * "Stalls while receiving webhooks"). After a stall the event loop runs its timers before it reads its
 * sockets, so a plain timer declares late an answer that came in meanwhile. This one, once due, first lets
 * the
 * loop read what arrived (one `setImmediate`: after the I/O phase); when it fired 100 ms late or
 * more (or half its time: the process, or the whole machine, was held), the call gets that much more
 * time once (at most `timeoutMs`); and while the store answered other calls in the last `timeoutMs`,
 * it is slow, not gone: the call waits on, up to `maxMs` in all.
 * @module
 */

/** A later turn of the event loop, after its I/O: `setImmediate` where there is one, else a 0 ms timer. */
export const afterIo: (run: () => void) => void =
  typeof globalThis.setImmediate === 'function'
    ? (run) => globalThis.setImmediate(run)
    : (run) => setTimeout(run, 0);

/** A timer this late, ms (or half its time late), means the process was held: a stall, not a slow store. */
const STALL_MS = 100;

/** Options of {@link awakeDeadline}. */
export interface AwakeDeadlineOptions {
  /** `performance.now()` of the last answer from the same store to any call; none: `-Infinity`. */
  readonly answeredAt?: () => number;
  /** The longest wait while the store answers other calls, ms. Default `timeoutMs`. */
  readonly maxMs?: number;
}

/** One call's deadline: `clear()` when the call settles; `expire` is never called after it. */
export interface AwakeDeadline {
  clear(): void;
}

/**
 * Calls `expire` once the store answered nothing for `timeoutMs` with this process awake (a timer that
 * fired 100 ms or `timeoutMs / 2` late adds its lateness once, at most `timeoutMs`), or after `maxMs`.
 */
export function awakeDeadline(
  timeoutMs: number,
  expire: () => void,
  options: AwakeDeadlineOptions = {},
): AwakeDeadline {
  const startedAt = performance.now();
  const giveUpAt = startedAt + Math.max(timeoutMs, options.maxMs ?? timeoutMs);
  let cleared = false;
  let stalls = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (ms: number): void => {
    const dueAt = performance.now() + ms;
    timer = setTimeout(() => {
      const lateMs = performance.now() - dueAt;
      afterIo(() => {
        if (cleared) return;
        const now = performance.now();
        if (lateMs >= Math.min(timeoutMs / 2, STALL_MS) && stalls === 0) {
          stalls++;
          arm(Math.min(timeoutMs, lateMs));
          return;
        }
        const quietMs = now - Math.max(startedAt, options.answeredAt?.() ?? Number.NEGATIVE_INFINITY);
        if (quietMs < timeoutMs && now < giveUpAt) {
          arm(Math.max(1, Math.min(timeoutMs - quietMs, giveUpAt - now)));
          return;
        }
        cleared = true;
        expire();
      });
    }, ms);
  };
  arm(timeoutMs);
  return {
    clear: () => {
      cleared = true;
      clearTimeout(timer);
    },
  };
}
