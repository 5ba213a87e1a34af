/**
 * Which response schemas hand a valid body back as it is (no copy: docs/performance.md "A check, not a
 * copy"), and the form the Node build compiles to check bodies with.
 * @module
 */
import * as z from 'zod/mini';

type Schema = z.core.$ZodType;

/** Schema kinds whose parse output is the input itself when valid. */
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

/** True when `schema` itself hands a valid input back unchanged (no coercion, no rewriting check). */
export function handsInputBack(schema: Schema): boolean {
  const def = schema._zod.def as z.core.$ZodTypeDef & { coerce?: boolean };
  return (
    OUTPUT_IS_INPUT.has(def.type) &&
    !def.coerce &&
    !def.checks?.some((check) => check._zod.def.check === 'overwrite')
  );
}

/**
 * The schema the Node build compiles to check a valid body ({@link compiledCheck}): loose objects made
 * plain (same values accepted, unknown keys not copied). `undefined` where the body must be copied.
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
      const loose =
        catchall?._zod.def.type === 'unknown' && !catchall._zod.def.checks?.length && !def.checks?.length;
      return z.clone(schema, {
        ...def,
        shape: fields,
        catchall: loose ? undefined : catchall,
      } as z.core.$ZodObjectDef);
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
      return (
        value && checkedForm(keyType) && z.clone(schema, { ...def, valueType: value } as z.core.$ZodRecordDef)
      );
    }
    default:
      return schema;
  }
}

/** The Node build's check of a valid body: {@link checkedForm}, compiled, run with `z.validate`. */
export function compiledCheck(schema: Schema): ((value: unknown) => boolean) | undefined {
  const form = checkedForm(schema);
  if (form === undefined) return undefined;
  const compiled = z.compile(form);
  return (value) => z.validate(compiled, value);
}
