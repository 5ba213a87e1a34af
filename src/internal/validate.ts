/** Schema checks at the two edges of every call: parameters before sending, 2xx bodies before returning. */
import * as z from 'zod/mini';
import { RequestValidationError, ResponseValidationError, type ValidationIssue } from '../core/errors.js';
import type { ValidationMode } from '../core/options.js';
import { type Drift, readTolerantly, typeName } from '../schemas/tolerant-read.js';
import { handsInputBack } from './copy-free.js';
import type { Redactor } from './redact.js';

export type Schema = z.core.$ZodType;

/**
 * zod issues → {@link ValidationIssue}s with dotted paths (`deliveryLocation.latitude`, `tasks.3.status`).
 */
export function toValidationIssues(issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  return issues.map((issue) => ({
    path: issue.path.map((segment) => String(segment)).join('.'),
    message: issue.message,
    code: issue.code,
  }));
}

/** Messages for the checks the SDK's schemas use: zod/mini ships without its English locale. */
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

const PARSE_CONTEXT = { error: issueMessage } as const;

type Compiler = <T extends Schema>(schema: T) => T;
let compiler: Compiler | undefined;
let compiledCheck: ((schema: Schema) => Validity | undefined) | undefined;
const compiled = new WeakMap<Schema, Schema>();

/**
 * Installs zod's schema compiler (`z.compile`) for every later SDK parse; the Node build does this when
 * loaded, the bundler build leaves it out. `check` builds the check of a valid body (`compiledCheck`).
 * `undefined` goes back to the runtime parser.
 */
export function useSchemaCompiler(
  compile: Compiler | undefined,
  check?: (schema: Schema) => Validity | undefined,
): void {
  compiler = compile;
  compiledCheck = check;
  validityChecks = new WeakMap();
  generatedChecks = new WeakMap();
}

function fast<T extends Schema>(schema: T): T {
  if (compiler === undefined) return schema;
  let result = compiled.get(schema);
  if (!result) {
    result = compiler(schema);
    compiled.set(schema, result);
  }
  return result as T;
}

type Validity = (value: unknown) => boolean;

/**
 * The validity check of `schema` (zod's own parse), or `undefined` when its bodies must be parsed into a
 * copy.
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

let generatedChecks = new WeakMap<Schema, Validity | null>();

/** The Node build's generated check of `schema`, built once; `undefined` without one (bundler build). */
function generatedCheckOf(schema: Schema): Validity | undefined {
  let check = generatedChecks.get(schema);
  if (check === undefined) {
    check = (compiler === undefined ? undefined : compiledCheck?.(schema)) ?? null;
    generatedChecks.set(schema, check);
  }
  return check ?? undefined;
}

let validityChecks = new WeakMap<Schema, Validity | null>();

/** The validity check of `schema`, built once; `undefined` when its bodies must be parsed into copies. */
function validityCheck(schema: Schema): Validity | undefined {
  let check = validityChecks.get(schema);
  if (check === undefined) {
    check = generatedCheckOf(schema) ?? validityOf(schema) ?? null;
    validityChecks.set(schema, check);
  }
  return check ?? undefined;
}

/**
 * True when `value` is valid as `schema` as it is, so it stands for its own parse (no copy), by the Node
 * build's generated check (the one {@link parseResponse} runs first). False says only "parse it": always
 * in the bundler build, which has no generated check.
 */
export function validAsIs(schema: Schema, value: unknown): boolean {
  return generatedCheckOf(schema)?.(value) === true;
}

/** Parses `value` with `schema` (compiled when a compiler is installed), with the SDK's issue messages. */
export function safeParse<T extends Schema>(
  schema: T,
  value: unknown,
): z.core.util.SafeParseResult<z.core.output<T>> {
  return z.safeParse(fast(schema), value, PARSE_CONTEXT);
}

/** @throws {RequestValidationError} listing every issue with its path; nothing is sent. */
export function parseParams<T extends Schema>(
  schema: T,
  params: unknown,
  operation: string,
): z.core.output<T> {
  const result = safeParse(schema, params);
  if (!result.success) throw new RequestValidationError(operation, toValidationIssues(result.error.issues));
  return result.data;
}

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
 * Reads a 2xx body as `schema` (README "Schema drift"): a valid body as it is, else tolerantly (drift
 * coerced or left out, reported) or, in `'strict'` mode, throws.
 * @throws {ResponseValidationError} in `'strict'` mode on a mismatch; in every mode when a load-bearing part
 * is broken.
 */
export function parseResponse<T extends Schema>(
  schema: T,
  body: unknown,
  context: ResponseContext,
): z.core.output<T> {
  const check = validityCheck(schema);
  if (check?.(body)) return body as z.core.output<T>;
  let issues: ValidationIssue[] = [];
  // A body the check refused fails a full parse too: tolerant mode lists its own issues instead.
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
