/**
 * Events this process admitted into its inbox, kept parsed until its worker claims them, so an event is
 * parsed once in a process. An entry another process wrote, or one pushed out here, is parsed when
 * claimed.
 * @module
 */
import type { WebhookEvent } from './event.js';
import type { InboxAppend, InboxEntry } from './inbox.js';

/** What identifies an inbox entry before the inbox gives it an id: its arrival and its JSON body. */
function keyOf(entry: Pick<InboxAppend, 'body' | 'receivedAt'>): string {
  return `${entry.receivedAt}\n${entry.body}`;
}

/**
 * Parsed events by the entry written for them; at most `maxEvents` events and `maxBytes` body bytes (the
 * queue's bounds: no more than the queue would hold without an inbox), the oldest pushed out first.
 */
export class AdmittedEvents {
  readonly #events = new Map<string, WebhookEvent>();
  readonly #maxEvents: number;
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxEvents: number, maxBytes: number) {
    this.#maxEvents = maxEvents;
    this.#maxBytes = maxBytes;
  }

  /** Keeps `event`, parsed from `entry.body`, until {@link take} or {@link forget}. */
  keep(entry: Pick<InboxAppend, 'body' | 'receivedAt'>, event: WebhookEvent): void {
    const key = keyOf(entry);
    this.forget(entry);
    this.#events.set(key, event);
    this.#bytes += key.length;
    for (const oldest of this.#events.keys()) {
      if (this.#events.size <= this.#maxEvents && this.#bytes <= this.#maxBytes) break;
      this.#remove(oldest);
    }
  }

  /** The event kept for `entry`, no longer kept; `undefined` when the entry has to be parsed. */
  take(entry: InboxEntry): WebhookEvent | undefined {
    // None kept (entries another process wrote): no key built, no body hashed.
    if (this.#events.size === 0) return undefined;
    const key = keyOf(entry);
    const event = this.#events.get(key);
    if (event !== undefined) this.#remove(key);
    return event;
  }

  /** Drops the event kept for an entry (one that was not stored). */
  forget(entry: Pick<InboxAppend, 'body' | 'receivedAt'>): void {
    this.#remove(keyOf(entry));
  }

  #remove(key: string): void {
    if (this.#events.delete(key)) this.#bytes -= key.length;
  }
}
