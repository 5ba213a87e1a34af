/**
 * `parseWebhookEvent`: a webhook body → a typed {@link WebhookEvent}; OpenAPI webhook `taskStatusChanged` and
 * OpenAPI schema `WebhookTask`.
 * @module
 */
import { type ValidationIssue, WebhookPayloadError } from '../core/errors.js';
import type { SchemaDrift, ValidationMode } from '../core/options.js';
import { nestsDeeperThan } from '../internal/json.js';
import { safeParse, toValidationIssues } from '../internal/validate.js';
import type { AnyTaskStatus, Task } from '../schemas/task.js';
import { type Drift, readTolerantly } from '../schemas/tolerant-read.js';
import { type WebhookEventKind, WebhookTask, WebhookTaskId } from '../schemas/webhook.js';

/** Fields every {@link WebhookEvent} has, confirmed or not. */
export interface WebhookEventFields {
  /** The event kind: the body's `status` (OpenAPI webhook `taskStatusChanged`); for a sync event, the task's status. */
  kind: WebhookEventKind;
  /** The task id: the body's `_id`, else its `id`. */
  taskId: string;
  /**
   * The webhook body as received, parsed (`null` members dropped, unknown fields kept). For a sync event
   * (`source: 'sync'`, no webhook was received) the task as `GET tasks` listed it, read with the same
   * schema.
   */
  payload: WebhookTask;
  /** When the webhook arrived (when it was parsed, for {@link parseWebhookEvent}); for a sync event, when its page was read. */
  receivedAt: Date;
}

/**
 * One status change of a task, as pushed by the service (OpenAPI webhook `taskStatusChanged`) or found by the handler's
 * `sync()`.
 *
 * - Unconfirmed (`confirmed: false`, always from a webhook): `status` is the event kind and `task` is the
 *   webhook body. The service does not sign webhooks, so treat it as a hint (OpenAPI webhook `taskStatusChanged`).
 * - Confirmed (`confirmed: true`, see the handler's `confirm` option): `task` is the result of
 *   `GET tasks/{id}` made after the webhook arrived and `status` is that task's status. The GET wins over
 *   the body: a forged `delivered` whose GET says `enroute` arrives with `status: 'enroute'`.
 *   `payload` still holds the body as received.
 * - `source` says where the event came from: `'webhook'` for a webhook received, `'sync'` for a status
 *   found by `handler.sync()` walking `GET tasks` (a listed task is the service's own answer, so a sync
 *   event is always confirmed, and `kind` and `status` are the task's status).
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
      /** `'webhook'`: a webhook was received and confirmed; `'sync'`: found by `handler.sync()` in `GET tasks`. */
      source: 'webhook' | 'sync';
      /** The task was read from the service (`GET tasks/{id}` after the webhook arrived, or `GET tasks`). */
      confirmed: true;
      /** The effective status: the status of the task read back. */
      status: AnyTaskStatus;
      /** The task read back with `GET tasks/{id}` (or listed by `GET tasks`, for a sync event). */
      task: Task;
    });

/** Nesting deeper than this is refused: no task field nests beyond a few levels. */
const MAX_DEPTH = 64;
const utf8 = new TextDecoder('utf-8', { fatal: true });

function payloadError(path: string, message: string, code: string): WebhookPayloadError {
  const issue: ValidationIssue = { path, message, code };
  return new WebhookPayloadError([issue]);
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/**
 * A copy of a JSON-like value without `null` members (absent, as the spec calls every field optional)
 * and without `__proto__` keys (so nothing can change a prototype). Array elements are kept as they
 * are, `null` included, so positions do not shift.
 */
function withoutNullMembers(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth > MAX_DEPTH) throw payloadError('', `Body nests deeper than ${MAX_DEPTH} levels`, 'too_big');
  if (Array.isArray(value)) return value.map((item: unknown) => withoutNullMembers(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (key === '__proto__') continue;
    const member: unknown = (value as Record<string, unknown>)[key];
    if (member === null || member === undefined) continue;
    copy[key] = withoutNullMembers(member, depth + 1);
  }
  return copy;
}

/** The body as a JSON value: text and bytes are parsed, anything else is taken as already parsed. */
function toJsonValue(body: unknown): unknown {
  let text: string;
  if (typeof body === 'string') {
    text = body;
  } else if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) {
    const bytes =
      body instanceof ArrayBuffer
        ? new Uint8Array(body)
        : new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    try {
      text = utf8.decode(bytes);
    } catch {
      throw payloadError('', 'Body is not valid UTF-8', 'invalid_json');
    }
  } else {
    return body;
  }
  // Refused before parsing: JSON.parse alone spends most of a second on a megabyte of `[[[…`.
  if (nestsDeeperThan(text, MAX_DEPTH)) throw payloadError('', `Body nests deeper than ${MAX_DEPTH} levels`, 'too_big');
  try {
    return JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the body; it may hold personal data, so it is not passed on.
    throw payloadError('', 'Body is not JSON', 'invalid_json');
  }
}

/**
 * The task id of a read body: `_id` when the body has one, else `id`; both follow {@link WebhookTaskId}.
 * Load-bearing: an id that is missing or unusable (after tolerant reading) is a {@link WebhookPayloadError}.
 */
function taskIdOf(received: Record<string, unknown>, payload: WebhookTask): string {
  const field = received._id !== undefined ? '_id' : received.id !== undefined ? 'id' : undefined;
  if (field === undefined) throw payloadError('_id', 'Missing task id (_id, or id)', 'invalid_type');
  const result = safeParse(WebhookTaskId, payload[field] ?? received[field]);
  if (!result.success) {
    throw new WebhookPayloadError(toValidationIssues(result.error.issues).map((issue) => ({ ...issue, path: field })));
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

/** The body read as a {@link WebhookTask}: strictly, or tolerantly with its drift (reported by the caller). */
function readPayload(
  value: Record<string, unknown>,
  reading: WebhookReading,
): { payload: WebhookTask; drifts: readonly Drift[] } {
  const result = safeParse(WebhookTask, value);
  if (result.success) return { payload: result.data, drifts: [] };
  if (reading.validation === 'strict') throw new WebhookPayloadError(toValidationIssues(result.error.issues));
  const drifts: Drift[] = [];
  const read = readTolerantly(WebhookTask, value, drifts);
  const reread = read.ok ? safeParse(WebhookTask, read.value) : undefined;
  if (reread === undefined || !reread.success) {
    // Load-bearing: the event kind (`status`) is missing or unusable.
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

/** Reports the drift of an accepted body to `reading.onDrift` (a listener that throws is ignored). */
function reportDrift(drifts: readonly Drift[], reading: WebhookReading): void {
  if (reading.onDrift === undefined) return;
  for (const drift of drifts) {
    try {
      reading.onDrift({ operation: 'webhook', ...drift });
    } catch {
      // The listener's failure is its own; the event is still taken.
    }
  }
}

/**
 * {@link parseWebhookEvent} with the arrival time given.
 * @internal Used by the webhook handler.
 */
export function parseWebhookEventAt(
  body: unknown,
  receivedAt: Date,
  reading: WebhookReading = {},
): WebhookEvent & { confirmed: false; source: 'webhook' } {
  let value: unknown;
  try {
    value = withoutNullMembers(toJsonValue(body), 0);
  } catch (error) {
    if (error instanceof WebhookPayloadError) throw error;
    // A getter that throws, a cycle deeper than the stack: the value is not a JSON body.
    throw payloadError('', 'Body is not a JSON value', 'invalid_type');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw payloadError('', `Expected the task as a JSON object, got ${describeType(value)}`, 'invalid_type');
  }
  const received = value as Record<string, unknown>;
  const { payload, drifts } = readPayload(received, reading);
  const taskId = taskIdOf(received, payload);
  // Only a body taken as an event reports drift: a refused one is logged as a rejection instead.
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
 * Parses a webhook body (OpenAPI webhook `taskStatusChanged`: the full task, POSTed on each status change) into a typed
 * event with `confirmed: false` and `source: 'webhook'`.
 *
 * - `body`: the parsed JSON (an object), the JSON text (`string`), or its UTF-8 bytes (`Uint8Array`,
 *   `Buffer`, any `ArrayBufferView`, `ArrayBuffer`). No size limit is applied here (the handler's
 *   `maxBodyBytes` is).
 * - `kind` and `status` are the body's `status`: one of the seven kinds of OpenAPI webhook `taskStatusChanged`or
 *   any other non-empty string (never rejected for being unknown).
 * - `taskId` is `_id`, else `id`: a string of 1–128 characters without control characters.
 * - `payload` and `task` are the body, typed as {@link WebhookTask}: the webhook forms of
 *   `deliveryLocation` and `pickupLocation`, `estimatedPrice`, `walletDeducted`, `driver.completed_at`,
 *   history entries without `id`. Unknown fields are kept at every level; `null` members are treated as
 *   absent; `__proto__` keys are dropped, so no body can change a prototype.
 *
 * - `reading.validation`: `'tolerant'` (default) reads drifted fields as the webhook handler does
 *   (README "Schema drift"): `"true"` for a boolean, a number for decimal text, numeric text for a
 *   number are coerced, anything else of the wrong type is left out, each reported to `reading.onDrift`
 *   with `operation: 'webhook'`; `'strict'` refuses a documented field of the wrong type.
 *
 * Never throws anything but {@link WebhookPayloadError}.
 * @throws {WebhookPayloadError} when the body is not JSON (or not UTF-8), not an object, has no valid
 * task id (`field` is `_id` or `id`), has no usable `status`, or (strict only) a documented field of the
 * wrong type (e.g. `statusHistory` not an array); `field` names the first offending field.
 */
export function parseWebhookEvent(
  body: unknown,
  reading: WebhookReading = {},
): WebhookEvent & { confirmed: false; source: 'webhook' } {
  return parseWebhookEventAt(body, new Date(), reading);
}

/**
 * The sync event of a task listed by `GET tasks` (OpenAPI `listTasks`): confirmed (the list is the
 * service's own answer), `source: 'sync'`, `kind` and `status` the task's status, `payload` the task read
 * with the webhook schema. `undefined` for a task without a valid id or without a status: there is
 * nothing to pass on.
 * @internal Used by the webhook handler's sync.
 */
export function syncEventOf(task: Task, receivedAt: Date): (WebhookEvent & { source: 'sync' }) | undefined {
  const taskId = safeParse(WebhookTaskId, task.id);
  const status = task.status;
  if (!taskId.success || typeof status !== 'string' || status === '') return undefined;
  const parsed = safeParse(WebhookTask, task);
  // A page read with validation 'off' may hold fields of other types; the task is passed on all the same.
  const payload: WebhookTask = parsed.success ? parsed.data : { ...task, status };
  return { kind: status, taskId: taskId.data, status, task, payload, source: 'sync', confirmed: true, receivedAt };
}
