/**
 * Schema checks at the two edges of every call: parameters before anything is sent, response bodies
 * before they are returned.
 */
import * as z from 'zod/mini';
import { RequestValidationError, ResponseValidationError, type ValidationIssue } from '../core/errors.js';
import type { ValidationMode } from '../core/options.js';
import { type Drift, readTolerantly, typeName } from '../schemas/tolerant-read.js';
import { handsInputBack } from './copy-free.js';
import type { Redactor } from './redact.js';

/** Any zod schema, classic or mini (the SDK's own are zod/mini). */
export type Schema = z.core.$ZodType;

/** zod issues → {@link ValidationIssue}s with dotted paths (`deliveryLocation.latitude`, `tasks.3.status`). */
export function toValidationIssues(issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  return issues.map((issue) => ({
    path: issue.path.map((segment) => String(segment)).join('.'),
    message: issue.message,
    code: issue.code,
  }));
}

/**
 * Messages for the issues a schema gives none for. zod/mini ships without its English messages (they
 * are a locale the app may load); these few cover every check the SDK's schemas use, so an error names
 * what was expected without the locale's weight.
 */
function issueMessage(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return `Expected ${issue.expected}, received ${Number.isNaN(issue.input) ? 'NaN' : typeName(issue.input)}`;
    case 'too_small':
      return issue.origin === 'string' ? 'Must not be empty' : `Expected at least ${issue.minimum}`;
    case 'too_big':
      return issue.origin === 'string'
        ? `Expected at most ${issue.maximum} characters`
        : `Expected at most ${issue.maximum}`;
    case 'unrecognized_keys':
      return `Unknown field${issue.keys.length === 1 ? '' : 's'}: ${issue.keys.join(', ')}`;
    case 'invalid_value':
      return `Expected one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'invalid_union':
      return 'Matches none of the accepted shapes';
    default:
      return undefined;
  }
}

/** Parse parameters shared by every SDK parse: the messages above. */
const PARSE_CONTEXT = { error: issueMessage } as const;

/** Turns a schema into one with a faster parser; `undefined` until a compiler is installed. */
type Compiler = <T extends Schema>(schema: T) => T;
let compiler: Compiler | undefined;
let compiledCheck: ((schema: Schema) => Validity | undefined) | undefined;
const compiled = new WeakMap<Schema, Schema>();

/**
 * Installs zod's schema compiler (`z.compile`, about 8× faster parsing) for every later SDK parse. The
 * Node.js build of the package does this when loaded; the build for bundlers leaves it out (it costs
 * 9 KB gzip), so browser and edge bundles parse with zod's runtime parser and check valid response
 * bodies with {@link validityOf}'s closures. `z.compile` hands a schema back unchanged where
 * `new Function` is not allowed, so it is always safe. `undefined` goes back to the runtime parser (the
 * benchmarks compare both).
 *
 * `check`, when given, builds the check of a valid response body in place of the closures (the Node
 * build passes `compiledCheck` of `internal/copy-free.ts`); it returns `undefined` where bodies must be
 * parsed into copies.
 */
export function useSchemaCompiler(
  compile: Compiler | undefined,
  check?: (schema: Schema) => Validity | undefined,
): void {
  compiler = compile;
  compiledCheck = check;
  validityChecks = new WeakMap();
}

/** The schema with the installed compiler's fast path, built once per schema. */
function fast<T extends Schema>(schema: T): T {
  if (compiler === undefined) return schema;
  let result = compiled.get(schema);
  if (!result) {
    result = compiler(schema);
    compiled.set(schema, result);
  }
  return result as T;
}

/** Whether a value is valid: a check built from a schema, see {@link validityCheck}. */
type Validity = (value: unknown) => boolean;

/**
 * The validity check of `schema`, or `undefined` when its bodies must be parsed into a new value instead
 * (a part does not hand its input back: `handsInputBack` of `internal/copy-free.ts`). A valid body is then
 * its own parse result and needs no copy. It is zod's own parse (compiled when a compiler is installed),
 * so every answer is zod's.
 */
function validityOf(schema: Schema): Validity | undefined {
  if (!handsBackWhole(schema)) return undefined;
  return (value) => z.safeParse(fast(schema), value).success;
}

/** True when `schema` and every part of it hand a valid input back unchanged. */
function handsBackWhole(schema: Schema): boolean {
  const def = schema._zod.def as z.core.$ZodTypeDef & {
    shape?: Record<string, Schema>;
    catchall?: Schema;
    innerType?: Schema;
    element?: Schema;
    valueType?: Schema;
    options?: Schema[];
  };
  const parts = [
    ...(def.type === 'object' ? Object.values(def.shape ?? {}) : []),
    ...[def.catchall, def.innerType, def.element, def.valueType].filter((part) => part !== undefined),
    ...(def.type === 'union' ? (def.options ?? []) : []),
  ];
  return handsInputBack(schema) && parts.every(handsBackWhole);
}

/** {@link validityOf} of each response schema (`null`: none). */
let validityChecks = new WeakMap<Schema, Validity | null>();

/** The validity check of `schema`, built once; `undefined` when its bodies must be parsed into copies. */
function validityCheck(schema: Schema): Validity | undefined {
  let check = validityChecks.get(schema);
  if (check === undefined) {
    check = (compiler === undefined ? undefined : compiledCheck?.(schema)) ?? validityOf(schema) ?? null;
    validityChecks.set(schema, check);
  }
  return check ?? undefined;
}

/** Parses `value` with `schema` (compiled when a compiler is installed), with the SDK's issue messages. */
export function safeParse<T extends Schema>(schema: T, value: unknown): z.core.util.SafeParseResult<z.core.output<T>> {
  return z.safeParse(fast(schema), value, PARSE_CONTEXT);
}

/**
 * Validates call parameters.
 * @throws {RequestValidationError} listing every issue with its path; nothing is sent.
 */
export function parseParams<T extends Schema>(schema: T, params: unknown, operation: string): z.core.output<T> {
  const result = safeParse(schema, params);
  if (!result.success) throw new RequestValidationError(operation, toValidationIssues(result.error.issues));
  return result.data;
}

/** Where a response body came from: for error messages and drift reports. */
export interface ResponseContext {
  /** The SDK operation (`tasks.retrieve`), or `webhook`. */
  operation: string;
  method: string;
  /** Redacted URL of the answer; read only to describe a mismatch. */
  readonly url: string;
  status: number;
  mode: ValidationMode;
  redactor: Redactor;
  /** Reports drift read tolerantly (README "Schema drift"). */
  report: (drifts: readonly Drift[]) => void;
}

/**
 * Reads a 2xx body as `schema` (README "Schema drift"). A valid body is returned as it is, checked
 * without a copy. Otherwise, in `'strict'` mode it throws; in `'tolerant'` mode (and its deprecated
 * aliases) it is read tolerantly: drift coerced or left out and reported, so the result always has the
 * schema's types.
 * @throws {ResponseValidationError} in `'strict'` mode when the body does not match; in every mode when a
 * load-bearing part is broken (the top level is not the documented shape, or a required field is missing
 * or cannot be coerced).
 */
export function parseResponse<T extends Schema>(schema: T, body: unknown, context: ResponseContext): z.core.output<T> {
  // The common case: a valid body is returned as it is (a fresh value from the JSON parser, nulls and
  // `__proto__` keys already removed), checked without building a copy.
  const check = validityCheck(schema);
  if (check?.(body)) return body as z.core.output<T>;
  let issues: ValidationIssue[] = [];
  // A body the check refused fails a full parse too: in tolerant mode, which lists its own issues, that
  // parse is skipped.
  if (check === undefined || context.mode === 'strict') {
    const result = safeParse(schema, body);
    if (result.success) return result.data;
    issues = toValidationIssues(result.error.issues);
  }
  if (context.mode !== 'strict') {
    const drifts: Drift[] = [];
    const read = readTolerantly(schema, body, drifts);
    const reread = read.ok ? safeParse(schema, read.value) : undefined;
    if (reread?.success) {
      context.report(drifts);
      return reread.data;
    }
    // A load-bearing part is broken: name what was left out, then anything the tolerant read still missed.
    issues = [
      ...drifts
        .filter((drift) => drift.action === 'omitted')
        .map((drift) => ({
          path: drift.path,
          message: `Expected ${drift.expected}, received ${drift.received}`,
          code: 'invalid_type',
        })),
      ...(reread === undefined ? [] : toValidationIssues(reread.error.issues)),
    ];
  }
  throw new ResponseValidationError({
    method: context.method,
    url: context.url,
    status: context.status,
    issues,
    body: context.redactor.value(body),
  });
}
