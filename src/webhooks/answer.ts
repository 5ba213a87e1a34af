/**
 * The checks before a webhook body is read and the answers, shared by the Web and Node adapters.
 * @module
 */
import { REASON_PHRASES } from '../core/http-status.js';

export interface WebhookAnswer {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: string;
  /** Close the connection after answering (an oversized or late body). */
  readonly close?: boolean;
}

export const RECEIVED: WebhookAnswer = { status: 200, body: '{"received":true}' };

/** `{"error":"<reason>: <detail>"}`; `detail` holds no secret and no body content. */
export function rejection(
  status: number,
  detail: string,
  extra: Omit<WebhookAnswer, 'status' | 'body'> = {},
): WebhookAnswer {
  const reason = REASON_PHRASES[status] ?? 'Error';
  return { status, body: JSON.stringify({ error: `${reason}: ${detail}` }), ...extra };
}

/**
 * JSON media types, and a missing header: the spec does not show the service's headers, and it never retries.
 */
export function isJsonContentType(value: string | null | undefined): boolean {
  if (value === null || value === undefined || value.trim() === '') return true;
  const type = (value.split(';')[0] ?? '').trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9!#$&^_.-]+\+json$/.test(type);
}

export function declaredLength(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value);
}

/** POST only (405), JSON (415), a declared length within `maxBodyBytes` (413); `undefined` when it passes. */
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

export function tooLarge(maxBodyBytes: number): WebhookAnswer {
  return rejection(413, `the body exceeds ${maxBodyBytes} bytes`, { close: true });
}

export function bodyTimedOut(bodyTimeoutMs: number): WebhookAnswer {
  return rejection(408, `the body was not received within ${bodyTimeoutMs} ms`, { close: true });
}

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

/** `consumed`: a framework read the body before the handler, and did not pass it on as `{ body }`. */
export type BodyRead =
  | { ok: true; bytes: Uint8Array }
  | { ok: false; reason: 'too_large' | 'timeout' | 'unreadable' | 'consumed' };

/** The answer to a body a framework read first: what to pass instead (docs/webhooks.md "Mounting"). */
export function bodyConsumed(adapter: 'node' | 'fetch'): WebhookAnswer {
  const pass = adapter === 'node' ? 'pass it: handler.node(req, res, { body })' : 'pass an unread Request';
  return rejection(400, `the body was read before the handler; ${pass} (docs/webhooks.md "Mounting")`);
}

/** The answer to a body that could not be read, by its reason. */
export function unreadBody(
  reason: Extract<BodyRead, { ok: false }>['reason'],
  limits: {
    readonly maxBodyBytes: number;
    readonly bodyTimeoutMs: number;
    readonly adapter: 'node' | 'fetch';
  },
): WebhookAnswer {
  if (reason === 'too_large') return tooLarge(limits.maxBodyBytes);
  if (reason === 'timeout') return bodyTimedOut(limits.bodyTimeoutMs);
  if (reason === 'consumed') return bodyConsumed(limits.adapter);
  return rejection(400, 'the body could not be read');
}
