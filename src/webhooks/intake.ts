/**
 * The intake of a webhook handler: its adapters (`fetch`, `node`) read each webhook, and admission answers
 * it at once: rejected, a duplicate dropped, or passed on to the queue or the inbox for processing.
 * @module
 */
import { WebhookPayloadError } from '../core/errors.js';
import type { LevelLogger } from '../internal/logger.js';
import type { AdmittedEvents } from './admitted-events.js';
import { type BodyRead, precheck, RECEIVED, rejection, unreadBody, type WebhookAnswer } from './answer.js';
import { parseWebhookEventAt, type WebhookEvent, type WebhookReading } from './event.js';
import type { TaskEventFilter } from './event-filter.js';
import type { HandlerSettings } from './handler-options.js';
import { type InboxAppend, type WebhookInbox, withDeadline } from './inbox.js';
import { readNodeBody, type WebhookNodeRequest, type WebhookNodeResponse, writeNodeAnswer } from './node.js';
import type { WebhookFetchContext, WebhookHandlerStats, WebhookNodeOptions } from './options.js';
import type { EventPipeline } from './pipeline.js';
import type { TaskEventQueue } from './queue.js';
import { readRequestBody, toResponse } from './web.js';

/** What the intake shares with its receiver. */
export interface IntakeParts {
  readonly pipeline: EventPipeline;
  readonly confirms: (kind: string) => boolean;
  readonly filter: TaskEventFilter;
  readonly queue: TaskEventQueue;
  readonly maxBodyBytes: number;
  readonly bodyTimeoutMs: number;
  readonly logger: LevelLogger;
  readonly reading: WebhookReading;
  readonly stats: WebhookHandlerStats;
  readonly inbox: WebhookInbox | undefined;
  readonly inboxTimeoutMs: number;
  /** Where a stored event is kept parsed for this process's inbox worker; none without one. */
  readonly admitted: AdmittedEvents | undefined;
  /** Tells the inbox's worker an event was stored. */
  readonly wake: () => void;
}

/** Receives webhooks: the handler's `fetch` and `node`. */
export class WebhookIntake {
  readonly #pipeline: EventPipeline;
  readonly #confirms: (kind: string) => boolean;
  readonly #filter: TaskEventFilter;
  readonly #queue: TaskEventQueue;
  readonly #maxBodyBytes: number;
  readonly #bodyTimeoutMs: number;
  readonly #logger: LevelLogger;
  readonly #reading: WebhookReading;
  readonly #stats: WebhookHandlerStats;
  readonly #inbox: WebhookInbox | undefined;
  readonly #inboxTimeoutMs: number;
  readonly #admitted: AdmittedEvents | undefined;
  readonly #wake: () => void;

  constructor(
    settings: HandlerSettings,
    reading: WebhookReading,
    pipeline: EventPipeline,
    filter: TaskEventFilter,
    queue: TaskEventQueue,
    stats: WebhookHandlerStats,
    logger: LevelLogger,
    admitted: AdmittedEvents | undefined,
    wake: () => void,
  ) {
    this.#pipeline = pipeline;
    this.#confirms = settings.confirms;
    this.#filter = filter;
    this.#queue = queue;
    this.#maxBodyBytes = settings.maxBodyBytes;
    this.#bodyTimeoutMs = settings.bodyTimeoutMs;
    this.#logger = logger;
    this.#reading = reading;
    this.#stats = stats;
    this.#inbox = settings.inbox;
    this.#inboxTimeoutMs = settings.inboxTimeoutMs;
    this.#admitted = admitted;
    this.#wake = wake;
  }

  fetch = async (request: Request, context?: WebhookFetchContext): Promise<Response> => {
    this.#stats.received++;
    try {
      const receivedAt = new Date();
      const early = precheck(
        request.method,
        request.headers.get('content-type'),
        request.headers.get('content-length'),
        this.#maxBodyBytes,
      );
      if (early !== undefined) return toResponse(this.#reject(early));
      const body = await readRequestBody(request, this.#maxBodyBytes, this.#bodyTimeoutMs);
      const { answer, done } = await this.#admit(body, receivedAt, 'fetch');
      if (done !== undefined && context !== undefined) {
        try {
          context.waitUntil(done);
        } catch (error) {
          // The event is queued all the same: the sender still gets its 200.
          void this.#pipeline.report(error, undefined);
        }
      }
      return toResponse(answer);
    } catch (error) {
      return toResponse(this.#internalFailure(error));
    }
  };

  node = async (
    req: WebhookNodeRequest,
    res: WebhookNodeResponse,
    options?: WebhookNodeOptions,
  ): Promise<void> => {
    this.#stats.received++;
    try {
      const receivedAt = new Date();
      const early = precheck(
        req.method,
        req.headers['content-type'],
        req.headers['content-length'],
        this.#maxBodyBytes,
      );
      if (early !== undefined) {
        writeNodeAnswer(req, res, this.#reject(early));
        return;
      }
      // Express passes `next` (a function) as the third argument: only an object is options.
      const given = typeof options === 'object' && options !== null ? options.body : undefined;
      const parsed = given ?? req.body;
      const body: BodyRead | { ok: true; value: unknown } =
        parsed !== undefined
          ? { ok: true, value: parsed }
          : await readNodeBody(req, this.#maxBodyBytes, this.#bodyTimeoutMs);
      writeNodeAnswer(req, res, (await this.#admit(body, receivedAt, 'node')).answer);
    } catch (error) {
      writeNodeAnswer(req, res, this.#internalFailure(error));
    }
  };

  #reject(answer: WebhookAnswer): WebhookAnswer {
    this.#stats.rejected++;
    this.#logger.warn(`Webhook rejected with ${answer.status}`, { answer: answer.body });
    return answer;
  }

  #internalFailure(error: unknown): WebhookAnswer {
    this.#stats.rejected++;
    this.#pipeline.report(error, undefined);
    return rejection(500, 'the webhook could not be received');
  }

  /** Parses, drops duplicates, queues or stores: the answer, and when queued, the end of processing. */
  async #admit(
    body: BodyRead | { ok: true; value: unknown },
    receivedAt: Date,
    adapter: 'node' | 'fetch',
  ): Promise<{ answer: WebhookAnswer; done?: Promise<void> }> {
    if (!body.ok) {
      const limits = { maxBodyBytes: this.#maxBodyBytes, bodyTimeoutMs: this.#bodyTimeoutMs, adapter };
      return { answer: this.#reject(unreadBody(body.reason, limits)) };
    }
    let event: WebhookEvent & { confirmed: false; source: 'webhook' };
    try {
      event = parseWebhookEventAt('value' in body ? body.value : body.bytes, receivedAt, this.#reading);
    } catch (error) {
      if (!(error instanceof WebhookPayloadError)) throw error;
      return { answer: this.#reject(rejection(400, error.message)) };
    }
    const now = receivedAt.getTime();
    if (this.#filter.arrivals?.isDuplicate(event.taskId, event.kind, now)) {
      this.#pipeline.dropDuplicate(event);
      return { answer: RECEIVED };
    }
    if (this.#inbox !== undefined) return { answer: await this.#store(this.#inbox, event, now) };
    if (this.#queue.isFull()) {
      return { answer: this.#reject(rejection(503, 'too many webhooks waiting to be processed')) };
    }
    const size = this.#sizeOf(body);
    if (!this.#queue.hasRoomFor(size)) {
      return { answer: this.#reject(rejection(503, 'the webhooks being processed hold too many bytes')) };
    }
    // A kind to confirm is marked once the GET agrees: marked now, a forged one would hide a genuine one.
    if (!this.#confirms(event.kind)) this.#filter.arrivals?.mark(event.taskId, event.kind, now);
    return {
      answer: RECEIVED,
      done: this.#queue.push(event.taskId, (slot) => this.#pipeline.process(event, false, slot), size),
    };
  }

  /** Writes a parsed webhook to the inbox: 200 once stored, 503 (one warning line) when it could not be. */
  async #store(inbox: WebhookInbox, event: WebhookEvent, now: number): Promise<WebhookAnswer> {
    const { taskId, kind } = event;
    let entry: InboxAppend | undefined;
    try {
      entry = { taskId, kind, body: JSON.stringify(event.payload), receivedAt: now };
      // Kept before the write: the worker may claim the entry before the write's answer arrives here.
      this.#admitted?.keep(entry, event);
      await withDeadline(inbox.append(entry), this.#inboxTimeoutMs, 'inbox write');
    } catch (error) {
      if (entry !== undefined) this.#admitted?.forget(entry);
      this.#stats.rejected++;
      this.#logger.warn(
        `Webhook for task ${taskId} (${kind}) answered 503: the inbox did not store it (${(error as Error)?.message ?? String(error)})`,
      );
      return rejection(503, 'the webhook could not be stored');
    }
    this.#stats.stored++;
    if (!this.#confirms(kind)) this.#filter.arrivals?.mark(taskId, kind, now);
    this.#wake();
    return RECEIVED;
  }

  /**
   * A body's size, bytes: as read, else the text or bytes given, else its JSON length (`maxBodyBytes` if
   * none).
   */
  #sizeOf(body: { ok: true; bytes: Uint8Array } | { ok: true; value: unknown }): number {
    const value = 'value' in body ? body.value : body.bytes;
    if (typeof value === 'string') return value.length;
    if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return value.byteLength;
    try {
      return JSON.stringify(value)?.length ?? 0;
    } catch {
      return this.#maxBodyBytes;
    }
  }
}
