/** Store calls made in one turn of the event loop, sent as one (the stores' batched calls). @module */

/** What one call of a batch came to: its value, or the error it rejects with alone. */
export type BatchOutcome<R> = { readonly value: R } | { readonly error: unknown };

/** How {@link tickBatch} sends: one call alone, several together. */
export interface TickBatchSender<Call, R> {
  /** Most calls sent together; the rest go in the next batch. */
  readonly max: number;
  /**
   * The keys a call touches. Given, a call sharing a key with a call already in the batch, or with one
   * held back, is held back until that batch has answered: a batch's calls touch distinct keys, and calls
   * on one key run in call order. Without it, `together` runs its calls in call order itself.
   */
  readonly keysOf?: (call: Call) => readonly string[];
  /** Sends a call that is alone in its batch. */
  readonly alone: (call: Call) => Promise<R>;
  /** Sends two or more calls at once; one outcome per call, in the calls' order. */
  readonly together: (calls: readonly Call[]) => Promise<readonly BatchOutcome<R>[]>;
}

const nextTick = globalThis.process?.nextTick ?? queueMicrotask;

/**
 * Collects the calls made in one tick and sends them as one batch at the tick's end (`process.nextTick`):
 * at most `max` a batch, a call alone by `alone`. When `together` rejects, every call of its batch
 * rejects with that error.
 */
export function tickBatch<Call, R>(sender: TickBatchSender<Call, R>): (call: Call) => Promise<R> {
  type Queued = {
    readonly call: Call;
    readonly resolve: (value: R) => void;
    readonly reject: (error: unknown) => void;
  };
  let queued: Queued[] = [];
  const send = (batch: readonly Queued[]): Promise<void> => {
    if (batch.length === 1) {
      const [{ call, resolve, reject }] = batch as [Queued];
      return sender.alone(call).then(resolve, reject);
    }
    return sender.together(batch.map(({ call }) => call)).then(
      (outcomes) => {
        for (const [index, { resolve, reject }] of batch.entries()) {
          const outcome = outcomes[index];
          if (outcome === undefined) reject(new Error('no answer for this call in its batch'));
          else if ('error' in outcome) reject(outcome.error);
          else resolve(outcome.value);
        }
      },
      (error: unknown) => {
        for (const { reject } of batch) reject(error);
      },
    );
  };
  /** Puts `calls` first in the queue, and sends them at the end of this tick. */
  const requeue = (calls: readonly Queued[]): void => {
    if (calls.length === 0) return;
    if (queued.length === 0) nextTick(flush);
    queued = [...calls, ...queued];
  };
  const flush = (): void => {
    const { keysOf } = sender;
    if (keysOf === undefined) {
      const batch = queued.splice(0, sender.max);
      if (queued.length > 0) nextTick(flush);
      void send(batch);
      return;
    }
    const taken = new Set<string>();
    const blocked = new Set<string>();
    const batch: Queued[] = [];
    const held: Queued[] = [];
    for (const entry of queued) {
      const keys = keysOf(entry.call);
      if (batch.length < sender.max && keys.every((key) => !taken.has(key) && !blocked.has(key))) {
        batch.push(entry);
        for (const key of keys) taken.add(key);
      } else {
        held.push(entry);
        for (const key of keys) blocked.add(key);
      }
    }
    queued = [];
    // Held back behind this batch's keys (or its size) until it has answered.
    void send(batch).finally(() => requeue(held));
  };
  return (call) =>
    new Promise((resolve, reject) => {
      if (queued.push({ call, resolve, reject }) === 1) nextTick(flush);
    });
}
