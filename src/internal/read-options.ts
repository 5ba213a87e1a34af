/**
 * The one reader of options: a zod/mini schema of the options' shape (`src/options/`) parsed, a
 * failure thrown as `ConfigurationError` in one message form, `Invalid <path>: expected <what>, got <value>`.
 * @module
 */
import * as z from 'zod/mini';
import { ConfigurationError } from '../core/errors.js';

/** An option whose value no message shows, only its kind: credentials, secrets, tokens, passwords. */
const SECRET = /key|seller|secret|token|password/i;

/** Longest text of a value a message shows, in characters. */
const SHOWN_LENGTH = 60;

/**
 * `value` as a message shows it: numbers, booleans and `null` as written, a string quoted (cut to 60
 * characters, credentials of a URL hidden), `nothing` for `undefined`, the kind of anything else. Under a
 * secret `path` (`apiKey`, `sellerId`, `controlToken`, a secret), only the kind and, for text, its length.
 */
export function shownValue(path: string, value: unknown): string {
  const kind = Array.isArray(value)
    ? 'an array'
    : typeof value === 'object'
      ? 'an object'
      : `a ${typeof value}`;
  if (value === undefined) return 'nothing';
  if (SECRET.test(path.slice(path.lastIndexOf('.') + 1))) {
    return typeof value === 'string' ? `a string of ${value.length} characters` : kind;
  }
  if (typeof value === 'string') {
    const cut = value.length > SHOWN_LENGTH ? `${value.slice(0, SHOWN_LENGTH)}…` : value;
    return JSON.stringify(cut).replace(/\/\/[^/@]*@/, '//…@');
  }
  return value === null || kind === 'a number' || kind === 'a boolean' ? String(value) : kind;
}

/**
 * The error of an option at `path` (`webhooks.maxQueue`, `reconciliation.checks`): `Invalid <path>: expected
 * <expected>, got <value>`, the value shown by {@link shownValue} unless `shown` says it.
 */
export function invalidOption(
  path: string,
  expected: string,
  value: unknown,
  shown?: string | false,
): ConfigurationError {
  return new ConfigurationError(
    path,
    `Invalid ${path}: expected ${expected}, got ${shown || shownValue(path, value)}`,
  );
}

/**
 * `value` parsed by `schema` (defaults applied), its option paths under `prefix` (`'dedupe'` →
 * `dedupe.windowMs`).
 * @throws {ConfigurationError} for the first issue: `option` its path (the prefix alone for the whole value),
 * the message `Invalid <path>: expected <what>, got <value>`, `<what>` the message of the schema that
 * refused it, `<value>` as {@link shownValue} shows it (never a secret's text). An unknown option reads
 * `expected a known option (did you mean <known>?)`, `<known>` the first known option starting, case-blind,
 * with all but 3 characters of the name (at least 4): `maxRetry` → `maxRetries`, `baseURL` → `baseUrl`; its
 * value shows only its kind (`a string of 12 characters`), as it may be a secret under a misspelt name.
 */
export function readOptions<S extends z.core.$ZodType>(schema: S, value: unknown, prefix = ''): z.output<S> {
  const result = z.safeParse(schema, value);
  if (result.success) return result.data;
  const issue = result.error.issues[0] as z.core.$ZodIssue;
  const path = [...issue.path];
  let expected = issue.message;
  // An unknown option may be a secret's misspelt name (`apiKy`): its value shows only its kind.
  const unknown = issue.code === 'unrecognized_keys';
  if (unknown) {
    const [name = ''] = issue.keys;
    const start = name.toLowerCase().slice(0, Math.max(4, name.length - 3));
    const meant = expected.split(', ').find((known) => known.toLowerCase().startsWith(start));
    expected = `a known option${meant ? ` (did you mean ${meant}?)` : ''}`;
    path.push(name);
  }
  let given: unknown = value;
  for (const key of path) given = (given as Record<PropertyKey, unknown> | undefined)?.[key];
  const text = [prefix, ...path.map((key) => String(key).slice(0, SHOWN_LENGTH))]
    .filter((part) => part !== '')
    .join('.');
  throw invalidOption(text || 'options', expected, given, unknown && shownValue('secret', given));
}
