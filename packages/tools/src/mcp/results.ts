/** What a tool call answers. */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DeliveryError } from 'delivery-task-sdk';
import type { Refusal } from './refusal.js';
import { plainText } from './text.js';

/** Removes the client's secrets from a text (the session's `redactText`); applied before any cut. */
export type RedactText = (text: string) => string;

/** Longest error line a tool result carries, characters. */
export const MAX_ERROR_CHARS = 2000;

/** A successful result carrying `data`. */
export function dataResult(data: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
}

/**
 * A refusal as a tool error: a sentence (`Refused by the dailyCapKwd rule: …`), then the same facts as
 * JSON (`{"refused":{"rule":"dailyCapKwd","roomLeftKwd":"0.750",…}}`) for a program reading them.
 */
export function refusalResult(refusal: Refusal, redact: RedactText): CallToolResult {
  const message = plainText(redact(refusal.message), MAX_ERROR_CHARS);
  return {
    isError: true,
    content: [
      { type: 'text', text: `Refused by the ${refusal.rule} rule: ${message}` },
      { type: 'text', text: JSON.stringify({ refused: { rule: refusal.rule, ...refusal.details } }) },
    ],
  };
}

/** The request id of an error or of its causes (three links at most). */
function requestIdOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const requestId = (current as { requestId?: unknown }).requestId;
    if (typeof requestId === 'string' && requestId !== '') return requestId;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * A failure as a tool error: `NotFoundError: …` for an SDK error (its message names the method, path and
 * status; the request id is added when the service sent one), `unexpected error: …` for anything else.
 * `prefix` says what was being done (`get_task`). One line, at most {@link MAX_ERROR_CHARS} characters,
 * redacted by `redact` before it is cut.
 */
export function failureResult(prefix: string, error: unknown, redact: RedactText): CallToolResult {
  let text: string;
  if (error instanceof DeliveryError) {
    text = `${error.name}: ${error.message}`;
    const requestId = requestIdOf(error);
    if (requestId !== undefined && !text.includes(requestId)) text += ` (request id ${requestId})`;
  } else if (error instanceof Error) {
    text = `unexpected error: ${error.name}: ${error.message}`;
  } else {
    text = `unexpected error: ${String(error)}`;
  }
  return {
    isError: true,
    content: [{ type: 'text', text: plainText(redact(`${prefix}: ${text}`), MAX_ERROR_CHARS) }],
  };
}
