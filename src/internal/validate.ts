/**
 * Schema checks at the two edges of every call: parameters before anything is sent, response bodies
 * before they are returned.
 */
import * as z from 'zod';
import { RequestValidationError, ResponseValidationError, type ValidationIssue } from '../errors.js';
import type { ValidationMode } from '../options.js';
import type { LevelLogger } from './logger.js';
import type { Redactor } from './redact.js';

/** zod issues → {@link ValidationIssue}s with dotted paths (`deliveryLocation.latitude`, `tasks.3.status`). */
export function toValidationIssues(issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  return issues.map((issue) => ({
    path: issue.path.map((segment) => String(segment)).join('.'),
    message: issue.message,
    code: issue.code,
  }));
}

const compiled = new WeakMap<z.ZodType, z.ZodType>();

/**
 * The schema with zod's compiled fast path, built once per schema. `z.compile` hands back the schema
 * unchanged where `new Function` is not allowed (edge runtimes, strict CSP), so this is always safe.
 */
function fast<T extends z.ZodType>(schema: T): T {
  let result = compiled.get(schema);
  if (!result) {
    result = z.compile(schema);
    compiled.set(schema, result);
  }
  return result as T;
}

/**
 * Validates call parameters.
 * @throws {RequestValidationError} listing every issue with its path; nothing is sent.
 */
export function parseParams<T extends z.ZodType>(schema: T, params: unknown, operation: string): z.output<T> {
  const result = fast(schema).safeParse(params);
  if (!result.success) throw new RequestValidationError(operation, toValidationIssues(result.error.issues));
  return result.data;
}

/** Where a response body came from, for error messages. */
export interface ResponseContext {
  method: string;
  url: string;
  status: number;
  mode: ValidationMode;
  logger: LevelLogger;
  redactor: Redactor;
}

/**
 * Validates a 2xx body against its schema according to the validation mode.
 * @throws {ResponseValidationError} in `'strict'` mode when the body does not match.
 */
export function parseResponse<T extends z.ZodType>(schema: T, body: unknown, context: ResponseContext): z.output<T> {
  if (context.mode === 'off') return body as z.output<T>;
  const result = fast(schema).safeParse(body);
  if (result.success) return result.data;
  const issues = toValidationIssues(result.error.issues);
  if (context.mode === 'warn') {
    context.logger.warn(
      `Response to ${context.method} ${context.url} does not match the expected shape; returning it as received`,
      {
        issues,
      },
    );
    return body as z.output<T>;
  }
  throw new ResponseValidationError({
    method: context.method,
    url: context.url,
    status: context.status,
    issues,
    body: context.redactor.value(body),
  });
}
