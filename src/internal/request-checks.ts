/** Checks of a request before it is sent, and fetch's refusals told apart from network failures. */
import { RequestValidationError, type ValidationIssue } from '../core/errors.js';
import type { RequestOptions } from '../core/options.js';
import { systemErrorCode } from './failure.js';
import { MAX_TIMER_MS } from './options.js';

/** Longest value of one query parameter (`search`, `sortBy`, …) sent, in characters. */
export const MAX_QUERY_VALUE_LENGTH = 4096;

const REFUSED_BEFORE_SENDING = 'UND_ERR_INVALID_ARG';

const HEADERS_REFUSAL =
  /invalid header (?:name|value)|not a valid HTTP header|convert argument to a ByteString/i;

/** ky's wrapper errors hold the request (with its auth headers); keep only the underlying cause. */
export function underlyingCause(error: unknown): unknown {
  if (error instanceof Error && error.name === 'NetworkError' && 'request' in error) return error.cause;
  return error;
}

/** Adds an issue at `options.<name>` unless `value` is `undefined` or an integer from `min` to `max`. */
export function checkIntegerOption(
  issues: ValidationIssue[],
  name: string,
  value: unknown,
  min: number,
  max: number,
): void {
  if (
    value !== undefined &&
    !(Number.isInteger(value) && (value as number) >= min && (value as number) <= max)
  ) {
    issues.push({
      path: `options.${name}`,
      message: `Expected an integer from ${min} to ${max}`,
      code: 'invalid_option',
    });
  }
}

/**
 * Checks `timeout`, `totalTimeout`, `maxRetries` and `signal`, after the caller's own `issues`.
 * @throws {RequestValidationError} naming each bad option; nothing is sent.
 */
export function checkRequestOptions(
  operation: string,
  options: RequestOptions,
  issues: ValidationIssue[] = [],
): void {
  checkIntegerOption(issues, 'timeout', options.timeout, 1, MAX_TIMER_MS);
  checkIntegerOption(issues, 'totalTimeout', options.totalTimeout, 1, MAX_TIMER_MS);
  checkIntegerOption(issues, 'maxRetries', options.maxRetries, 0, 10);
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    issues.push({ path: 'options.signal', message: 'Expected an AbortSignal', code: 'invalid_option' });
  }
  if (issues.length > 0) throw new RequestValidationError(operation, issues);
}

/**
 * Refuses a query value longer than {@link MAX_QUERY_VALUE_LENGTH} (servers refuse such URLs, 431).
 * @throws {RequestValidationError} naming the parameter; nothing is sent.
 */
export function checkQuery(operation: string, query: Record<string, string>): void {
  const issues: ValidationIssue[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (value.length > MAX_QUERY_VALUE_LENGTH) {
      issues.push({
        path: name,
        message: `At most ${MAX_QUERY_VALUE_LENGTH} characters, got ${value.length}`,
        code: 'too_big',
      });
    }
  }
  if (issues.length > 0) throw new RequestValidationError(operation, issues);
}

/** Refused before sending: `UND_ERR_INVALID_ARG`, or `Headers`' own `TypeError` (not "Failed to fetch"). */
export function refusedBeforeSending(error: unknown): boolean {
  if (systemErrorCode(error) === REFUSED_BEFORE_SENDING) return true;
  const cause = underlyingCause(error);
  return cause instanceof TypeError && HEADERS_REFUSAL.test(cause.message);
}
