/** Fault rules and the answers that play each fault ({@link MockFault}; docs/testing.md). @module */
import { OPERATION_NAMES } from '../core/operations.js';
import { DRIFT_MUTATIONS } from './drift.js';
import { codeOfStatus, jsonResponse, reasonOfStatus } from './responses.js';
import type { MockFault, MockFaultRule, MockOperation } from './types.js';

export const OPERATIONS: readonly MockOperation[] = OPERATION_NAMES;

/** Every fault kind, in docs/testing.md's order. */
export const MOCK_FAULT_KINDS: readonly MockFault['kind'][] = [
  'status',
  'network-error',
  'commit-then-drop',
  'delay',
  'stall-body',
  'invalid-json',
  'repeat-page',
  'sort',
  'drift',
];

/** Fault kinds that apply to `tasks.list` only. */
const LIST_ONLY_KINDS: readonly MockFault['kind'][] = ['repeat-page', 'sort'];
const KINDS = MOCK_FAULT_KINDS;

/** The body of an `invalid-json` answer: an HTML error page, as a proxy would send. */
export const NOT_JSON_BODY = '<html><body><h1>502 Bad Gateway</h1></body></html>';

const NOT_JSON_BYTES = new TextEncoder().encode(NOT_JSON_BODY);

/** Longest wait `setTimeout` supports, ms; a longer `delay` never ends by itself. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface ActiveRule {
  readonly fault: MockFault;
  readonly operations: readonly MockOperation[] | undefined;
  remaining: number;
}

function faultOf(rule: MockFaultRule): MockFault {
  switch (rule.kind) {
    case 'status': {
      const fault: MockFault = { kind: 'status', status: rule.status };
      if (rule.body !== undefined) fault.body = structuredClone(rule.body);
      if (rule.headers !== undefined) fault.headers = { ...rule.headers };
      return fault;
    }
    case 'delay':
      return { kind: 'delay', ms: rule.ms };
    case 'drift':
      return rule.mutations === undefined
        ? { kind: 'drift' }
        : { kind: 'drift', mutations: [...rule.mutations] };
    case 'sort':
      return { kind: 'sort', sortBy: rule.sortBy ?? 'createdAt', sortOrder: rule.sortOrder ?? 1 };
    default:
      return { kind: rule.kind };
  }
}

/** An HTTP header name: a token (RFC 9110 §5.1). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** An HTTP header value as Node writes it: tab, visible ASCII, space and obs-text; no CR, LF or NUL. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Headers the answer's framing owns: a fault setting them could not be served as one answer. */
const FRAMING_HEADERS: ReadonlySet<string> = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'trailer',
  'te',
  'proxy-connection',
]);

/**
 * The `headers` of a `status` fault can be served: names are tokens and not framing headers, values are
 * strings without CR, LF, NUL or characters beyond U+00FF.
 * @throws {TypeError} / {RangeError} naming the header (`headers["x y"]: …`).
 */
function checkFaultHeaders(headers: unknown): void {
  if (headers === undefined) return;
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    throw new TypeError('headers: must be an object of header names to string values');
  }
  for (const [name, value] of Object.entries(headers)) {
    const field = `headers[${JSON.stringify(name)}]`;
    if (!HEADER_NAME.test(name)) {
      throw new RangeError(
        `${field}: not an HTTP header name (letters, digits and !#$%&'*+-.^_\`|~, no space)`,
      );
    }
    if (FRAMING_HEADERS.has(name.toLowerCase())) {
      throw new RangeError(`${field}: set by the mock itself (it frames the answer), a fault cannot set it`);
    }
    if (typeof value !== 'string') throw new TypeError(`${field}: must be a string`);
    if (!HEADER_VALUE.test(value)) {
      throw new RangeError(`${field}: a header value cannot hold CR, LF, NUL or characters beyond U+00FF`);
    }
  }
}

/** @throws {TypeError} / {RangeError} naming the first bad field of the rule. */
export function checkFaultRule(rule: MockFaultRule): void {
  if (typeof rule !== 'object' || rule === null || !KINDS.includes(rule.kind)) {
    throw new TypeError(`fault kind must be one of ${KINDS.join(', ')}`);
  }
  const times = rule.times ?? 1;
  if (!(times === Number.POSITIVE_INFINITY || (Number.isSafeInteger(times) && times > 0))) {
    throw new RangeError(`fault times must be a positive integer or Infinity, got ${String(times)}`);
  }
  const operations = rule.operation === undefined ? undefined : [rule.operation].flat();
  for (const operation of operations ?? []) {
    if (!OPERATIONS.includes(operation))
      throw new TypeError(`unknown operation ${JSON.stringify(operation)}`);
  }
  if (rule.kind === 'status') {
    if (!Number.isInteger(rule.status) || rule.status < 200 || rule.status > 599) {
      throw new RangeError(`fault status must be an integer from 200 to 599, got ${String(rule.status)}`);
    }
    checkFaultHeaders(rule.headers);
  }
  if (rule.kind === 'delay' && !(rule.ms >= 0)) {
    throw new RangeError(`fault ms must be ≥ 0 (Infinity never answers), got ${String(rule.ms)}`);
  }
  if (rule.kind === 'drift' && rule.mutations !== undefined) {
    if (
      !Array.isArray(rule.mutations) ||
      rule.mutations.some((mutation) => !DRIFT_MUTATIONS.includes(mutation))
    ) {
      throw new TypeError(`drift mutations must be a list of ${DRIFT_MUTATIONS.join(', ')}`);
    }
  }
  if (rule.kind === 'sort') {
    if (rule.sortBy !== undefined && typeof rule.sortBy !== 'string')
      throw new TypeError('fault sortBy must be a string');
    if (rule.sortOrder !== undefined && rule.sortOrder !== 1 && rule.sortOrder !== -1) {
      throw new RangeError(`fault sortOrder must be 1 or -1, got ${String(rule.sortOrder)}`);
    }
  }
  if (LIST_ONLY_KINDS.includes(rule.kind) && operations && !operations.includes('tasks.list')) {
    throw new RangeError(`a ${rule.kind} fault applies to tasks.list only`);
  }
}

export class FaultQueue {
  readonly #rules: ActiveRule[] = [];

  /** @throws as {@link checkFaultRule}. */
  inject(rule: MockFaultRule): void {
    checkFaultRule(rule);
    const operations = rule.operation === undefined ? undefined : [rule.operation].flat();
    this.#rules.push({ fault: faultOf(rule), operations, remaining: rule.times ?? 1 });
  }

  clear(): void {
    this.#rules.length = 0;
  }

  /** The first matching rule's fault (used once), or `undefined`. */
  take(operation: MockOperation): MockFault | undefined {
    const index = this.#rules.findIndex(
      (rule) =>
        (rule.operations === undefined || rule.operations.includes(operation)) &&
        (!LIST_ONLY_KINDS.includes(rule.fault.kind) || operation === 'tasks.list'),
    );
    const rule = this.#rules[index];
    if (!rule) return undefined;
    rule.remaining -= 1;
    if (rule.remaining <= 0) this.#rules.splice(index, 1);
    return rule.fault;
  }
}

/** The answer of a `status` fault: its body (default `{ message, code }`) and headers. */
export function injectedStatusResponse(fault: Extract<MockFault, { kind: 'status' }>): Response {
  const body = fault.body ?? {
    message: `${reasonOfStatus(fault.status)} (injected fault)`,
    code: codeOfStatus(fault.status),
  };
  // The Response constructor refuses a body with these statuses.
  if ([204, 205, 304].includes(fault.status)) {
    return new Response(null, { status: fault.status, headers: fault.headers ?? {} });
  }
  return jsonResponse(body, fault.status, fault.headers);
}

/** Runs `onAbort` once when any signal aborts; returns a function that stops listening. */
function onAnyAbort(signals: readonly AbortSignal[], onAbort: () => void): () => void {
  const stop = () => {
    for (const signal of signals) signal.removeEventListener('abort', listener);
  };
  const listener = () => {
    stop();
    onAbort();
  };
  if (signals.some((signal) => signal.aborted)) {
    onAbort();
    return () => {};
  }
  for (const signal of signals) signal.addEventListener('abort', listener, { once: true });
  return stop;
}

/** Waits `ms` (`Infinity`: forever); false when a signal aborted first. */
export function waitUnlessAborted(ms: number, signals: readonly AbortSignal[]): Promise<boolean> {
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = onAnyAbort(signals, () => {
      clearTimeout(timer);
      resolve(false);
    });
    if (ms <= MAX_TIMER_MS) {
      timer = setTimeout(() => {
        stop();
        resolve(true);
      }, ms);
    }
  });
}

/** `response`'s head with its full `content-length` and half its body, never finished; aborting drops it. */
export async function stalledBodyResponse(
  response: Response,
  signals: readonly AbortSignal[],
): Promise<Response> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  const part = bytes.slice(0, Math.ceil(bytes.length / 2));
  let stop = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(part);
      stop = onAnyAbort(signals, () => {
        try {
          controller.error(new Error('connection dropped by the mock'));
        } catch {}
      });
    },
    cancel() {
      stop();
    },
  });
  const headers = new Headers(response.headers);
  headers.set('content-length', String(bytes.length));
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

/** The answer of an `invalid-json` fault: `response`'s status and headers with {@link NOT_JSON_BODY}. */
export function invalidJsonResponse(response: Response): Response {
  const headers = new Headers(response.headers);
  headers.set('content-type', 'application/json');
  // msw 3.0 keeps an answer without its own length after sending it.
  headers.set('content-length', String(NOT_JSON_BYTES.byteLength));
  return new Response(NOT_JSON_BYTES, { status: response.status, statusText: response.statusText, headers });
}
