/** `GET /_sandbox/events` (docs/sandbox.md, "Events"). */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MockChange, MockDeliveryService, MockObservers } from 'delivery-task-sdk/testing';

/** Default of {@link SandboxEventOptions.maxClients}. */
export const DEFAULT_MAX_EVENT_CLIENTS = 100;

/** Default of {@link SandboxEventOptions.maxBufferedBytes}: 1 MiB. */
export const DEFAULT_MAX_EVENT_BUFFERED_BYTES = 1024 * 1024;

/** Interval of the keep-alive comment, ms. */
export const EVENT_KEEPALIVE_MS = 15_000;

/** Bounds of the event stream. */
export interface SandboxEventOptions {
  /** Most open streams; one more is answered 503 `TOO_MANY_EVENT_STREAMS`. Default 100. */
  maxClients?: number;
  /** Most bytes written to one stream and not yet sent; beyond, the stream is closed. Default 1 MiB. */
  maxBufferedBytes?: number;
}

/** One Server-Sent Event: its name and its data as one line of JSON. */
const frame = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** The open event streams of one sandbox. */
export class SandboxEvents {
  readonly #clients = new Set<ServerResponse>();
  readonly #maxClients: number;
  readonly #maxBufferedBytes: number;
  readonly #mock: MockDeliveryService;
  readonly #observers: MockObservers;
  readonly #unsubscribe: () => void;
  /** Coalesced kinds waiting for the next turn of the event loop. */
  readonly #pending = new Set<'wallet' | 'faults' | 'requests'>();
  #flushScheduled = false;
  #keepAlive: ReturnType<typeof setInterval> | undefined;
  /** Streams dropped for being too slow, since the start. */
  dropped = 0;

  constructor(mock: MockDeliveryService, observers: MockObservers, options: SandboxEventOptions = {}) {
    this.#mock = mock;
    this.#observers = observers;
    this.#maxClients = options.maxClients ?? DEFAULT_MAX_EVENT_CLIENTS;
    this.#maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_EVENT_BUFFERED_BYTES;
    for (const [name, value] of [
      ['maxClients', this.#maxClients],
      ['maxBufferedBytes', this.#maxBufferedBytes],
    ] as const) {
      if (!Number.isSafeInteger(value) || value < 1) {
        throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
      }
    }
    this.#unsubscribe = observers.subscribe((change) => this.#onChange(change));
  }

  /** Number of open streams. */
  get size(): number {
    return this.#clients.size;
  }

  /**
   * Answers `GET /_sandbox/events`: opens a stream, or 503 when {@link SandboxEventOptions.maxClients} are
   * open.
   */
  open(request: IncomingMessage, response: ServerResponse): void {
    if (this.#clients.size >= this.#maxClients) {
      response
        .writeHead(503, {
          'content-type': 'application/json',
          'cache-control': 'no-store',
          'retry-after': '5',
        })
        .end(
          JSON.stringify({
            message: `The sandbox already serves ${this.#maxClients} event streams`,
            code: 'TOO_MANY_EVENT_STREAMS',
          }),
        );
      return;
    }
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    request.socket.setNoDelay(true);
    this.#clients.add(response);
    response.on('close', () => this.#remove(response));
    this.#write(response, `retry: 1000\n${frame('ready', {})}`);
    this.#keepAlive ??= setInterval(() => this.#broadcast(': keep-alive\n\n'), EVENT_KEEPALIVE_MS);
    this.#keepAlive.unref();
  }

  /** Ends every stream and stops listening to the mock. */
  close(): void {
    this.#unsubscribe();
    clearInterval(this.#keepAlive);
    this.#keepAlive = undefined;
    for (const client of this.#clients) client.destroy();
    this.#clients.clear();
  }

  /** The request log grew (the sandbox calls this when an answer of the service's routes ends). */
  requestLogged(): void {
    this.#coalesce('requests');
  }

  #remove(response: ServerResponse): void {
    this.#clients.delete(response);
    if (this.#clients.size === 0) {
      clearInterval(this.#keepAlive);
      this.#keepAlive = undefined;
    }
  }

  #onChange(change: MockChange): void {
    if (this.#clients.size === 0) return;
    switch (change.kind) {
      case 'task': {
        const record = this.#observers.record(change.taskId);
        if (record) this.#broadcast(frame('task', { task: record.task, feeFils: record.feeFils }));
        return;
      }
      case 'webhook':
        this.#broadcast(frame('webhook', change.delivery));
        return;
      case 'reset':
        this.#pending.clear();
        this.#broadcast(frame('reset', {}));
        return;
      default:
        this.#coalesce(change.kind);
    }
  }

  #coalesce(kind: 'wallet' | 'faults' | 'requests'): void {
    if (this.#clients.size === 0) return;
    this.#pending.add(kind);
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(() => {
      this.#flushScheduled = false;
      const kinds = [...this.#pending];
      this.#pending.clear();
      for (const kind of kinds) {
        if (kind === 'wallet') this.#broadcast(frame('wallet', this.#mock.wallet));
        else if (kind === 'faults')
          this.#broadcast(frame('faults', { active: activeFaults(this.#observers) }));
        else this.#broadcast(frame('requests', {}));
      }
    });
  }

  #broadcast(text: string): void {
    for (const client of this.#clients) this.#write(client, text);
  }

  /** Writes to one stream, or closes it when it holds more than the bound unsent. */
  #write(client: ServerResponse, text: string): void {
    if (client.writableLength + Buffer.byteLength(text) > this.#maxBufferedBytes) {
      this.dropped += 1;
      this.#remove(client);
      client.destroy();
      return;
    }
    client.write(text);
  }
}

/** The active fault rules in their JSON form (`Infinity` as `"Infinity"`), each with its index. */
export function activeFaults(observers: MockObservers): unknown[] {
  return observers
    .faultRules()
    .map(({ rule, remaining }, index) =>
      JSON.parse(
        JSON.stringify({ index, rule, remaining }, (_key, value: unknown) =>
          value === Number.POSITIVE_INFINITY ? 'Infinity' : value,
        ),
      ),
    );
}
