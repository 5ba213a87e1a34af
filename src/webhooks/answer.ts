/**
 * The HTTP side of receiving a webhook, shared by the Web and Node adapters: the checks made before
 * the body is read, and the answers (OpenAPI webhook `taskStatusChanged`: answer 200 at once, process afterwards).
 * @module
 */
import { REASON_PHRASES } from '../core/http-status.js';

/** An answer to a webhook request, before it is written by an adapter. */
export interface WebhookAnswer {
  /** HTTP status. */
  readonly status: number;
  /** Extra response headers (the JSON content type is always added). */
  readonly headers?: Readonly<Record<string, string>>;
  /** JSON body. */
  readonly body: string;
  /** Close the connection after answering (the rest of an oversized or late body is not read). */
  readonly close?: boolean;
}

/** The answer to an accepted (or harmlessly dropped) webhook: 200 `{"received":true}`. */
export const RECEIVED: WebhookAnswer = { status: 200, body: '{"received":true}' };

/** An error answer: `{"error":"<reason>: <detail>"}`. `detail` must hold no secret and no body content. */
export function rejection(
  status: number,
  detail: string,
  extra: Omit<WebhookAnswer, 'status' | 'body'> = {},
): WebhookAnswer {
  const reason = REASON_PHRASES[status] ?? 'Error';
  return { status, body: JSON.stringify({ error: `${reason}: ${detail}` }), ...extra };
}

/**
 * True for a JSON media type (`application/json`, `application/<anything>+json`, any parameters), and
 * for a missing or empty header: the spec does not show the headers the service sends (OpenAPI webhook `taskStatusChanged`,
 * item 9), and refusing a header-less webhook would lose the event for good (no retries).
 */
export function isJsonContentType(value: string | null | undefined): boolean {
  if (value === null || value === undefined || value.trim() === '') return true;
  const type = (value.split(';')[0] ?? '').trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9!#$&^_.-]+\+json$/.test(type);
}

/** The byte count a `Content-Length` header declares, or `undefined` when absent or malformed. */
export function declaredLength(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value);
}

/**
 * The checks made before reading the body: POST only (405 with `Allow: POST`), a JSON content type
 * (415), a declared length within `maxBodyBytes` (413). `undefined` when the request passes.
 */
export function precheck(
  method: string | undefined,
  contentType: string | null | undefined,
  contentLength: string | null | undefined,
  maxBodyBytes: number,
): WebhookAnswer | undefined {
  if (method?.toUpperCase() !== 'POST') {
    return rejection(405, `webhooks are received with POST, not ${method ?? 'no method'}`, {
      headers: { allow: 'POST' },
    });
  }
  if (!isJsonContentType(contentType)) return rejection(415, 'a webhook body is JSON (application/json)');
  const length = declaredLength(contentLength);
  if (length !== undefined && length > maxBodyBytes) return tooLarge(maxBodyBytes);
  return undefined;
}

/** 413 for a body over the limit; the connection is closed rather than read to its end. */
export function tooLarge(maxBodyBytes: number): WebhookAnswer {
  return rejection(413, `the body exceeds ${maxBodyBytes} bytes`, { close: true });
}

/**
 * 408 for a body not received in full within `bodyTimeoutMs` of the start of the read; the connection is
 * closed, so the sender cannot keep it open by sending more.
 */
export function bodyTimedOut(bodyTimeoutMs: number): WebhookAnswer {
  return rejection(408, `the body was not received within ${bodyTimeoutMs} ms`, { close: true });
}

/** Joins chunks of `size` bytes in total into one array. */
export function concatBytes(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1 && chunks[0] !== undefined) return chunks[0];
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Result of reading a request body under a size limit and a deadline. */
export type BodyRead = { ok: true; bytes: Uint8Array } | { ok: false; reason: 'too_large' | 'timeout' | 'unreadable' };
