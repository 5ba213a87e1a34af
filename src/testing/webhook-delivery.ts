/** One webhook POST; the receiver has 5 s, no retry (OpenAPI webhook `taskStatusChanged`). @module */

import { anySignal } from '../internal/abort.js';
import type { MockWebhookDelivery } from './types.js';

export const WEBHOOK_TIMEOUT_MS = 5_000;

/**
 * Most bytes of a receiver's answer read (only its status is used; delivery-task-tools/docs/sandbox.md
 * "Bounds").
 */
export const MAX_WEBHOOK_ANSWER_BYTES = 4 * 1024;

/** Reads at most {@link MAX_WEBHOOK_ANSWER_BYTES} of `body`, then cancels it. */
async function readAnswerHead(body: ReadableStream<Uint8Array> | null): Promise<void> {
  if (body === null) return;
  const reader = body.getReader();
  try {
    let length = 0;
    while (length <= MAX_WEBHOOK_ANSWER_BYTES) {
      const { done, value } = await reader.read();
      if (done) return;
      length += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** One webhook to send. */
export interface WebhookPost {
  readonly url: string;
  readonly taskId: string;
  readonly status: string;
  readonly body: Record<string, unknown>;
}

function reasonOf(error: unknown, timedOut: boolean, cancelled: boolean): string {
  if (timedOut) return `no answer within ${WEBHOOK_TIMEOUT_MS} ms`;
  if (cancelled) return 'cancelled by reset() or close() of the mock';
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}

/** POSTs `post.body` once and reports the outcome; never throws. `cancel`: the mock's reset or close. */
export async function sendWebhook(post: WebhookPost, cancel: AbortSignal): Promise<MockWebhookDelivery> {
  const timeout = AbortSignal.timeout(WEBHOOK_TIMEOUT_MS);
  const started = performance.now();
  const outcome = { taskId: post.taskId, status: post.status, url: post.url, body: post.body };
  const elapsed = () => Math.round(performance.now() - started);
  let responseStatus: number | undefined;
  try {
    const response = await fetch(post.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'delivery-task-sdk-mock' },
      body: JSON.stringify(post.body),
      signal: anySignal([timeout, cancel]),
      redirect: 'manual',
    });
    responseStatus = response.status;
    await readAnswerHead(response.body);
    return { ...outcome, responseStatus, durationMs: elapsed() };
  } catch (error) {
    const failure = {
      ...outcome,
      error: reasonOf(error, timeout.aborted, cancel.aborted),
      durationMs: elapsed(),
    };
    return responseStatus === undefined ? failure : { ...failure, responseStatus };
  }
}

/** Default of the delivery log's byte bound: 8 MiB held (counted as the request log counts). */
export const DEFAULT_DELIVERY_LOG_BYTES = 8 * 1024 * 1024;

/** Bytes counted for each kept delivery besides its strings. */
const DELIVERY_BYTES = 256;

const stringBytes = (text: string): number => 24 + 2 * text.length;

/**
 * A delivery with its number (as `NumberedWebhookDelivery` of `MockObservers`; kept here so neither imports
 * the other).
 */
type NumberedWebhookDelivery = MockWebhookDelivery & { readonly seq: number; readonly resentFrom?: number };

/** A delivery as the log holds it: its body as JSON text. */
export interface HeldDelivery extends Omit<NumberedWebhookDelivery, 'body'> {
  /** The body, JSON text. */
  readonly bodyJson: string;
}

/** One page of the delivery log: in the order they finished, and the cursor to the older ones. */
export interface WebhookDeliveryPage {
  readonly deliveries: readonly HeldDelivery[];
  readonly total: number;
  /** Pass as `before` for the page of older deliveries; absent on the oldest page. */
  readonly before?: number;
}

interface KeptDelivery {
  readonly delivery: HeldDelivery;
  readonly size: number;
}

/** The parsed form of a held delivery. */
function numberedOf({ bodyJson, ...rest }: HeldDelivery): NumberedWebhookDelivery {
  return { ...rest, body: JSON.parse(bodyJson) as Record<string, unknown> };
}

/**
 * Webhook deliveries in the order they finished: the most recent `limit`, holding at most `maxBytes` (each
 * body kept as its JSON text, never as objects), numbered 1, 2, 3… (never reused, not restarted by a reset).
 */
export class WebhookDeliveryLog {
  #kept: KeptDelivery[] = [];
  #bytes = 0;
  #seq = 0;
  readonly #limit: number;
  readonly #maxBytes: number;

  /** `limit`: deliveries kept (a positive integer); `maxBytes`: bytes held in all. */
  constructor(limit: number, maxBytes = DEFAULT_DELIVERY_LOG_BYTES) {
    this.#limit = limit;
    this.#maxBytes = maxBytes;
  }

  get size(): number {
    return this.#kept.length;
  }

  /** Bytes held by the kept deliveries (strings at 2 bytes a character, plus each record). */
  get bytes(): number {
    return this.#bytes;
  }

  /** Keeps a delivery, numbers it and drops the oldest while past a bound; returns it numbered. */
  add(outcome: MockWebhookDelivery, resentFrom?: number): NumberedWebhookDelivery {
    this.#seq += 1;
    const { body, ...rest } = outcome;
    const delivery: HeldDelivery = {
      ...rest,
      seq: this.#seq,
      ...(resentFrom === undefined ? {} : { resentFrom }),
      bodyJson: JSON.stringify(body),
    };
    const size =
      DELIVERY_BYTES +
      stringBytes(delivery.taskId) +
      stringBytes(delivery.status) +
      stringBytes(delivery.url) +
      stringBytes(delivery.error ?? '') +
      stringBytes(delivery.bodyJson);
    this.#kept.push({ delivery, size });
    this.#bytes += size;
    let drop = 0;
    while (
      this.#kept.length - drop > this.#limit ||
      (this.#bytes > this.#maxBytes && this.#kept.length - drop > 1)
    ) {
      this.#bytes -= (this.#kept[drop] as KeptDelivery).size;
      drop += 1;
    }
    if (drop > 0) this.#kept.splice(0, drop);
    return numberedOf(delivery);
  }

  /** Delivery `seq` with its body parsed, `undefined` when not kept. */
  find(seq: number): NumberedWebhookDelivery | undefined {
    const kept = this.#kept.find(({ delivery }) => delivery.seq === seq);
    return kept === undefined ? undefined : numberedOf(kept.delivery);
  }

  /** Every kept delivery, oldest first, bodies parsed (copies). */
  all(): NumberedWebhookDelivery[] {
    return this.#kept.map(({ delivery }) => numberedOf(delivery));
  }

  /**
   * The newest `limit` deliveries numbered below `before` (all when absent), oldest first, bodies as JSON
   * text.
   */
  page(limit: number, before?: number): WebhookDeliveryPage {
    let end = this.#kept.length;
    if (before !== undefined) {
      while (end > 0 && (this.#kept[end - 1] as KeptDelivery).delivery.seq >= before) end -= 1;
    }
    const begin = Math.max(0, end - limit);
    const deliveries = this.#kept.slice(begin, end).map(({ delivery }) => delivery);
    const oldest = deliveries[0];
    return begin > 0 && oldest !== undefined
      ? { deliveries, total: this.size, before: oldest.seq }
      : { deliveries, total: this.size };
  }

  /** Forgets every delivery (numbers go on). */
  clear(): void {
    this.#kept = [];
    this.#bytes = 0;
  }
}
