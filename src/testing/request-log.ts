/**
 * The mock's record of requests (`mock.requests`), bounded per entry and in total by the bytes it holds
 * (delivery-task-tools/docs/sandbox.md "Bounds"). A body is kept as its text, never as parsed JSON: a 16 KiB
 * `[{},{},…]` parsed is
 * ~300 KiB of objects. A request without valid credentials keeps a summary of fixed size. @module
 */
import { nestsDeeperThan } from '../internal/json.js';
import type { MockRecordedRequest, MockRecordedStatus } from './types.js';

/** Longest body kept whole, in characters (16 KiB). */
export const MAX_RECORDED_BODY_BYTES = 16 * 1024;

/** Deepest JSON nesting of a body kept whole (arrays and objects). */
export const MAX_RECORDED_BODY_DEPTH = 32;

/** Characters kept of a summarised body, and of the URL and path of a request without credentials. */
export const RECORDED_PREFIX_CHARS = 256;

/** Of a request without valid credentials: query parameters kept (the first ones). */
export const SUMMARY_QUERY_PARAMS = 8;

/** Of a request without valid credentials: headers kept (credential and content headers first). */
export const SUMMARY_HEADERS = 12;

/** Of a request without valid credentials: characters kept of each query or header name. */
export const SUMMARY_NAME_CHARS = 32;

/** Of a request without valid credentials: characters kept of each query or header value. */
export const SUMMARY_VALUE_CHARS = 128;

/** Default of the log's byte bound: 8 MiB held (counted as {@link heldBytes} counts). */
export const DEFAULT_REQUEST_LOG_BYTES = 8 * 1024 * 1024;

/**
 * Distinct credentials sent by requests that are remembered (the most recent), for redaction of every page.
 */
export const MAX_REMEMBERED_CREDENTIALS = 16;

/** Bytes counted for each entry besides its strings: the entry, its query and header objects, its slot. */
const ENTRY_BYTES = 512;

/** Bytes counted for each query parameter or header besides its two strings (property slot, hash entry). */
const PROPERTY_BYTES = 48;

/** Bytes a string of `text.length` characters may hold: a header and 2 bytes a character (UTF-16). */
export const stringBytes = (text: string): number => 24 + 2 * text.length;

/** What is kept of a body beyond the entry bounds, or of a request without valid credentials. */
export interface RecordedBodySummary {
  readonly truncated: true;
  readonly bytes: number;
  readonly prefix: string;
}

/** What the log holds of a body: its JSON text (valid, within the bounds), other text, or a summary. */
export type StoredBody =
  | { readonly json: string }
  | { readonly text: string }
  | { readonly summary: RecordedBodySummary };

/** A recorded request whose answer is still being filled in. */
export type RequestEntry = { -readonly [Field in keyof MockRecordedRequest]: MockRecordedRequest[Field] };

/** The fields of a request the log records (its body comes as text). */
export type LoggedRequest = Omit<RequestEntry, 'status' | 'fault' | 'body'>;

/** Where the handlers write a request's outcome once known. */
export interface RequestOutcome {
  status: MockRecordedStatus;
  fault?: MockRecordedRequest['fault'];
}

/** A recorded request and its number in the log (1, 2, …; never reused, not restarted by a reset). */
export type NumberedRequest = MockRecordedRequest & { readonly seq: number };

/** One page of the log: entries in arrival order, and the cursor to the older ones. */
export interface RequestPage {
  readonly requests: readonly NumberedRequest[];
  readonly total: number;
  /** Pass as `before` for the page of older entries; absent on the oldest page. */
  readonly before?: number;
}

/** One entry of a {@link RequestLogPage}: the request without its body, and the body as held. */
export interface RequestLogEntry {
  readonly seq: number;
  readonly request: Omit<MockRecordedRequest, 'body'>;
  /** Absent for an empty body. */
  readonly body?: StoredBody;
}

/** One page of the log as held, for a reader that writes bodies out without parsing them (the sandbox). */
export interface RequestLogPage {
  readonly entries: readonly RequestLogEntry[];
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

/**
 * The body as the log holds it, `undefined` when empty: JSON text within the bounds, else text or a summary.
 */
export function storedBody(text: string, authenticated = true): StoredBody | undefined {
  if (text === '') return undefined;
  if (!authenticated || text.length > MAX_RECORDED_BODY_BYTES) return { summary: summaryOf(text) };
  if (nestsDeeperThan(text, MAX_RECORDED_BODY_DEPTH)) return { summary: summaryOf(text) };
  try {
    JSON.parse(text);
    return { json: text };
  } catch {
    return { text };
  }
}

/** The value a held body stands for: parsed JSON, the text, or the summary. */
export function bodyValue(body: StoredBody | undefined): unknown {
  if (body === undefined) return undefined;
  if ('json' in body) return JSON.parse(body.json);
  if ('text' in body) return body.text;
  return { ...body.summary };
}

/**
 * Parsed JSON, else text, `undefined` when empty; a {@link RecordedBodySummary} past the bounds or
 * unauthenticated.
 */
export function recordedBody(text: string, authenticated = true): unknown {
  return bodyValue(storedBody(text, authenticated));
}

/** Headers a summary keeps first: what tells why a request was refused. */
const SUMMARY_FIRST = [
  'authorization',
  'x-seller-id',
  'content-type',
  'content-length',
  'origin',
  'user-agent',
];

/** At most `count` pairs, names and values cut short, `first` names before the others. */
function cutPairs(record: Readonly<Record<string, string>>, count: number, first: readonly string[] = []) {
  const names = Object.keys(record);
  const ordered = [
    ...first.filter((name) => name in record),
    ...names.filter((name) => !first.includes(name)),
  ];
  return Object.fromEntries(
    ordered
      .slice(0, count)
      .map((name) => [prefixOf(name, SUMMARY_NAME_CHARS), prefixOf(record[name] ?? '', SUMMARY_VALUE_CHARS)]),
  );
}

/** The fixed-size summary of a request without valid credentials (its body is summarised apart). */
function summarized(entry: LoggedRequest): LoggedRequest {
  return {
    operation: entry.operation,
    method: prefixOf(entry.method, SUMMARY_NAME_CHARS),
    url: prefixOf(entry.url, RECORDED_PREFIX_CHARS),
    path: prefixOf(entry.path, RECORDED_PREFIX_CHARS),
    query: cutPairs(entry.query, SUMMARY_QUERY_PARAMS),
    headers: cutPairs(entry.headers, SUMMARY_HEADERS, SUMMARY_FIRST),
  };
}

/**
 * The bytes an entry holds, at most: its strings as {@link stringBytes}, each pair and the entry's objects.
 */
export function heldBytes(entry: LoggedRequest, body: StoredBody | undefined): number {
  let size = ENTRY_BYTES + stringBytes(entry.url) + stringBytes(entry.path) + stringBytes(entry.method);
  for (const record of [entry.query, entry.headers]) {
    for (const [name, value] of Object.entries(record))
      size += PROPERTY_BYTES + stringBytes(name) + stringBytes(value);
  }
  if (body === undefined) return size;
  if ('json' in body) return size + stringBytes(body.json);
  if ('text' in body) return size + stringBytes(body.text);
  return size + ENTRY_BYTES + stringBytes(body.summary.prefix);
}

/**
 * The credentials a request sent in its credential headers, 8 to 1024 characters long (shorter ones are no
 * key).
 */
function sentCredentials(headers: Readonly<Record<string, string>>): string[] {
  const found: string[] = [];
  for (const name of ['authorization', 'proxy-authorization', 'x-seller-id']) {
    const value = headers[name];
    if (value === undefined) continue;
    const credential = /^\S+ +(.+)$/.exec(value)?.[1];
    for (const candidate of [value, credential]) {
      if (candidate !== undefined && candidate.length >= 8 && candidate.length <= 1024) found.push(candidate);
    }
  }
  return found;
}

interface Kept {
  readonly seq: number;
  readonly entry: LoggedRequest & RequestOutcome;
  readonly body: StoredBody | undefined;
  readonly size: number;
}

/** Recorded requests in arrival order: the most recent `limit` of them, holding at most `maxBytes` in all. */
export class RequestLog {
  /**
   * Entries from {@link #start} on; the slots before it are emptied, so a dropped entry is held by nothing.
   */
  #kept: Array<Kept | undefined> = [];
  /** Index of the oldest kept entry in {@link #kept} (dropping from the front is a move of this index). */
  #start = 0;
  #bytes = 0;
  #seq = 0;
  /** Credentials requests sent, most recent last, for redaction across pages. */
  #credentials: string[] = [];
  readonly #limit: number;
  readonly #maxBytes: number;

  /**
   * `limit`: entries kept (a positive integer); `maxBytes`: bytes held in all, as {@link heldBytes} counts.
   */
  constructor(limit: number, maxBytes = DEFAULT_REQUEST_LOG_BYTES) {
    this.#limit = limit;
    this.#maxBytes = maxBytes;
  }

  get size(): number {
    return this.#kept.length - this.#start;
  }

  /** Bytes held by the kept entries, as {@link heldBytes} counts them. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Records a request (`'stalled'` until answered), dropping the oldest while past a bound; without valid
   * credentials, a summary of fixed size. Returns where the handlers write its outcome.
   */
  add(entry: LoggedRequest & { body?: unknown }, bodyText = '', authenticated = true): RequestOutcome {
    const { body: _ignored, ...fields } = entry;
    this.#remember(sentCredentials(fields.headers));
    const kept = authenticated ? { ...fields } : summarized(fields);
    const body = storedBody(bodyText, authenticated);
    const recorded: LoggedRequest & RequestOutcome = { ...kept, status: 'stalled' };
    const size = heldBytes(kept, body);
    this.#seq += 1;
    this.#kept.push({ seq: this.#seq, entry: recorded, body, size });
    this.#bytes += size;
    while (this.size > this.#limit || (this.#bytes > this.#maxBytes && this.size > 1)) {
      const oldest = this.#kept[this.#start] as Kept;
      this.#kept[this.#start] = undefined;
      this.#start += 1;
      this.#bytes -= oldest.size;
    }
    if (this.#start > 1024 && this.#start * 2 > this.#kept.length) {
      this.#kept = this.#kept.slice(this.#start);
      this.#start = 0;
    }
    return recorded;
  }

  #remember(credentials: readonly string[]): void {
    for (const credential of credentials) {
      const known = this.#credentials.indexOf(credential);
      if (known !== -1) this.#credentials.splice(known, 1);
      this.#credentials.push(credential);
    }
    if (this.#credentials.length > MAX_REMEMBERED_CREDENTIALS) {
      this.#credentials.splice(0, this.#credentials.length - MAX_REMEMBERED_CREDENTIALS);
    }
  }

  /**
   * The last {@link MAX_REMEMBERED_CREDENTIALS} distinct credentials requests sent since the last {@link
   * clear}.
   */
  credentials(): readonly string[] {
    return [...this.#credentials];
  }

  /** Copies of every entry, oldest first, bodies parsed. */
  all(): readonly MockRecordedRequest[] {
    return Object.freeze(this.#keptFrom(this.#start).map((kept) => requestOf(kept)));
  }

  /**
   * Copies of the newest `limit` entries numbered below `before` (all when absent), oldest first, bodies
   * parsed.
   */
  page(limit: number, before?: number): RequestPage {
    const { entries, total, before: older } = this.entries(limit, before);
    const requests = entries.map(({ seq, request, body }) => ({ ...request, body: bodyValue(body), seq }));
    return older === undefined ? { requests, total } : { requests, total, before: older };
  }

  /** The newest `limit` entries numbered below `before` (all when absent), oldest first, bodies as held. */
  entries(limit: number, before?: number): RequestLogPage {
    let end = this.#kept.length;
    if (before !== undefined) {
      const first = this.#kept[this.#start]?.seq ?? 0;
      end = Math.max(this.#start, Math.min(end, this.#start + (before - first)));
    }
    const begin = Math.max(this.#start, end - limit);
    const entries = this.#keptFrom(begin, end).map((kept): RequestLogEntry => {
      const request = fieldsOf(kept);
      return kept.body === undefined
        ? { seq: kept.seq, request }
        : { seq: kept.seq, request, body: kept.body };
    });
    const oldest = this.#kept[begin];
    return begin > this.#start && oldest !== undefined
      ? { entries, total: this.size, before: oldest.seq }
      : { entries, total: this.size };
  }

  /** The kept entries from index `begin` to `end` (both at or after {@link #start}). */
  #keptFrom(begin: number, end = this.#kept.length): Kept[] {
    return this.#kept.slice(begin, end) as Kept[];
  }

  /** Forgets every entry and credential (answers still pending fill in detached entries). */
  clear(): void {
    this.#kept = [];
    this.#start = 0;
    this.#bytes = 0;
    this.#credentials = [];
  }
}

/** A copy of a kept entry without its body. */
function fieldsOf({ entry }: Kept): Omit<RequestEntry, 'body'> {
  const copy: Omit<RequestEntry, 'body'> = {
    operation: entry.operation,
    method: entry.method,
    url: entry.url,
    path: entry.path,
    query: { ...entry.query },
    headers: { ...entry.headers },
    status: entry.status,
  };
  if (entry.fault !== undefined) copy.fault = entry.fault;
  return copy;
}

/** A copy of a kept entry as `mock.requests` shows it, its body parsed. */
function requestOf(kept: Kept): MockRecordedRequest {
  return { ...fieldsOf(kept), body: bodyValue(kept.body) };
}
