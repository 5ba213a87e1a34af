import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import * as zm from 'zod/mini';
import type { JsonSchema } from '../../../scripts/openapi/components.js';
import { sdkSchemas } from '../../../scripts/openapi/components.js';
import { buildOpenApiDocument, serializeOpenApiDocument } from '../../../scripts/openapi/document.js';
import { pathParameters } from '../../../scripts/openapi/operations.js';
import type { Operation, ResponseObject } from '../../../scripts/openapi/types.js';
import { OPERATION_NAMES, OPERATIONS as TABLE } from '../../../src/core/operations.js';
import { OPERATIONS } from '../../../src/testing/faults.js';

const document = buildOpenApiDocument();
const schemas = document.components.schemas;

/** Property `field` of a schema, as a schema. */
function property(of: JsonSchema, field: string): JsonSchema {
  const found = of.properties?.[field];
  if (typeof found !== 'object') throw new Error(`no property ${field}`);
  return found;
}

function schema(name: string): JsonSchema {
  const found = schemas[name];
  if (!found) throw new Error(`no component ${name}`);
  return found;
}

/** Every `$ref` in `value`, with where it sits. */
function refsIn(value: unknown, at = '#'): { at: string; ref: string }[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => refsIn(item, `${at}/${index}`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) =>
    key === '$ref' && typeof item === 'string' ? [{ at, ref: item }] : refsIn(item, `${at}/${key}`),
  );
}

/** Resolves a local `$ref` in the document. */
function resolve(ref: string): unknown {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>((node, token) => (node as Record<string, unknown> | undefined)?.[token], document);
}

/** The JSON type(s) a property schema admits, following a `$ref`. */
function jsonTypeOf(property: unknown): string {
  const node = property as JsonSchema;
  if (node.$ref) return jsonTypeOf(resolve(node.$ref));
  return String(node.type);
}

/** The spec's Task table (§ Task), field → JSON type. */
const SPEC_TASK_FIELDS = {
  id: 'string',
  sellerId: 'string',
  sellerName: 'string',
  orderNumber: 'string',
  customerName: 'string',
  customerNumber: 'string',
  alternateCustomerNumber: 'string',
  deliveryZone: 'string',
  additionalAddressDetail: 'string',
  collectCash: 'boolean',
  totalAmount: 'string',
  specialNotes: 'string',
  status: 'string',
  retailpartner: 'boolean',
  customPickup: 'boolean',
  statusHistory: 'array',
  createdAt: 'string',
  updatedAt: 'string',
  deliveryId: 'string',
  driver: 'object',
  deliveryTime: 'string',
  completedTime: 'string',
  sellerDetail: 'object',
  deliveryDispatched: 'boolean',
  pickupLocation: 'object',
  addressDetails: 'object',
  travelDetail: 'object',
  dispatchwebhookrequest: 'object',
};

/** The spec's POST /tasks request table, field → JSON type. */
const SPEC_CREATE_FIELDS = {
  sellerId: 'string',
  sellerName: 'string',
  orderNumber: 'string',
  customerName: 'string',
  customerNumber: 'string',
  alternateCustomerNumber: 'string',
  deliveryZone: 'string',
  additionalAddressDetail: 'string',
  collectCash: 'boolean',
  totalAmount: 'string',
  specialNotes: 'string',
  customPickup: 'boolean',
  pickupLocation: 'object',
  deliveryLocation: 'object',
  pickupName: 'string',
  pickupNumber: 'string',
  pickupNotes: 'string',
  selectedBranch: 'string',
};

describe('the paths and operations', () => {
  const operations = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, operation: operation as Operation })),
  );

  it('are exactly the seven endpoints of the spec', () => {
    expect(operations.map(({ method, path }) => `${method.toUpperCase()} ${path}`).sort()).toEqual([
      'GET /tasks',
      'GET /tasks/branches',
      'GET /tasks/wallet-balance',
      'GET /tasks/{id}',
      'POST /tasks',
      'POST /tasks/estimate',
      'POST /tasks/wallet-topup',
    ]);
  });

  it('are the table of operations (src/core/operations.ts): path, method, id, tag and path parameters', () => {
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    const documented = operations.map(({ path, method, operation }) => ({
      name: operation['x-sdk-method'] ?? '',
      path,
      method: method.toUpperCase(),
      operationId: operation.operationId,
      tags: operation.tags,
      pathParameters: (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name),
    }));
    const table = OPERATION_NAMES.map((name) => ({
      name,
      path: TABLE[name].path,
      method: TABLE[name].method,
      operationId: TABLE[name].operationId,
      tags: [name.split('.')[0]],
      pathParameters: [...TABLE[name].path.matchAll(/\{(\w+)\}/g)].map(([, param]) => param),
    }));
    expect(documented.sort(byName)).toEqual(table.sort(byName));
  });

  it('declare every parameter of a path template, such as /tasks/{id}/cancel', () => {
    expect(pathParameters('/tasks/{id}/cancel')).toEqual([
      {
        name: 'id',
        in: 'path',
        required: true,
        description: 'Task identifier (percent-encoded in the path).',
        schema: { type: 'string', minLength: 1 },
      },
    ]);
    expect(pathParameters('/tasks/estimate')).toEqual([]);
  });

  it('are named after the SDK methods, one operation per method the mock knows', () => {
    const names = Object.fromEntries(
      operations.map(({ operation }) => [operation['x-sdk-method'], operation.operationId]),
    );
    expect(names).toEqual({
      'tasks.create': 'createTask',
      'tasks.retrieve': 'retrieveTask',
      'tasks.list': 'listTasks',
      'tasks.estimate': 'estimateTask',
      'branches.list': 'listBranches',
      'wallet.retrieveBalance': 'retrieveWalletBalance',
      'wallet.topUp': 'topUpWallet',
    });
    expect(Object.keys(names).sort()).toEqual([...OPERATIONS].sort());
    for (const { operation } of operations) {
      expect(operation.tags).toEqual([operation['x-sdk-method']?.split('.')[0]]);
      expect(operation.summary.length).toBeGreaterThan(5);
      expect(operation.description.length).toBeGreaterThan(20);
    }
  });

  it('declare a JSON success body and the error shape for every error status', () => {
    for (const { operation } of operations) {
      const success = Object.keys(operation.responses).filter((key) => key.startsWith('2'));
      expect(success.length, operation.operationId).toBeGreaterThan(0);
      for (const [key, declared] of Object.entries(operation.responses)) {
        const response = ('$ref' in declared ? resolve(declared.$ref) : declared) as ResponseObject;
        const schemaOf = response.content?.['application/json']?.schema;
        if (key.startsWith('2'))
          expect(schemaOf?.$ref, `${operation.operationId} ${key}`).toMatch(/^#\/components\/schemas\//);
        else
          expect(schemaOf, `${operation.operationId} ${key}`).toEqual({
            $ref: '#/components/schemas/ErrorBody',
          });
      }
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['401', '429', '4XX', '5XX']));
    }
    const create = document.paths['/tasks']?.post;
    expect(Object.keys(create?.responses ?? {})).toEqual([
      '200',
      '201',
      '400',
      '401',
      '402',
      '429',
      '4XX',
      '5XX',
    ]);
    expect(create?.responses['402']).toEqual({ $ref: '#/components/responses/InsufficientBalance' });
    expect(document.paths['/tasks/{id}']?.get?.responses['404']).toEqual({
      $ref: '#/components/responses/NotFound',
    });
  });

  it('take the request bodies by reference, JSON and required', () => {
    const bodies = {
      'POST /tasks': 'TaskCreateParams',
      'POST /tasks/estimate': 'EstimateParams',
      'POST /tasks/wallet-topup': 'WalletTopUpParams',
    };
    for (const { path, method, operation } of operations) {
      const expected = bodies[`${method.toUpperCase()} ${path}` as keyof typeof bodies];
      if (expected === undefined) expect(operation.requestBody).toBeUndefined();
      else {
        expect(operation.requestBody?.required).toBe(true);
        expect(operation.requestBody?.content['application/json']?.schema).toEqual({
          $ref: `#/components/schemas/${expected}`,
        });
      }
    }
  });

  it('list the query parameters of GET /tasks with the types and defaults of the spec', () => {
    const parameters = document.paths['/tasks']?.get?.parameters ?? [];
    expect(
      parameters.map(({ name, in: where, required, schema: { type, default: fallback } }) => ({
        name,
        where,
        required,
        type,
        fallback,
      })),
    ).toEqual([
      { name: 'limit', where: 'query', required: false, type: 'integer', fallback: 10 },
      { name: 'page', where: 'query', required: false, type: 'integer', fallback: 1 },
      { name: 'search', where: 'query', required: false, type: 'string', fallback: '' },
      { name: 'sortBy', where: 'query', required: false, type: 'string', fallback: '' },
      { name: 'ignoreRegex', where: 'query', required: false, type: 'boolean', fallback: false },
      { name: 'sortOrder', where: 'query', required: false, type: 'number', fallback: 1 },
    ]);
    expect(parameters[0]?.schema.maximum).toBe(10);
    expect(parameters[5]?.schema.enum).toEqual([1, -1]);
    for (const parameter of parameters) expect(parameter.description.length).toBeGreaterThan(5);
  });

  it('take the task id as a required path parameter', () => {
    expect(document.paths['/tasks/{id}']?.get?.parameters).toEqual([
      expect.objectContaining({
        name: 'id',
        in: 'path',
        required: true,
        schema: { type: 'string', minLength: 1 },
      }),
    ]);
  });
});

describe('servers and security', () => {
  it('offer both forms of the base URL, the bare one and the one with /rest', () => {
    expect(document.servers.map(({ url }) => url)).toEqual(['{base_url}', '{base_url}/rest']);
    const expand = (url: string, variables: Record<string, { default: string }> = {}) =>
      url.replace(/\{(\w+)\}/g, (_match, name: string) => variables[name]?.default ?? '');
    expect(document.servers.map(({ url, variables }) => `${expand(url, variables)}/tasks`)).toEqual([
      'https://delivery.example.com/tasks',
      'https://delivery.example.com/rest/tasks',
    ]);
  });

  it('require both headers of the spec on every operation, and none on the webhook', () => {
    expect(document.components.securitySchemes).toEqual({
      apiKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'Authorization' }),
      sellerId: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-seller-id' }),
    });
    expect(document.components.securitySchemes.apiKey?.description).toContain('apikey <API_KEY>');
    // One requirement naming both: both headers together (an AND), not either.
    expect(document.security).toEqual([{ apiKey: [], sellerId: [] }]);
    for (const item of Object.values(document.paths)) {
      for (const operation of Object.values(item)) expect((operation as Operation).security).toBeUndefined();
    }
    expect(document.webhooks.taskStatusChanged?.post?.security).toEqual([]);
  });
});

describe('the webhook', () => {
  it('is declared under webhooks with the webhook form of the task', () => {
    const webhook = document.webhooks.taskStatusChanged?.post;
    expect(webhook?.requestBody?.content['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/WebhookTask',
    });
    expect(Object.keys(webhook?.responses ?? {})).toEqual(['200']);
    expect(webhook?.description).toContain('5 seconds');
    expect(webhook?.description).toContain('not retried');
  });

  it('has the task fields plus the webhook extras of the spec, in their webhook forms', () => {
    const webhookTask = schema('WebhookTask');
    for (const field of Object.keys(SPEC_TASK_FIELDS)) expect(webhookTask.properties).toHaveProperty(field);
    const extras = {
      _id: 'string',
      vehicleType: 'string',
      pickupName: 'string',
      pickupNumber: 'string',
      estimatedPrice: 'string',
      walletDeducted: 'boolean',
      deliveryLocation: 'object',
      pickupLocation: 'object',
    };
    for (const [field, type] of Object.entries(extras))
      expect(jsonTypeOf(webhookTask.properties?.[field])).toBe(type);
    expect(Object.keys(schema('WebhookDeliveryLocation').properties ?? {})).toEqual([
      'lat',
      'lng',
      'kwAddress',
      'fullAddress',
    ]);
    expect(Object.keys(schema('WebhookPickupLocation').properties ?? {}).sort()).toEqual([
      'fullAddress',
      'latitude',
      'longitude',
    ]);
    expect(webhookTask.required).toEqual(['status']);
    expect(webhookTask.additionalProperties).toEqual({});
  });
});

describe('the schemas', () => {
  it('have every field of the spec’s Task table with its type, all optional, unknown fields allowed', () => {
    const task = schema('Task');
    expect(Object.keys(task.properties ?? {}).sort()).toEqual(Object.keys(SPEC_TASK_FIELDS).sort());
    for (const [field, type] of Object.entries(SPEC_TASK_FIELDS)) {
      expect(jsonTypeOf(task.properties?.[field]), field).toBe(type);
    }
    expect(task.required).toBeUndefined();
    expect(task.additionalProperties).toEqual({});
    expect(task.properties?.statusHistory).toMatchObject({
      items: { $ref: '#/components/schemas/StatusHistoryEntry' },
    });
  });

  it('have every field of the spec’s create table, none required, unknown fields refused', () => {
    const create = schema('TaskCreateParams');
    expect(Object.keys(create.properties ?? {}).sort()).toEqual(Object.keys(SPEC_CREATE_FIELDS).sort());
    for (const [field, type] of Object.entries(SPEC_CREATE_FIELDS)) {
      expect(jsonTypeOf(create.properties?.[field]), field).toBe(type);
    }
    expect(create.required).toBeUndefined();
    expect(create.additionalProperties).toBe(false);
    expect(schema('DeliveryLocation').properties?.fullAddress).toMatchObject({
      type: 'array',
      items: { type: 'string' },
    });
  });

  it('carry the limits of the spec: page envelope, estimate points, top-up minimum', () => {
    expect(schema('TaskListResponse').required).toEqual(['tasks', 'page', 'limit', 'totalPages', 'total']);
    expect(schema('EstimateParams').required).toEqual(['from', 'to']);
    expect(schema('WalletTopUpParams').properties?.amount).toMatchObject({ type: 'number', minimum: 5 });
    expect(schema('WalletTopUp').required).toEqual(['paymentUrl']);
    expect(schema('TaskStatus').enum).toEqual([
      'pending',
      'requested',
      'accepted',
      'pickedup',
      'enroute',
      'delivered',
      'cancelled',
      'rejected',
      'failed',
    ]);
  });

  it('refer to each other by $ref and every $ref resolves', () => {
    const refs = refsIn(document);
    expect(refs.length).toBeGreaterThan(30);
    for (const { at, ref } of refs) expect(resolve(ref), `${at} → ${ref}`).toBeDefined();
    const referenced = new Set(refs.map(({ ref }) => ref));
    for (const name of [
      'Task',
      'Driver',
      'TravelDetail',
      'StatusHistoryEntry',
      'AddressEntry',
      'ErrorBody',
    ]) {
      expect(referenced).toContain(`#/components/schemas/${name}`);
    }
  });

  it('are never copied: no component appears inlined anywhere else', () => {
    const serialized = new Map(Object.entries(schemas).map(([name, value]) => [JSON.stringify(value), name]));
    const copies: string[] = [];
    const walk = (value: unknown, at: string) => {
      if (typeof value !== 'object' || value === null) return;
      const name = serialized.get(JSON.stringify(value));
      if (name !== undefined && at !== `#/components/schemas/${name}`) copies.push(`${name} at ${at}`);
      for (const [key, item] of Object.entries(value)) walk(item, `${at}/${key}`);
    };
    walk(document, '#');
    expect(copies).toEqual([]);
  });

  it('describe every component and every property', () => {
    const undescribed: string[] = [];
    for (const [name, value] of Object.entries(schemas)) {
      if (!value.description) undescribed.push(name);
      if (name === 'AddressParts') continue; // The spec lists its fields without meanings.
      for (const [field, property] of Object.entries(value.properties ?? {})) {
        if (!(property as JsonSchema).description) undescribed.push(`${name}.${field}`);
      }
    }
    expect(undescribed).toEqual([]);
  });

  it('compile under Ajv’s strict JSON Schema 2020-12 (no keyword zod emits is unknown to it)', () => {
    const ajv = new Ajv2020({ strict: true });
    for (const [name, value] of Object.entries(schemas)) {
      const rewritten = JSON.parse(
        JSON.stringify(value).replaceAll('#/components/schemas/', 'urn:test:component:'),
      );
      ajv.addSchema(rewritten, `urn:test:component:${name}`);
    }
    for (const name of Object.keys(schemas))
      expect(() => ajv.getSchema(`urn:test:component:${name}`)).not.toThrow();
  });
});

describe('what JSON Schema cannot express', () => {
  it('is said in words where zod checked it: the cross-field rule, the decimals, the id characters', () => {
    expect(schema('TaskCreateParams').description).toMatch(
      /Checked by the SDK, not expressible in JSON Schema: selectedBranch only with customPickup true/,
    );
    expect(property(schema('WalletTopUpParams'), 'amount').description).toMatch(
      /not expressible in JSON Schema: at most 3 decimals/,
    );
    expect(property(schema('WebhookTask'), '_id').description).toMatch(/no control characters/);
    expect(document.paths['/tasks']?.get?.description).toMatch(
      /not expressible in JSON Schema: every string well-formed/,
    );
    // The rule itself is not in the schema: a body breaking it still validates.
    const $defs = JSON.parse(JSON.stringify(schemas).replaceAll('#/components/schemas/', '#/$defs/'));
    const validate = new Ajv2020({ strict: true }).compile({ $defs, $ref: '#/$defs/TaskCreateParams' });
    expect(validate({ selectedBranch: 'Salmiya' })).toBe(true);
    expect(validate({ selectedBranch: 'Salmiya', colour: 'red' })).toBe(false);
    expect(JSON.stringify(document)).not.toContain('x-unexpressed-check');
  });

  it('fails the build when a schema gains a refinement nobody described', () => {
    const base = sdkSchemas();
    const refined = base.responses.WalletTopUp as zm.ZodMiniType;
    const responses = { ...base.responses, WalletTopUp: refined.check(zm.refine(() => true, 'a rule')) };
    expect(() => buildOpenApiDocument({ ...base, responses })).toThrow(
      /WalletTopUp has a zod check JSON Schema cannot express/,
    );
  });

  it('fails the build when a described rule no longer has its check', () => {
    const base = sdkSchemas();
    const requests = { ...base.requests, WalletTopUpParams: z.strictObject({ amount: z.number().min(5) }) };
    expect(() => buildOpenApiDocument({ ...base, requests })).toThrow(
      /UNEXPRESSED_RULES names no dropped check at WalletTopUpParams\/properties\/amount/,
    );
  });

  it('fails the build when a described field is gone from its schema', () => {
    const base = sdkSchemas();
    const responses = { ...base.responses, Driver: z.looseObject({ name: z.string().optional() }) };
    expect(() => buildOpenApiDocument({ ...base, responses })).toThrow(
      /Driver has no property phone to describe/,
    );
  });
});

describe('building', () => {
  it('converts zod/mini schemas to the same component as classic zod', () => {
    const base = sdkSchemas();
    const mini = zm.looseObject({ walletAmount: zm.number() });
    const fromMini = buildOpenApiDocument({ ...base, responses: { ...base.responses, WalletBalance: mini } });
    expect(fromMini.components.schemas.WalletBalance).toEqual(schema('WalletBalance'));
    expect(fromMini.components.schemas.WalletBalance).toMatchObject({ required: ['walletAmount'] });
  });

  it('gives the same bytes every time', () => {
    expect(serializeOpenApiDocument(buildOpenApiDocument())).toBe(serializeOpenApiDocument(document));
  });

  it('is a valid OpenAPI 3.1 document for @seriousme/openapi-schema-validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(serializeOpenApiDocument(document)));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });
});
