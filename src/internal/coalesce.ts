/** Calls made one item at a time, sent in batches (the durable inboxes mark events done this way). @module */

interface Waiting<T> {
  readonly item: T;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * `send` for one item: items given while a batch is sent go together in the next, `max` at most; each
 * promise settles with its batch. No timer: an item alone goes on the next microtask.
 */
export function coalesced<T>(
  send: (items: readonly T[]) => Promise<void>,
  max: number,
): (item: T) => Promise<void> {
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
