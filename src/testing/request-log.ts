/**
 * The record of every request that reached the mock's handler (`mock.requests`).
 * @module
 */
import type { MockRecordedRequest, MockRecordedStatus } from './types.js';

/** A recorded request whose answer is still being filled in. */
export type RequestEntry = { -readonly [Field in keyof MockRecordedRequest]: MockRecordedRequest[Field] };

/** The body as recorded: parsed JSON, else the text, or `undefined` when empty. */
export function recordedBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Recorded requests in arrival order: the most recent `limit` of them. */
export class RequestLog {
  readonly #entries: RequestEntry[] = [];
  readonly #limit: number;

  /** @param limit how many entries are kept (a positive integer); the oldest is dropped first. */
  constructor(limit: number) {
    this.#limit = limit;
  }

  /**
   * Records a request that has not been answered yet (status `'stalled'` until {@link RequestEntry.status}
   * is set). When the log is full, the oldest entry is dropped (its pending answer fills in a detached entry).
   */
  add(entry: Omit<RequestEntry, 'status' | 'fault'>): RequestEntry {
    const recorded: RequestEntry = { ...entry, status: 'stalled' satisfies MockRecordedStatus };
    this.#entries.push(recorded);
    if (this.#entries.length > this.#limit) this.#entries.shift();
    return recorded;
  }

  /** Copies of every entry. */
  all(): readonly MockRecordedRequest[] {
    return Object.freeze(this.#entries.map((entry) => structuredClone(entry)));
  }

  /** Forgets every entry (answers still pending fill in detached entries). */
  clear(): void {
    this.#entries.length = 0;
  }
}
