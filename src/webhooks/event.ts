/**
 * `parseWebhookEvent`: a webhook body → a typed {@link WebhookEvent}; spec § "Events" and
 * § "Extra fields seen in the webhook task payload".
 * @module
 */
import * as z from 'zod';
import { type ValidationIssue, WebhookPayloadError } from '../errors.js';
import { toValidationIssues } from '../internal/validate.js';
import type { AnyTaskStatus, Task } from '../schemas/task.js';
import { type WebhookEventKind, WebhookTask, WebhookTaskId } from '../schemas/webhook.js';

/** Fields every {@link WebhookEvent} has, confirmed or not. */
interface WebhookEventFields {
  /** The event kind: the body's `status` (spec § "Events", item 3). */
  kind: WebhookEventKind;
  /** The task id: the body's `_id`, else its `id`. */
  taskId: string;
  /** The webhook body as received, parsed (`null` members dropped, unknown fields kept). */
  payload: WebhookTask;
  /** When the webhook arrived (when it was parsed, for {@link parseWebhookEvent}). */
  receivedAt: Date;
}

/**
 * One status change of a task, as pushed by the service (spec § "Events").
 *
 * - Unconfirmed (`confirmed: false`): `status` is the event kind and `task` is the webhook body. The
 *   service does not sign webhooks, so treat it as a hint (spec § "Events", item 7).
 * - Confirmed (`confirmed: true`, see the handler's `confirm` option): `task` is the result of
 *   `GET tasks/{id}` made after the webhook arrived and `status` is that task's status. The GET wins over
 *   the body: a forged `delivered` whose GET says `enroute` arrives with `status: 'enroute'`.
 *   `payload` still holds the body as received.
 */
export type WebhookEvent =
  | (WebhookEventFields & {
      /** The body was not checked against the service. */
      confirmed: false;
      /** The effective status: the event kind. */
      status: WebhookEventKind;
      /** The webhook body (the same object as `payload`). */
      task: WebhookTask;
    })
  | (WebhookEventFields & {
      /** The task was read back with `GET tasks/{id}` after the webhook arrived. */
      confirmed: true;
      /** The effective status: the status of the task read back. */
      status: AnyTaskStatus;
      /** The task read back with `GET tasks/{id}`. */
      task: Task;
    });

/** Nesting deeper than this is refused: no task field nests beyond a few levels. */
const MAX_DEPTH = 64;
const utf8 = new TextDecoder('utf-8', { fatal: true });
let compiledWebhookTask: typeof WebhookTask | undefined;

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
  try {
    return JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the body; it may hold personal data, so it is not passed on.
    throw payloadError('', 'Body is not JSON', 'invalid_json');
  }
}

/** The task id: `_id` when present, else `id`; both follow {@link WebhookTaskId}. */
function taskIdOf(task: Record<string, unknown>): string {
  const field = task._id !== undefined ? '_id' : task.id !== undefined ? 'id' : undefined;
  if (field === undefined) throw payloadError('_id', 'Missing task id (_id, or id)', 'invalid_type');
  const result = WebhookTaskId.safeParse(task[field]);
  if (!result.success) {
    throw new WebhookPayloadError(toValidationIssues(result.error.issues).map((issue) => ({ ...issue, path: field })));
  }
  return result.data;
}

/**
 * {@link parseWebhookEvent} with the arrival time given.
 * @internal Used by the webhook handler.
 */
export function parseWebhookEventAt(body: unknown, receivedAt: Date): WebhookEvent & { confirmed: false } {
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
  const taskId = taskIdOf(value as Record<string, unknown>);
  compiledWebhookTask ??= z.compile(WebhookTask);
  const result = compiledWebhookTask.safeParse(value);
  if (!result.success) throw new WebhookPayloadError(toValidationIssues(result.error.issues));
  const payload = result.data;
  return { kind: payload.status, taskId, status: payload.status, task: payload, payload, confirmed: false, receivedAt };
}

/**
 * Parses a webhook body (spec § "Events": the full task, POSTed on each status change) into a typed
 * event with `confirmed: false`.
 *
 * - `body`: the parsed JSON (an object), the JSON text (`string`), or its UTF-8 bytes (`Uint8Array`,
 *   `Buffer`, any `ArrayBufferView`, `ArrayBuffer`). No size limit is applied here (the handler's
 *   `maxBodyBytes` is).
 * - `kind` and `status` are the body's `status`: one of the seven kinds of spec § "Events" item 3, or
 *   any other non-empty string (never rejected for being unknown).
 * - `taskId` is `_id`, else `id`: a string of 1–128 characters without control characters.
 * - `payload` and `task` are the body, typed as {@link WebhookTask}: the webhook forms of
 *   `deliveryLocation` and `pickupLocation`, `estimatedPrice`, `walletDeducted`, `driver.completed_at`,
 *   history entries without `id`. Unknown fields are kept at every level; `null` members are treated as
 *   absent; `__proto__` keys are dropped, so no body can change a prototype.
 *
 * Never throws anything but {@link WebhookPayloadError}.
 * @throws {WebhookPayloadError} when the body is not JSON (or not UTF-8), not an object, has no valid
 * task id (`field` is `_id` or `id`), has no `status` string, or a documented field of the wrong type
 * (e.g. `statusHistory` not an array); `field` names the first offending field.
 */
export function parseWebhookEvent(body: unknown): WebhookEvent & { confirmed: false } {
  return parseWebhookEventAt(body, new Date());
}
