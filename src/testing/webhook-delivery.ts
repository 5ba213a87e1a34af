/** One webhook POST; the receiver has 5 s, no retry (OpenAPI webhook `taskStatusChanged`). @module */

import { anySignal } from '../internal/abort.js';
import type { MockWebhookDelivery } from './types.js';

export const WEBHOOK_TIMEOUT_MS = 5_000;

/** Most bytes of a receiver's answer read (only its status is used; docs/sandbox.md "Bounds"). */
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
    const failure = { ...outcome, error: reasonOf(error, timeout.aborted, cancel.aborted), durationMs: elapsed() };
    return responseStatus === undefined ? failure : { ...failure, responseStatus };
  }
}
