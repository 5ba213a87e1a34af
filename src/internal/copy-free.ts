/**
 * Which response schemas hand a valid body back as it is (so the body needs no copy: docs/performance.md,
 * "A check, not a copy"), and the form of such a schema the Node build compiles to check
 * bodies with.
 * @module
 */
import * as z from 'zod/mini';

type Schema = z.core.$ZodType;

/** Schema kinds whose parse output is the input itself when the input is valid (no transform, default or copy that changes it). */
const OUTPUT_IS_INPUT = new Set([
  'object',
  'optional',
  'nullable',
  'array',
  'union',
  'record',
  'string',
  'number',
  'boolean',
  'enum',
  'literal',
  'unknown',
  'any',
  'null',
  'undefined',
]);

/**
 * True when `schema` itself (not its parts) hands a valid input back unchanged: a kind in
 * {@link OUTPUT_IS_INPUT}, not coercing, with no check that rewrites the value (such as `z.trim()`).
 */
export function handsInputBack(schema: Schema): boolean {
  const def = schema._zod.def as z.core.$ZodTypeDef & { coerce?: boolean };
  return (
    OUTPUT_IS_INPUT.has(def.type) && !def.coerce && !def.checks?.some((check) => check._zod.def.check === 'overwrite')
  );
}

/**
 * The schema the Node build compiles to check a valid body with ({@link compiledCheck}), in place of
 * the closures of `validityOf` (`internal/validate.ts`): compiled, it checks a 10-task page in about
 * 2.5 µs against their 8 µs (the compiler's code reads each field by its name). `undefined` under the same conditions
 * as `validityOf`: the body must be parsed into a copy. In the returned schema every loose object
 * (unknown keys kept, `z.looseObject`) is a plain one (unknown keys ignored): both accept exactly the
 * same values, but the plain one does not copy unknown keys on the way, which takes about half off the
 * compiled check. Only `src/index.node.ts` imports it, so bundles leave it out.
 */
function checkedForm(schema: Schema): Schema | undefined {
  if (!handsInputBack(schema)) return undefined;
  const def = schema._zod.def;
  switch (def.type) {
    case 'object': {
      const { shape, catchall } = def as z.core.$ZodObjectDef;
      const fields: Record<string, Schema> = {};
      for (const [key, field] of Object.entries(shape)) {
        const checked = checkedForm(field);
        if (checked === undefined) return undefined;
        fields[key] = checked;
      }
      // A check on the object sees the parsed object, unknown keys included: keep the loose form then.
      const loose = catchall?._zod.def.type === 'unknown' && !catchall._zod.def.checks?.length && !def.checks?.length;
      return z.clone(schema, { ...def, shape: fields, catchall: loose ? undefined : catchall } as z.core.$ZodObjectDef);
    }
    case 'optional':
    case 'nullable': {
      const inner = checkedForm((def as z.core.$ZodOptionalDef).innerType);
      return inner && z.clone(schema, { ...def, innerType: inner } as z.core.$ZodOptionalDef);
    }
    case 'array': {
      const element = checkedForm((def as z.core.$ZodArrayDef).element);
      return element && z.clone(schema, { ...def, element } as z.core.$ZodArrayDef);
    }
    case 'union': {
      const options: Schema[] = [];
      for (const option of (def as z.core.$ZodUnionDef).options) {
        const checked = checkedForm(option);
        if (checked === undefined) return undefined;
        options.push(checked);
      }
      return z.clone(schema, { ...def, options } as z.core.$ZodUnionDef);
    }
    case 'record': {
      const { keyType, valueType } = def as z.core.$ZodRecordDef;
      const value = checkedForm(valueType);
      return value && checkedForm(keyType) && z.clone(schema, { ...def, valueType: value } as z.core.$ZodRecordDef);
    }
    default:
      return schema;
  }
}

/**
 * The Node build's check of a valid body (installed with `useSchemaCompiler` by `src/index.node.ts`):
 * {@link checkedForm} of `schema`, compiled, run with `z.validate` (which builds no output). `undefined`
 * where the body must be parsed into a copy.
 */
export function compiledCheck(schema: Schema): ((value: unknown) => boolean) | undefined {
  const form = checkedForm(schema);
  if (form === undefined) return undefined;
  const compiled = z.compile(form);
  return (value) => z.validate(compiled, value);
}
