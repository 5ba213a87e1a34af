/**
 * What fetch can carry in a request header, checked before sending: a typed error, not a connection error.
 */
import type { ValidationIssue } from '../core/errors.js';

/** A header value fetch sends as it is: space to `~` and U+0080–U+00FF. */
const HEADER_VALUE = /^[\x20-\x7e\x80-\xff]*$/;

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Most extra headers one call may carry. */
export const MAX_CALL_HEADERS = 64;
export const MAX_HEADER_NAME_LENGTH = 256;
export const MAX_HEADER_VALUE_LENGTH = 8192;
/** Longest `apiKey` or `sellerId`, in characters. */
export const MAX_CREDENTIAL_LENGTH = 4096;

export function isHeaderValue(value: string): boolean {
  return HEADER_VALUE.test(value);
}

function shownName(name: string): string {
  return name.length > 60 ? `${name.slice(0, 60)}…` : name;
}

/** The problems of a call's `headers` option, each at `options.headers.<name>`; values never quoted. */
export function headerIssues(headers: unknown): ValidationIssue[] {
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    return [
      {
        path: 'options.headers',
        message: 'Expected an object of header names to values',
        code: 'invalid_header',
      },
    ];
  }
  const entries: [string, unknown][] =
    headers instanceof Headers
      ? [...headers]
      : Object.keys(headers).map((name) => [name, (headers as Record<string, unknown>)[name]]);
  if (entries.length > MAX_CALL_HEADERS) {
    return [
      {
        path: 'options.headers',
        message: `At most ${MAX_CALL_HEADERS} headers, got ${entries.length}`,
        code: 'invalid_header',
      },
    ];
  }
  const issues: ValidationIssue[] = [];
  for (const [name, value] of entries) {
    const path = `options.headers.${shownName(name)}`;
    if (name.length > MAX_HEADER_NAME_LENGTH || !HEADER_NAME.test(name)) {
      issues.push({
        path,
        message: `Expected a header name (an HTTP token) of at most ${MAX_HEADER_NAME_LENGTH} characters`,
        code: 'invalid_header',
      });
    } else if (typeof value !== 'string') {
      issues.push({ path, message: `Expected text, got ${typeof value}`, code: 'invalid_header' });
    } else if (value.length > MAX_HEADER_VALUE_LENGTH) {
      issues.push({
        path,
        message: `At most ${MAX_HEADER_VALUE_LENGTH} characters, got ${value.length}`,
        code: 'invalid_header',
      });
    } else if (!isHeaderValue(value)) {
      issues.push({
        path,
        message: 'Holds a control character (U+0000–U+001F), DEL or a character past U+00FF',
        code: 'invalid_header',
      });
    }
  }
  return issues;
}
