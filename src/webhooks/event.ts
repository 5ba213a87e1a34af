/** A webhook body → a typed {@link WebhookEvent} (OpenAPI webhook `taskStatusChanged`). @module */
import { type ValidationIssue, WebhookPayloadError } from '../core/errors.js';
import type { SchemaDrift, ValidationMode } from '../core/options.js';
import { MAX_JSON_DEPTH, nestsDeeperThan, UNSCANNED_JSON_CHARS, withinDepth } from '../internal/json.js';
import { safeParse, toValidationIssues, validAsIs } from '../internal/validate.js';
import type { AnyTaskStatus, Task } from '../schemas/task.js';
import { type Drift, readTolerantly, typeName } from '../schemas/tolerant-read.js';
import { type WebhookEventKind, WebhookTask, WebhookTaskId } from '../schemas/webhook.js';

/** Fields every {@link WebhookEvent} has, confirmed or not. */
export interface WebhookEventFields {
  /**
   * The event kind: the body's `status` (OpenAPI webhook `taskStatusChanged`); for a sync event, the task's
   * status.
   */
  kind: WebhookEventKind;
  /** The task id: the body's `_id`, else its `id`. */
  taskId: string;
  /**
   * The body as received, parsed (`null` members dropped, unknown fields kept); for a sync event, the listed
   * task.
   */
  payload: WebhookTask;
  /**
   * When the webhook arrived (when it was parsed, for {@link parseWebhookEvent}); for a sync event, when its
   * page was read.
   */
  receivedAt: Date;
}

/**
 * A task's status change; unconfirmed, `task` is the unsigned body (docs/webhooks.md "Why and how to
 * confirm").
 */
export type WebhookEvent =
  | (WebhookEventFields & {
      /** A webhook was received. */
      source: 'webhook';
      /** The body was not checked against the service. */
      confirmed: false;
      /** The effective status: the event kind. */
      status: WebhookEventKind;
      /** The webhook body (the same object as `payload`). */
      task: WebhookTask;
    })
  | (WebhookEventFields & {
      /**
       * `'webhook'`: a webhook was received and confirmed; `'sync'`: found by `handler.sync()` in
       * `GET tasks`.
       */
      source: 'webhook' | 'sync';
      /** The task was read from the service (`GET tasks/{id}` after the webhook arrived, or `GET tasks`). */
      confirmed: true;
      /** The effective status: the status of the task read back. */
      status: AnyTaskStatus;
      /** The task read back with `GET tasks/{id}` (or listed by `GET tasks`, for a sync event). */
      task: Task;
    });

const utf8 = new TextDecoder('utf-8', { fatal: true });

function payloadError(path: string, message: string, code: string): WebhookPayloadError {
  const issue: ValidationIssue = { path, message, code };
  return new WebhookPayloadError([issue]);
}

/**
 * The body as a JSON value: text and bytes parsed, nesting bounded, `null` members and `__proto__` keys
 * removed from the parsed value (as response bodies are); any other value read as its JSON text, so the
 * caller's object is left as it is.
 */
function toJsonValue(body: unknown): unknown {
  let text: string;
  if (typeof body === 'string') {
    text = body;
  } else if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) {
    try {
      // Decoded as the view it is: its own bytes of its buffer.
      text = utf8.decode(body);
    } catch {
      throw payloadError('', 'Body is not valid UTF-8', 'invalid_json');
    }
  } else {
    // Throws for a value with no JSON text (a cycle, a BigInt): not a JSON value.
    text = JSON.stringify(body) ?? '';
  }
  // A long body is refused before parsing (JSON.parse is slow on deep `[[[…`), a short one after.
  if (text.length <= UNSCANNED_JSON_CHARS || !nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // JSON.parse's message quotes the body; it may hold personal data, so it is not passed on.
      throw payloadError('', 'Body is not JSON', 'invalid_json');
    }
    if (typeof value !== 'object' || value === null || withinDepth(value, 1)) return value;
  }
  throw payloadError('', `Body nests deeper than ${MAX_JSON_DEPTH} levels`, 'too_big');
}

/** `_id`, else `id` ({@link WebhookTaskId}); missing or unusable: {@link WebhookPayloadError}. */
function taskIdOf(received: Record<string, unknown>, payload: WebhookTask): string {
  const field = received._id !== undefined ? '_id' : received.id !== undefined ? 'id' : undefined;
  if (field === undefined) throw payloadError('_id', 'Missing task id (_id, or id)', 'invalid_type');
  const result = safeParse(WebhookTaskId, payload[field] ?? received[field]);
  if (!result.success) {
    throw new WebhookPayloadError(
      toValidationIssues(result.error.issues).map((issue) => ({ ...issue, path: field })),
    );
  }
  return result.data;
}

/** How a webhook body is read: the validation mode and where drift goes (README "Schema drift"). */
export interface WebhookReading {
  /** `'tolerant'` (default) or `'strict'`; see `ValidationMode`. */
  validation?: ValidationMode | undefined;
  /** Called for each drifted field of a body read tolerantly. */
  onDrift?: ((drift: SchemaDrift) => void) | undefined;
}

function readPayload(
  value: Record<string, unknown>,
  reading: WebhookReading,
): { payload: WebhookTask; drifts: readonly Drift[] } {
  // A valid body is its own payload: checked without the copy a parse makes (`validAsIs`).
  if (validAsIs(WebhookTask, value)) return { payload: value as WebhookTask, drifts: [] };
  const result = safeParse(WebhookTask, value);
  if (result.success) return { payload: result.data, drifts: [] };
  if (reading.validation === 'strict') throw new WebhookPayloadError(toValidationIssues(result.error.issues));
  const drifts: Drift[] = [];
  const read = readTolerantly(WebhookTask, value, drifts);
  const reread = read.ok ? safeParse(WebhookTask, read.value) : undefined;
  if (reread === undefined || !reread.success) {
    throw new WebhookPayloadError(
      drifts
        .filter((drift) => drift.action === 'omitted')
        .map((drift) => ({
          path: drift.path,
          message: `Expected ${drift.expected}, received ${drift.received}`,
          code: 'invalid_type',
        })),
    );
  }
  return { payload: reread.data, drifts };
}

function reportDrift(drifts: readonly Drift[], reading: WebhookReading): void {
  if (reading.onDrift === undefined) return;
  for (const drift of drifts) {
    try {
      reading.onDrift({ operation: 'webhook', ...drift });
    } catch {}
  }
}

/** @internal */
export function parseWebhookEventAt(
  body: unknown,
  receivedAt: Date,
  reading: WebhookReading = {},
): WebhookEvent & { confirmed: false; source: 'webhook' } {
  let value: unknown;
  try {
    value = toJsonValue(body);
  } catch (error) {
    if (error instanceof WebhookPayloadError) throw error;
    throw payloadError('', 'Body is not a JSON value', 'invalid_type');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw payloadError('', `Expected the task as a JSON object, got ${typeName(value)}`, 'invalid_type');
  }
  const received = value as Record<string, unknown>;
  const { payload, drifts } = readPayload(received, reading);
  const taskId = taskIdOf(received, payload);
  reportDrift(drifts, reading);
  return {
    kind: payload.status,
    taskId,
    status: payload.status,
    task: payload,
    payload,
    source: 'webhook',
    confirmed: false,
    receivedAt,
  };
}

/**
 * Parses a webhook body (JSON, JSON text or UTF-8 bytes; no size limit) into an unconfirmed event.
 * @throws {WebhookPayloadError} for a body not a JSON object, without a task id or `status`, or (strict)
 * drifted.
 */
export function parseWebhookEvent(
  body: unknown,
  reading: WebhookReading = {},
): WebhookEvent & { confirmed: false; source: 'webhook' } {
  return parseWebhookEventAt(body, new Date(), reading);
}

/**
 * @internal The confirmed sync event of a task listed by `GET tasks`; `undefined` without a valid id or
 * status.
 */
export function syncEventOf(task: Task, receivedAt: Date): (WebhookEvent & { source: 'sync' }) | undefined {
  const taskId = safeParse(WebhookTaskId, task.id);
  const status = task.status;
  if (!taskId.success || typeof status !== 'string' || status === '') return undefined;
  const parsed = safeParse(WebhookTask, task);
  const payload: WebhookTask = parsed.success ? parsed.data : { ...task, status };
  return {
    kind: status,
    taskId: taskId.data,
    status,
    task,
    payload,
    source: 'sync',
    confirmed: true,
    receivedAt,
  };
}
