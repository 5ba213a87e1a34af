/** The mock's record of requests (`mock.requests`), bounded per entry and in total (docs/sandbox.md "Bounds"). @module */
import { nestsDeeperThan } from '../internal/json.js';
import type { MockRecordedRequest, MockRecordedStatus } from './types.js';

/** Longest body kept whole, in characters (16 KiB). */
export const MAX_RECORDED_BODY_BYTES = 16 * 1024;

/** Deepest JSON nesting of a body kept whole (arrays and objects). */
export const MAX_RECORDED_BODY_DEPTH = 32;

/** Characters kept of a summarised body, and of each URL and header value of a request without credentials. */
export const RECORDED_PREFIX_CHARS = 256;

/** Default of the log's byte bound: 8 MiB of recorded text. */
export const DEFAULT_REQUEST_LOG_BYTES = 8 * 1024 * 1024;

/** What is kept of a body beyond the entry bounds, or of a request without valid credentials. */
export interface RecordedBodySummary {
  readonly truncated: true;
  readonly bytes: number;
  readonly prefix: string;
}

/** A recorded request whose answer is still being filled in. */
export type RequestEntry = { -readonly [Field in keyof MockRecordedRequest]: MockRecordedRequest[Field] };

/** A recorded request and its number in the log (1, 2, …; never reused, not restarted by a reset). */
export type NumberedRequest = MockRecordedRequest & { readonly seq: number };

/** One page of the log: entries in arrival order, and the cursor to the older ones. */
export interface RequestPage {
  readonly requests: readonly NumberedRequest[];
  readonly total: number;
  /** Pass as `before` for the page of older entries; absent on the oldest page. */
  readonly before?: number;
}

/** The first `length` characters as a string of their own: a plain `slice` may keep all of `text` alive. */
function prefixOf(text: string, length: number): string {
  return text.length <= length ? text : Array.from(text.slice(0, length)).join('');
}

const summaryOf = (text: string): RecordedBodySummary => ({
  truncated: true,
  bytes: text.length,
  prefix: prefixOf(text, RECORDED_PREFIX_CHARS),
});

/** Parsed JSON, else text, `undefined` when empty; a {@link RecordedBodySummary} past the bounds or unauthenticated. */
export function recordedBody(text: string, authenticated = true): unknown {
  if (text === '') return undefined;
  if (!authenticated || text.length > MAX_RECORDED_BODY_BYTES) return summaryOf(text);
  if (nestsDeeperThan(text, MAX_RECORDED_BODY_DEPTH)) return summaryOf(text);
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The entry of a request without valid credentials: URL, path, query and header values cut short. */
function shortened(entry: Omit<RequestEntry, 'status' | 'fault'>): Omit<RequestEntry, 'status' | 'fault'> {
  const cut = (text: string) => prefixOf(text, RECORDED_PREFIX_CHARS);
  const cutAll = (record: Readonly<Record<string, string>>) =>
    Object.fromEntries(Object.entries(record).map(([name, value]) => [cut(name), cut(value)]));
  return {
    ...entry,
    url: cut(entry.url),
    path: cut(entry.path),
    query: cutAll(entry.query),
    headers: cutAll(entry.headers),
  };
}

/** Characters an entry holds (its text fields), the unit of the byte bound. */
function sizeOf(entry: Omit<RequestEntry, 'status' | 'fault'>, bodyText: string): number {
  let size = entry.url.length + entry.path.length + 64;
  for (const [name, value] of Object.entries(entry.query)) size += name.length + value.length;
  for (const [name, value] of Object.entries(entry.headers)) size += name.length + value.length;
  const body = entry.body as RecordedBodySummary | undefined;
  return (
    size + (body !== null && typeof body === 'object' && body.truncated === true ? body.prefix.length : bodyText.length)
  );
}

interface Kept {
  readonly seq: number;
  readonly entry: RequestEntry;
  readonly size: number;
}

/** Recorded requests in arrival order: the most recent `limit` of them, at most `maxBytes` in all. */
export class RequestLog {
  #kept: Kept[] = [];
  /** Index of the oldest kept entry in {@link #kept} (dropping from the front is a move of this index). */
  #start = 0;
  #bytes = 0;
  #seq = 0;
  readonly #limit: number;
  readonly #maxBytes: number;

  /** `limit`: entries kept (a positive integer); `maxBytes`: characters kept in all. */
  constructor(limit: number, maxBytes = DEFAULT_REQUEST_LOG_BYTES) {
    this.#limit = limit;
    this.#maxBytes = maxBytes;
  }

  get size(): number {
    return this.#kept.length - this.#start;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** Records a request (`'stalled'` until answered), dropping the oldest when full; unauthenticated: a summary. */
  add(entry: Omit<RequestEntry, 'status' | 'fault'>, bodyText = '', authenticated = true): RequestEntry {
    const fields = authenticated ? entry : shortened(entry);
    const recorded: RequestEntry = { ...fields, status: 'stalled' satisfies MockRecordedStatus };
    const size = sizeOf(fields, bodyText);
    this.#seq += 1;
    this.#kept.push({ seq: this.#seq, entry: recorded, size });
    this.#bytes += size;
    while (this.size > this.#limit || (this.#bytes > this.#maxBytes && this.size > 1)) {
      const oldest = this.#kept[this.#start++] as Kept;
      this.#bytes -= oldest.size;
    }
    if (this.#start > 1024 && this.#start * 2 > this.#kept.length) {
      this.#kept = this.#kept.slice(this.#start);
      this.#start = 0;
    }
    return recorded;
  }

  /** Copies of every entry, oldest first. */
  all(): readonly MockRecordedRequest[] {
    return Object.freeze(this.#kept.slice(this.#start).map(({ entry }) => structuredClone(entry)));
  }

  /** Copies of the newest `limit` entries numbered below `before` (all when absent), oldest first. */
  page(limit: number, before?: number): RequestPage {
    let end = this.#kept.length;
    if (before !== undefined) {
      const first = this.#kept[this.#start]?.seq ?? 0;
      end = Math.max(this.#start, Math.min(end, this.#start + (before - first)));
    }
    const begin = Math.max(this.#start, end - limit);
    const requests = this.#kept
      .slice(begin, end)
      .map(({ seq, entry }) => ({ ...structuredClone(entry), seq }) as NumberedRequest);
    const oldest = this.#kept[begin];
    return begin > this.#start && oldest !== undefined
      ? { requests, total: this.size, before: oldest.seq }
      : { requests, total: this.size };
  }

  /** Forgets every entry (answers still pending fill in detached entries). */
  clear(): void {
    this.#kept = [];
    this.#start = 0;
    this.#bytes = 0;
  }
}
