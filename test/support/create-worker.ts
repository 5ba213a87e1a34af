/**
 * One "instance" of a merchant backend for the multi-process tests: a separate process with its own
 * DeliveryClient over a shared Redis store, creating the orders it is given, all at once.
 *
 * Usage: node --import tsx test/support/create-worker.ts '<json WorkerConfig>'
 * Prints one JSON line: the outcome of each order (the task id, or the error's class). With `trace`, each
 * request's start and end and each log line go to stderr as `TRACE <json>` lines ({@link TraceLine}).
 */
import Redis from 'ioredis';
import {
  APIConnectionTimeoutError,
  DeliveryClient,
  type Logger,
  StoreUnavailableError,
  TaskCreationOutcomeUnknownError,
} from '../../src/index.js';
import { redisStore } from '../../src/redis.js';
import { orderParams } from './order-params.js';

/** What the parent process asks of a worker. */
export interface WorkerConfig {
  baseUrl: string;
  apiKey: string;
  sellerId: string;
  redisUrl: string;
  prefix: string;
  orders: string[];
  /** Per-attempt timeout, ms. */
  timeoutMs: number;
  /** Wait before the second reconciliation lookup, ms (then doubling). Default: the client's (1000). */
  reconciliationIntervalMs?: number;
  /**
   * Creates of an order at most, as a merchant's retry loop does them (README "Exactly-once creation"): again
   * after `retryAfterMs` on an unknown outcome, after a backoff (200 ms doubling to 5 s, with jitter) on a
   * timeout or a store that did not answer. Default 1.
   */
  attempts?: number;
  /**
   * With `attempts`: creates again, as above, while less than this many ms have passed since the order's
   * first create, however many attempts that takes (a merchant's retry loop bounded by time). Default: none.
   */
  retryForMs?: number;
  /** Orders created at once, at most. Default: all of them. */
  concurrency?: number;
  /** `totalTimeout` of each create, ms. Default: none. */
  totalTimeoutMs?: number;
  /** Writes a {@link TraceLine} to stderr for each request's start and end and each log line. */
  trace?: boolean;
}

/** One traced event of a worker: a request of an order began or ended, or the client logged. */
export interface TraceLine {
  /** `Date.now()` of the event. */
  at: number;
  pid: number;
  /** `POST`, `GET`, or a log level. */
  kind: string;
  /** The order a POST sends or a lookup searches for, when known. */
  orderNumber?: string;
  /** `start`, then `end` with `status`, or `fail` with `error`; for a log line, the line. */
  event: string;
  status?: number;
  error?: string;
  /**
   * The request's `<pid>-<number>`, sent as its `x-trace-request` header: pairs its start, its end and what
   * the proxy saw of it.
   */
  request?: string;
}

/** One order's outcome in a worker. */
export interface WorkerOutcome {
  orderNumber: string;
  taskId?: string;
  /** The last error's name, after the last attempt. */
  error?: string;
  /** Its message. */
  message?: string;
}

const trace = (line: Omit<TraceLine, 'at' | 'pid'>) =>
  process.stderr.write(`TRACE ${JSON.stringify({ at: Date.now(), pid: process.pid, ...line })}\n`);

let requests = 0;
/** `fetch`, tracing each request of an order: its start, and its answer's status or its failure. */
const tracedFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const kind = request.method;
  const search = new URL(request.url).searchParams.get('search');
  const orderNumber =
    kind === 'POST'
      ? ((await request.clone().json()) as { orderNumber?: string }).orderNumber
      : (search?.replace(/^\^|\$$/g, '').replace(/\\/g, '') ?? undefined);
  const id = `${process.pid}-${++requests}`;
  request.headers.set('x-trace-request', id);
  trace({ kind, ...(orderNumber === undefined ? {} : { orderNumber }), event: 'start', request: id });
  try {
    const response = await fetch(request);
    trace({
      kind,
      ...(orderNumber === undefined ? {} : { orderNumber }),
      event: 'end',
      status: response.status,
      request: id,
    });
    return response;
  } catch (error) {
    const name = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    trace({
      kind,
      ...(orderNumber === undefined ? {} : { orderNumber }),
      event: 'fail',
      error: name,
      request: id,
    });
    throw error;
  }
};

/** A logger tracing each line, with the order it names, if any. */
const logTo =
  (kind: keyof Logger) =>
  (message: string, fields?: Record<string, unknown>): void => {
    const text = fields === undefined ? message : `${message} ${JSON.stringify(fields)}`;
    const orderNumber = /\b[A-Z]+-\d+\b/.exec(text)?.[0];
    trace({ kind, ...(orderNumber === undefined ? {} : { orderNumber }), event: text });
  };
const tracedLogger: Logger = {
  debug: logTo('debug'),
  info: logTo('info'),
  warn: logTo('warn'),
  error: logTo('error'),
};

/** How long a traced worker waits after its last create: the default `listingDelayMs` and 2 s, ms. */
const LATE_COMMIT_CHECK_MS = 12_000;

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? '{}') as WorkerConfig;
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, lazyConnect: false });
  const client = new DeliveryClient({
    apiKey: config.apiKey,
    sellerId: config.sellerId,
    baseUrl: config.baseUrl,
    store: redisStore(redis, { prefix: config.prefix }),
    timeout: config.timeoutMs,
    ...(config.trace === true
      ? { fetch: tracedFetch, logger: tracedLogger, logLevel: 'info' }
      : { logLevel: 'off' }),
    ...(config.reconciliationIntervalMs === undefined
      ? {}
      : { reconciliation: { intervalMs: config.reconciliationIntervalMs } }),
  });
  const createOrder = async (orderNumber: string): Promise<WorkerOutcome> => {
    const startedAt = Date.now();
    for (let attempt = 1; ; attempt++) {
      try {
        const task = await client.tasks.create(
          orderParams(orderNumber),
          config.totalTimeoutMs === undefined ? {} : { totalTimeout: config.totalTimeoutMs },
        );
        return { orderNumber, ...(task.id === undefined ? {} : { taskId: task.id }) };
      } catch (error) {
        // A timeout or a store that did not answer: again after a backoff with jitter, as a merchant's
        // loop would (all 800 creates again at once kept a loaded service from ever answering in time).
        const backoffMs = Math.min(5000, 200 * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
        const waitMs =
          error instanceof TaskCreationOutcomeUnknownError
            ? error.retryAfterMs
            : error instanceof StoreUnavailableError || error instanceof APIConnectionTimeoutError
              ? backoffMs
              : undefined;
        const within =
          config.retryForMs !== undefined && Date.now() + (waitMs ?? 0) - startedAt < config.retryForMs;
        if (waitMs === undefined || (attempt >= (config.attempts ?? 1) && !within)) {
          if (!(error instanceof Error)) return { orderNumber, error: String(error) };
          return { orderNumber, error: error.name, message: error.message };
        }
        await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
    }
  };
  // At most `concurrency` orders at a time, taken in the list's order (every worker meets the same orders).
  const outcomes: WorkerOutcome[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    for (let index = next++; index < config.orders.length; index = next++) {
      outcomes[index] = await createOrder(config.orders[index] as string);
    }
  };
  await Promise.all(Array.from({ length: config.concurrency ?? config.orders.length }, lane));
  // Traced: the client's late-commit checks run `listingDelayMs` (10 s) after each create that sent its
  // order again; waiting for them lets their reports reach the trace.
  if (config.trace === true) await new Promise((resolve) => setTimeout(resolve, LATE_COMMIT_CHECK_MS));
  process.stdout.write(`${JSON.stringify(outcomes)}\n`);
  redis.disconnect();
}

void main();
