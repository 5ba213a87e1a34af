/**
 * The JSON Schemas of the OpenAPI document, converted from the SDK's own zod schemas with zod's
 * `z.toJSONSchema` (draft 2020-12, the dialect of OpenAPI 3.1). {@link sdkSchemas} is the only place that
 * reads the SDK's schemas, as values from its public exports: should they become lazily built (getters or
 * functions), each entry there changes and nothing else.
 *
 * - Request schemas are converted as zod *input* (`io: 'input'`), response schemas as *output*; a name
 *   used on both sides is refused, as the two views could differ (defaults, transforms).
 * - A schema named in {@link sdkSchemas} becomes `components/schemas/<name>` and is referred to by `$ref`
 *   wherever another uses it; schemas without a name are inlined.
 * - What JSON Schema cannot carry (a zod `refine`/`superRefine`/custom check: cross-field rules, "at most
 *   3 decimals", "no unpaired surrogates") zod drops without a word. Here each such check is found while
 *   converting and must have a sentence in `UNEXPRESSED_RULES` (descriptions.ts), which is appended to the
 *   description where the check sits; a check without one, or a sentence without its check, fails the
 *   build (see {@link convertSdkSchemas}).
 * @module
 */

import {
  AddressDetails,
  AddressEntry,
  AddressParts,
  Branch,
  BranchListResponse,
  Coordinates,
  DeliveryLocation,
  Driver,
  Estimate,
  EstimateParams,
  EstimatePoint,
  PickupLocation,
  SellerDetail,
  StatusHistoryEntry,
  Task,
  TaskCreateParams,
  TaskCreateResponse,
  TaskListParams,
  TaskListResponse,
  TaskStatus,
  TravelDetail,
  WalletBalance,
  WalletTopUp,
  WalletTopUpParams,
  WebhookDeliveryLocation,
  WebhookPickupLocation,
  WebhookTask,
} from 'delivery-task-sdk/schemas';
import * as z from 'zod';
import { COMPONENT_DESCRIPTIONS, type SchemaDescription, UNEXPRESSED_RULES } from './descriptions.js';
import { ErrorBody } from './error-body.js';

/** A JSON Schema (draft 2020-12) as zod emits it. */
export type JsonSchema = z.core.JSONSchema.BaseSchema;

/** A zod schema of either flavour (`zod` or `zod/mini`): what `z.toJSONSchema` takes. */
type AnySchema = z.core.$ZodType;

/** The SDK schemas the document is made of, by component name (the SDK's export names). */
export interface SdkSchemas {
  /** Request bodies and their parts, converted as zod input. */
  readonly requests: Readonly<Record<string, AnySchema>>;
  /** Responses, their parts and the webhook body, converted as zod output. */
  readonly responses: Readonly<Record<string, AnySchema>>;
  /** Query objects, converted as zod input, turned into parameters rather than components. */
  readonly queries: Readonly<Record<string, AnySchema>>;
}

/**
 * The SDK's schemas, read as values from its public exports, plus {@link ErrorBody} (the error format
 * the SDK chose, which the SDK has no schema for). The one place to change if the schemas move or
 * become lazily built (`Task` → `Task()`).
 */
export function sdkSchemas(): SdkSchemas {
  return {
    requests: {
      TaskCreateParams,
      DeliveryLocation,
      PickupLocation,
      EstimateParams,
      EstimatePoint,
      WalletTopUpParams,
    },
    responses: {
      Task,
      TaskStatus,
      StatusHistoryEntry,
      Driver,
      SellerDetail,
      Coordinates,
      AddressDetails,
      AddressEntry,
      AddressParts,
      TravelDetail,
      TaskCreateResponse,
      TaskListResponse,
      Estimate,
      Branch,
      BranchListResponse,
      WalletBalance,
      WalletTopUp,
      WebhookTask,
      WebhookDeliveryLocation,
      WebhookPickupLocation,
      ErrorBody,
    },
    queries: { TaskListParams },
  };
}

/** The converted schemas. */
export interface ConvertedSchemas {
  /** `components/schemas`, in the order of {@link SdkSchemas} (requests, then responses). */
  readonly components: Record<string, JsonSchema>;
  /** Query objects by name (`TaskListParams`), for the operations to turn into parameters. */
  readonly queries: Record<string, JsonSchema>;
}

/** Temporary keyword set on a schema whose zod form has a check JSON Schema cannot carry. */
const UNEXPRESSED = 'x-unexpressed-check';

/** Where components live: the `$ref` of component `name`. */
export function componentRef(name: string): string {
  return `#/components/schemas/${name}`;
}

/**
 * The JSON Schema keywords of each custom check of `schema` (`refine`, `superRefine`, `.check(fn)`, which
 * `toJSONSchema` drops): those a `rule` carries in `params.jsonSchema`, `undefined` for any other.
 */
function customCheckKeywords(schema: AnySchema): (Record<string, unknown> | undefined)[] {
  return (schema._zod.def.checks ?? [])
    .map((check) => check._zod.def as { check: string; params?: { jsonSchema?: Record<string, unknown> } })
    .filter((def) => def.check === 'custom')
    .map((def) => def.params?.jsonSchema);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON Pointer escaping of one reference token (RFC 6901). */
function pointerToken(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * Removes the {@link UNEXPRESSED} markers under `schema`, returning the JSON Pointer (from `schema`) of each
 * together with the object that carried it.
 */
function takeMarkers(schema: unknown, pointer = ''): { pointer: string; at: JsonSchema }[] {
  if (Array.isArray(schema)) return schema.flatMap((item, index) => takeMarkers(item, `${pointer}/${index}`));
  if (!isObject(schema)) return [];
  const found: { pointer: string; at: JsonSchema }[] = [];
  if (schema[UNEXPRESSED] === true) {
    delete schema[UNEXPRESSED];
    found.push({ pointer, at: schema });
  }
  for (const [key, value] of Object.entries(schema))
    found.push(...takeMarkers(value, `${pointer}/${pointerToken(key)}`));
  return found;
}

/** Appends a sentence to a schema's description. */
function appendDescription(schema: JsonSchema, sentence: string): void {
  schema.description = schema.description ? `${schema.description} ${sentence}` : sentence;
}

/** Converts one group of named schemas; each may `$ref` the others of its group. */
function convertGroup(
  schemas: Readonly<Record<string, AnySchema>>,
  io: 'input' | 'output',
): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(schemas)) {
    if (registry.has(schema)) throw new Error(`openapi: ${id} is the same zod schema as another component`);
    registry.add(schema, { id });
  }
  const { schemas: converted } = z.toJSONSchema(registry, {
    io,
    uri: componentRef,
    unrepresentable: 'throw',
    override: ({ zodSchema, jsonSchema }) => {
      // A check made with `rule` (src/schemas/checks.ts) states its JSON Schema keywords; other custom
      // checks cannot be expressed.
      for (const keywords of customCheckKeywords(zodSchema)) {
        if (keywords === undefined) jsonSchema[UNEXPRESSED] = true;
        else Object.assign(jsonSchema, keywords);
      }
    },
  });
  const result: Record<string, JsonSchema> = {};
  for (const id of Object.keys(schemas)) {
    const schema = converted[id];
    if (!schema) throw new Error(`openapi: zod emitted no schema for ${id}`);
    // The document states its dialect once; a component is not a resource of its own.
    // A deep copy: zod may share one object between the places a schema appears, and descriptions
    // are added per place.
    const { $schema: _dialect, $id: _id, ...rest } = JSON.parse(JSON.stringify(schema)) as JsonSchema;
    result[id] = rest;
  }
  return result;
}

/** Applies the spec's wording to a converted schema; every described property must exist. */
function describe(name: string, schema: JsonSchema, description: SchemaDescription): void {
  // Wording attached to the zod schema itself (`.describe()`, `.meta()`) wins over the table.
  if (!schema.description) schema.description = description.description;
  for (const [property, text] of Object.entries(description.properties ?? {})) {
    const target = schema.properties?.[property];
    if (!isObject(target)) throw new Error(`openapi: ${name} has no property ${property} to describe`);
    const field = target as JsonSchema;
    if (!field.description) field.description = text;
  }
}

/**
 * Converts {@link sdkSchemas} into `components/schemas` and the query objects, with the spec's wording
 * (descriptions.ts) and a sentence for every check JSON Schema cannot carry.
 * @throws {Error} when a name is used twice, a component or query has no description, a described
 * property does not exist, a dropped check has no sentence in `UNEXPRESSED_RULES`, or a sentence there
 * matches no dropped check.
 */
export function convertSdkSchemas(schemas: SdkSchemas = sdkSchemas()): ConvertedSchemas {
  const requests = convertGroup(schemas.requests, 'input');
  const responses = convertGroup(schemas.responses, 'output');
  const queries = convertGroup(schemas.queries, 'input');
  const all: Record<string, JsonSchema> = {};
  for (const group of [requests, responses, queries]) {
    for (const [name, schema] of Object.entries(group)) {
      if (Object.hasOwn(all, name)) throw new Error(`openapi: the name ${name} is used twice`);
      all[name] = schema;
    }
  }
  const unused = new Set(Object.keys(UNEXPRESSED_RULES));
  for (const [name, schema] of Object.entries(all)) {
    const description = COMPONENT_DESCRIPTIONS[name];
    if (!description)
      throw new Error(`openapi: ${name} has no description in scripts/openapi/descriptions.ts`);
    describe(name, schema, description);
    for (const { pointer, at } of takeMarkers(schema)) {
      const where = `${name}${pointer}`;
      const rule = UNEXPRESSED_RULES[where];
      if (rule === undefined) {
        throw new Error(
          `openapi: ${where} has a zod check JSON Schema cannot express; say what it checks in UNEXPRESSED_RULES (scripts/openapi/descriptions.ts)`,
        );
      }
      unused.delete(where);
      appendDescription(at, `Checked by the SDK, not expressible in JSON Schema: ${rule}`);
    }
  }
  if (unused.size > 0)
    throw new Error(`openapi: UNEXPRESSED_RULES names no dropped check at ${[...unused].join(', ')}`);
  // The description first, for readers of the JSON (a key keeps its first position when spread over).
  const ordered = (group: Record<string, JsonSchema>): Record<string, JsonSchema> =>
    Object.fromEntries(
      Object.entries(group).map(([name, schema]): [string, JsonSchema] => [
        name,
        schema.description === undefined ? schema : { description: schema.description, ...schema },
      ]),
    );
  return { components: { ...ordered(requests), ...ordered(responses) }, queries: ordered(queries) };
}
