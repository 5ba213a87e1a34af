/** Cancellable waits: every wait in the SDK ends when the caller's signal fires. */

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A controller that aborts itself after `ms` with a {@link DeadlineReason}; `clear()` stops the timer. */
export function deadline(ms: number, kind: DeadlineReason['kind']): { signal: AbortSignal; clear: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DeadlineReason(kind, ms)), ms);
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

/** The abort reason of an SDK deadline, told apart from the caller's own abort. */
export class DeadlineReason extends Error {
  override name = 'DeadlineReason';
  constructor(
    readonly kind: 'attempt' | 'total',
    readonly ms: number,
  ) {
    super(`${kind === 'attempt' ? 'Attempt' : 'Total'} timeout of ${ms} ms elapsed`);
  }
}

/**
 * `AbortSignal.any(signals)`, or where a runtime lacks it (edge-runtime 4), a signal that aborts with
 * the first of them to abort. The fallback listens with `{ once: true }` and stops listening to the
 * others once it fires; until then its listeners live as long as the inputs.
 */
export function anySignal(signals: readonly AbortSignal[]): AbortSignal {
  if (typeof AbortSignal.any === 'function') return AbortSignal.any([...signals]);
  const controller = new AbortController();
  const aborted = signals.find((signal) => signal.aborted);
  if (aborted) {
    controller.abort(aborted.reason);
    return controller.signal;
  }
  const onAbort = (event: Event) => {
    for (const signal of signals) signal.removeEventListener('abort', onAbort);
    controller.abort((event.target as AbortSignal).reason);
  };
  for (const signal of signals) signal.addEventListener('abort', onAbort, { once: true });
  return controller.signal;
}
