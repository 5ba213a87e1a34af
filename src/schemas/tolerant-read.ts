/**
 * Tolerant reading of a body that failed its schema: coerce, else leave out (README "Schema drift"). @module
 */
import * as z from 'zod/mini';
import { decimalText } from './decimal-text.js';

/** One difference between a body and its schema: a field coerced, or left out. */
export interface Drift {
  path: string;
  expected: string;
  /**
   * The type received: `string`, `number`, `boolean`, `object`, `array`, `null` or `undefined`. Never the
   * value.
   */
  received: string;
  /** `read-all`: a listing out of the order asked for, read on to its end (docs/pagination.md). */
  action: 'coerced' | 'omitted' | 'read-all';
}

type Schema = z.core.$ZodType;
type Path = readonly (string | number)[];

const OMIT: unique symbol = Symbol('omit');
type Read = unknown;

const MAX_NUMERIC_TEXT = 64;
const NUMERIC_TEXT = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The type name of a value, as drifts report it (never the value itself). */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** The value as the scalar type `type`, when that reading is unambiguous; `undefined` otherwise. */
function coerceScalar(type: string, value: unknown): unknown {
  switch (type) {
    case 'number':
      if (typeof value === 'string') {
        const text = value.trim();
        if (text.length > MAX_NUMERIC_TEXT || !NUMERIC_TEXT.test(text)) return undefined;
        const number = Number(text);
        return Number.isFinite(number) ? number : undefined;
      }
      return undefined;
    case 'string':
      return typeof value === 'number' && Number.isFinite(value) ? decimalText(value) : undefined;
    case 'boolean':
      if (value === 'true' || value === 1) return true;
      if (value === 'false' || value === 0) return false;
      return undefined;
    default:
      return undefined;
  }
}

function expectedName(schema: Schema): string {
  const def = schema._zod.def;
  if (def.type === 'optional' || def.type === 'nullable')
    return expectedName((def as z.core.$ZodOptionalDef).innerType);
  if (def.type === 'number' && (schema._zod.bag as { format?: string }).format?.includes('int'))
    return 'integer';
  if (def.type === 'union') return 'one of several shapes';
  return def.type;
}

function isOptional(schema: Schema): boolean {
  return schema._zod.optin === 'optional';
}

function pathText(path: Path): string {
  return path.join('.');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads `value` as `schema`, appending drifts; copies only along changed paths. `ok: false`: the top level
 * was left out.
 */
export function readTolerantly(
  schema: Schema,
  value: unknown,
  drifts: Drift[],
): { ok: boolean; value: unknown } {
  const result = read(schema, value, [], drifts);
  return result === OMIT ? { ok: false, value: undefined } : { ok: true, value: result };
}

function omitted(schema: Schema, value: unknown, path: Path, drifts: Drift[]): typeof OMIT {
  drifts.push({
    path: pathText(path),
    expected: expectedName(schema),
    received: typeName(value),
    action: 'omitted',
  });
  return OMIT;
}

function read(schema: Schema, value: unknown, path: Path, drifts: Drift[]): Read | typeof OMIT {
  const def = schema._zod.def;
  switch (def.type) {
    case 'optional':
      return value === undefined
        ? value
        : read((def as z.core.$ZodOptionalDef).innerType, value, path, drifts);
    case 'nullable':
      return value === null ? value : read((def as z.core.$ZodNullableDef).innerType, value, path, drifts);
    case 'object': {
      if (!isPlainObject(value)) return omitted(schema, value, path, drifts);
      const { shape } = def as z.core.$ZodObjectDef;
      let copy: Record<string, unknown> | undefined;
      for (const key in shape) {
        const field = shape[key] as Schema;
        const current = Object.hasOwn(value, key) ? value[key] : undefined;
        if (current === undefined) {
          if (isOptional(field)) continue;
          omitted(field, current, [...path, key], drifts);
          return OMIT;
        }
        const next = read(field, current, [...path, key], drifts);
        if (next === current) continue;
        if (next === OMIT && !isOptional(field)) return OMIT;
        copy ??= { ...value };
        if (next === OMIT) delete copy[key];
        else copy[key] = next;
      }
      return copy ?? value;
    }
    case 'array': {
      if (!Array.isArray(value)) return omitted(schema, value, path, drifts);
      const element = (def as z.core.$ZodArrayDef).element;
      let copy: unknown[] | undefined;
      value.forEach((item: unknown, index) => {
        const next = read(element, item, [...path, index], drifts);
        if (next !== item && copy === undefined) copy = value.slice(0, index);
        if (copy !== undefined && next !== OMIT) copy.push(next);
      });
      return copy ?? value;
    }
    case 'union': {
      const { options } = def as z.core.$ZodUnionDef;
      if (options.some((option) => z.safeParse(option, value).success)) return value;
      for (const option of options) {
        const trial: Drift[] = [];
        const next = read(option, value, path, trial);
        if (next !== OMIT) {
          drifts.push(...trial);
          return next;
        }
      }
      return omitted(schema, value, path, drifts);
    }
    default: {
      if (z.safeParse(schema, value).success) return value;
      const candidate = coerceScalar(def.type, value);
      if (candidate !== undefined && z.safeParse(schema, candidate).success) {
        drifts.push({
          path: pathText(path),
          expected: expectedName(schema),
          received: typeName(value),
          action: 'coerced',
        });
        return candidate;
      }
      return omitted(schema, value, path, drifts);
    }
  }
}
