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

/**
 * The Node build's check of a valid body: {@link checkedForm}, checked by {@link generatedCheck}. `undefined`
 * where the body must be copied.
 */
export function compiledCheck(schema: Schema): ((value: unknown) => boolean) | undefined {
  const form = checkedForm(schema);
  return form && generatedCheck(form);
}

type Check = (value: unknown) => boolean;

/** zod's compiled check of `schema` (`z.compile`, zod's runtime parser where it cannot compile). */
function zodCheck(schema: Schema): Check {
  const compiled = z.compile(schema);
  return (value) => z.validate(compiled, value);
}

/**
 * The check of a checked form (no part of it transforms or defaults) as generated code, true exactly when
 * zod's runtime parse succeeds: plain objects, optional, nullable, arrays, strings, numbers, booleans and
 * unknowns are written out, each as zod's runtime reads it (`$ZodObject` with `handlePropertyResult`,
 * `$ZodOptional`, `$ZodNumber`…); any other part is zod's compiled check, called. zod's own compiled code
 * checks each optional field inside an arrow function made and called per field and value (about 2 KB of
 * garbage per task); this code allocates nothing. zod's compiled check where code cannot be generated
 * (`new Function` refused).
 */
function generatedCheck(schema: Schema): Check {
  const called: Check[] = [];
  const lines: string[] = [];
  let names = 0;
  /** Writes the lines that return false unless the value in `at` passes `part`. */
  const write = (part: Schema, at: string): void => {
    const def = part._zod.def;
    const kind = writtenKind(part);
    switch (kind) {
      case 'string':
      case 'boolean':
        lines.push(`if (typeof ${at} !== "${kind}") return false;`);
        return;
      case 'number':
        lines.push(`if (typeof ${at} !== "number" || !Number.isFinite(${at})) return false;`);
        return;
      case 'unknown':
      case 'any':
        return;
      case 'optional':
      case 'nullable': {
        const { innerType } = def as z.core.$ZodOptionalDef;
        lines.push(`if (${at} !== ${kind === 'optional' ? 'undefined' : 'null'}) {`);
        write(innerType, at);
        lines.push('}');
        return;
      }
      case 'array': {
        const index = `i${names++}`;
        const element = `v${names++}`;
        lines.push(`if (!Array.isArray(${at})) return false;`);
        lines.push(
          `for (let ${index} = 0; ${index} < ${at}.length; ${index}++) {`,
          `const ${element} = ${at}[${index}];`,
        );
        write((def as z.core.$ZodArrayDef).element, element);
        lines.push('}');
        return;
      }
      case 'object': {
        const fields = plainFields(def as z.core.$ZodObjectDef);
        if (fields === undefined) break;
        lines.push(`if (typeof ${at} !== "object" || ${at} === null || Array.isArray(${at})) return false;`);
        for (const [key, field, optional] of fields) {
          const value = `v${names++}`;
          const name = JSON.stringify(key);
          lines.push(`const ${value} = ${at}[${name}];`);
          // Absent: valid only when optional; present (even undefined): the field's check. A plain optional's
          // own lines pass `undefined`, present or absent.
          const plainOptional = field._zod.def.type === 'optional' && writtenKind(field) !== undefined;
          if (!optional) lines.push(`if (${value} === undefined && !(${name} in ${at})) return false;`);
          else if (!plainOptional) lines.push(`if (${value} !== undefined || ${name} in ${at}) {`);
          write(field, value);
          if (optional && !plainOptional) lines.push('}');
        }
        return;
      }
    }
    lines.push(`if (!called[${called.push(zodCheck(part)) - 1}](${at})) return false;`);
  };
  try {
    write(schema, 'input');
    return new Function('called', `return (input) => {\n${lines.join('\n')}\nreturn true;\n};`)(
      called,
    ) as Check;
  } catch {
    return zodCheck(schema);
  }
}

/** `schema`'s kind when {@link generatedCheck} writes it out: plain, no check, no coercion. */
function writtenKind(schema: Schema): string | undefined {
  const def = schema._zod.def as z.core.$ZodTypeDef & { coerce?: boolean };
  return !def.checks?.length && !def.coerce && isPlain(schema) ? def.type : undefined;
}

/** zod's core class of each kind {@link generatedCheck} writes out. */
const PLAIN_KINDS: Readonly<Record<string, string>> = {
  string: '$ZodString',
  boolean: '$ZodBoolean',
  number: '$ZodNumber',
  unknown: '$ZodUnknown',
  any: '$ZodAny',
  optional: '$ZodOptional',
  nullable: '$ZodNullable',
  array: '$ZodArray',
  object: '$ZodObject',
};

/**
 * True when `schema` is its kind's core class and no subclass of it (`z.exactOptional` is an `optional`
 * that refuses `undefined`, `z.email()` a `string`): zod's `$ZodObjectJIT` parses as `$ZodObject` does.
 */
function isPlain(schema: Schema): boolean {
  const kind = PLAIN_KINDS[schema._zod.def.type];
  const { traits } = schema._zod;
  if (kind === undefined || !traits.has(kind)) return false;
  for (const trait of traits) {
    if (trait.startsWith('$') && trait !== kind && trait !== '$ZodType' && trait !== '$ZodObjectJIT')
      return false;
  }
  return true;
}

/**
 * The fields of an object that drops unknown keys, each required (`optin` unset) or optional (`optin` and
 * `optout` both `'optional'`, so absent is valid); `undefined` for any other object (a catchall, symbol or
 * `__proto__` keys, a defaulted field).
 */
function plainFields(
  def: z.core.$ZodObjectDef,
): [key: string, field: Schema, optional: boolean][] | undefined {
  const { shape, catchall } = def;
  if (catchall !== undefined || Object.getOwnPropertySymbols(shape).length > 0) return undefined;
  const fields: [string, Schema, boolean][] = [];
  for (const [key, field] of Object.entries(shape)) {
    const { optin, optout } = field._zod;
    const optional = optin === 'optional' && optout === 'optional';
    if (key === '__proto__' || (optin !== undefined && !optional)) return undefined;
    fields.push([key, field, optional]);
  }
  return fields;
}
