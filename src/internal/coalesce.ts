/**
 * Calls made one item at a time, sent in batches: the durable inboxes mark events done this way
 * (`redisInbox`: one script for many ids; `postgresInbox`: one `UPDATE … WHERE id = ANY`), so a drain costs
 * one round trip per batch rather than per event (docs/several-instances.md § "Durable intake").
 * @module
 */

interface Waiting<T> {
  readonly item: T;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * `send` for one item: the items given while a batch is being sent (or within the same turn of the
 * event loop) go together in the next one, `max` at most per batch. Each item's promise settles with
 * its batch: resolved once `send` resolved, rejected with what it rejected with. No timer: an item
 * alone is sent at once (on the next microtask). Waiting items are bounded by the callers (each holds a
 * claimed event).
 */
export function coalesced<T>(send: (items: readonly T[]) => Promise<void>, max: number): (item: T) => Promise<void> {
  let waiting: Waiting<T>[] = [];
  let sending = false;
  const flush = async (): Promise<void> => {
    while (waiting.length > 0) {
      const batch = waiting.slice(0, max);
      waiting = waiting.slice(batch.length);
      try {
        await send(batch.map((entry) => entry.item));
        for (const entry of batch) entry.resolve();
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    sending = false;
  };
  return (item) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (sending) return;
      sending = true;
      queueMicrotask(() => void flush());
    });
}
