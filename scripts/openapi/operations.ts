/**
 * The seven operations of the service (the OpenAPI document's paths) as OpenAPI paths, and the webhook the service
 * sends (OpenAPI webhook `taskStatusChanged`).
 *
 * Operation ids follow the SDK: `<method><Resource>`, the SDK method's verb and its resource, singular for
 * one object, plural for a list, the resource folded into the noun where the method already names one
 * (`tasks.create` → `createTask`, `tasks.list` → `listTasks`, `wallet.retrieveBalance` →
 * `retrieveWalletBalance`, `wallet.topUp` → `topUpWallet`). `x-sdk-method` names the SDK method itself,
 * and the tags are the SDK's resources (`tasks`, `branches`, `wallet`).
 *
 * Status codes: the spec shows none ("Success status codes … not shown", "error status codes: not
 * shown"). Declared are the ones the SDK chose (README "What the spec leaves open, and what we chose") and the mock sends (200, 201 for a create when
 * configured, 400, 401, 402, 404), 429 with its retry headers, and the ranges `4XX` and `5XX` for every
 * other error, all with the same {@link ErrorBody} shape. Any other status (another 2xx, a 3xx) is
 * outside the contract.
 * @module
 */
import { OPERATION_NAMES, OPERATIONS, type OperationName } from '../../src/core/operations.js';
import { type ConvertedSchemas, componentRef, type JsonSchema } from './components.js';
import type {
  Header,
  Operation,
  Parameter,
  PathItem,
  Reference,
  RequestBody,
  ResponseObject,
} from './types.js';

const JSON_TYPE = 'application/json';

function ref(name: string): JsonSchema {
  return { $ref: componentRef(name) };
}

function responseRef(name: keyof typeof ERROR_RESPONSES): Reference {
  return { $ref: `#/components/responses/${name}` };
}

function headerRef(name: keyof typeof RESPONSE_HEADERS): Reference {
  return { $ref: `#/components/headers/${name}` };
}

function jsonResponse(description: string, component: string): ResponseObject {
  return { description, content: { [JSON_TYPE]: { schema: ref(component) } } };
}

function jsonBody(description: string, component: string): RequestBody {
  return { description, required: true, content: { [JSON_TYPE]: { schema: ref(component) } } };
}

/** Response headers the SDK reads (`components/headers`). */
export const RESPONSE_HEADERS = {
  RetryAfter: {
    description:
      'When to retry: whole seconds, or an HTTP date. The SDK honours it for the calls it retries when it is at most 60 s away (a longer wait falls back to its own backoff).',
    schema: { type: 'string' },
  },
  RetryAfterMs: {
    description:
      'When to retry, in milliseconds (a non-negative decimal number). Takes precedence over Retry-After in the SDK; honoured up to 60 000.',
    schema: { type: 'number', minimum: 0 },
  },
} as const satisfies Record<string, Header>;

const retryHeaders = { 'Retry-After': headerRef('RetryAfter'), 'retry-after-ms': headerRef('RetryAfterMs') };

function errorResponse(description: string, headers?: ResponseObject['headers']): ResponseObject {
  return {
    description,
    ...(headers ? { headers } : {}),
    content: { [JSON_TYPE]: { schema: ref('ErrorBody') } },
  };
}

/** Error answers shared by the operations (`components/responses`). */
export const ERROR_RESPONSES = {
  BadRequest: errorResponse(
    'Malformed request: a body that is not JSON or not `application/json`, an unknown or invalid field, an invalid query parameter (code `BAD_REQUEST`). Not shown by the spec; the SDK chose 400.',
  ),
  Unauthorized: errorResponse(
    'Missing or wrong `Authorization` or `x-seller-id` (code `UNAUTHORIZED`). Not shown by the spec; the SDK chose 401. The message never repeats what was sent.',
  ),
  InsufficientBalance: errorResponse(
    'A wallet account whose balance is below the required minimum (the service contract: Errors): creation is rejected and no task is created, nothing is charged (code `INSUFFICIENT_BALANCE`). The status is not shown by the spec; the SDK chose 402, and the SDK also recognises a 4xx on create whose code or message mentions the balance.',
  ),
  NotFound: errorResponse(
    'No task with this id for this seller (code `NOT_FOUND`). Not shown by the spec; the SDK chose 404.',
  ),
  RateLimited: errorResponse(
    'Too many requests. Rate limits are not shown by the spec; the SDK retries reads and estimates after `Retry-After` / `retry-after-ms`.',
    retryHeaders,
  ),
  ClientError: errorResponse(
    'Any other client error, same body. The SDK maps 403, 409 and 422 to their own error classes and never retries a 4xx other than 408 and 429.',
  ),
  ServerError: errorResponse(
    'A server error, same body. The SDK retries reads and estimates on 500, 502, 503 and 504 (honouring the retry headers), looks a create up by its orderNumber before any resend, and never retries a top-up.',
    retryHeaders,
  ),
} as const satisfies Record<string, ResponseObject>;

/** The responses every operation has: 401, 429 and the two ranges. */
const COMMON_ERRORS = {
  '401': responseRef('Unauthorized'),
  '429': responseRef('RateLimited'),
  '4XX': responseRef('ClientError'),
  '5XX': responseRef('ServerError'),
};

/** What an operation documents by hand; the table gives its id, path, method, tag and path parameters. */
type Documented = Omit<Operation, 'operationId' | 'tags'>;

/** Descriptions of the path parameters of the table's templates. */
const PATH_PARAMETERS: Readonly<Record<string, string>> = {
  id: 'Task identifier (percent-encoded in the path).',
};

/**
 * The parameters of a path template (`{id}` in `/tasks/{id}/cancel`).
 * @throws {Error} for a parameter without a description in `PATH_PARAMETERS`.
 */
export function pathParameters(path: string): Parameter[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name = '']) => {
    const description = Object.hasOwn(PATH_PARAMETERS, name) ? PATH_PARAMETERS[name] : undefined;
    if (description === undefined) throw new Error(`openapi: describe the path parameter ${name} of ${path}`);
    return { name, in: 'path', required: true, description, schema: { type: 'string', minLength: 1 } };
  });
}

/** Defaults of the list query (OpenAPI `listTasks`). */
const LIST_QUERY_DEFAULTS: Readonly<Record<string, unknown>> = {
  limit: 10,
  page: 1,
  search: '',
  sortBy: '',
  ignoreRegex: false,
  sortOrder: 1,
};

/**
 * The query parameters of a query object, in its property order, with the spec's defaults.
 * @throws {Error} when a default names a parameter the query object lacks.
 */
function queryParameters(query: JsonSchema, defaults: Readonly<Record<string, unknown>>): Parameter[] {
  const properties = query.properties ?? {};
  for (const name of Object.keys(defaults)) {
    if (!Object.hasOwn(properties, name)) throw new Error(`openapi: the list query has no parameter ${name}`);
  }
  return Object.entries(properties).map(([name, property]) => {
    const { description = '', ...schema } = typeof property === 'object' ? property : {};
    return {
      name,
      in: 'query',
      required: query.required?.includes(name) ?? false,
      description,
      schema: Object.hasOwn(defaults, name) ? { ...schema, default: defaults[name] } : schema,
    };
  });
}

/**
 * The paths of the document: the seven operations under `/tasks`, relative to either server (the
 * reference form `{base_url}` or the quickstart form `{base_url}/rest`).
 */
export function servicePaths(schemas: ConvertedSchemas): Record<string, PathItem> {
  const listQuery = schemas.queries.TaskListParams;
  if (!listQuery) throw new Error('openapi: the list query TaskListParams was not converted');

  const createTask: Documented = {
    summary: 'Create a task',
    description:
      'Creates a task. The delivery fee is deducted from a wallet account at creation; when the balance is below the required minimum, creation is rejected and no task is created. On an invoice account no balance check is applied. The new task has the status `pending`. The API has no idempotency key: a create whose outcome is unknown must be looked up (list with the exact orderNumber) before any resend, or a second task and fee may follow.',
    requestBody: jsonBody('The new task. The spec marks no field required.', 'TaskCreateParams'),
    responses: {
      '200': jsonResponse('The created task, as `{ data: { createTask: Task } }`.', 'TaskCreateResponse'),
      '201': jsonResponse(
        'The created task (a service may answer 201; the SDK accepts any 2xx).',
        'TaskCreateResponse',
      ),
      '400': responseRef('BadRequest'),
      '402': responseRef('InsufficientBalance'),
      ...COMMON_ERRORS,
    },
  };

  const listTasks: Documented = {
    summary: "List the seller's tasks",
    description:
      `Returns a paginated list of the seller's tasks: at most 10 per page. ${listQuery.description ?? ''}`.trim(),
    parameters: queryParameters(listQuery, LIST_QUERY_DEFAULTS),
    responses: {
      '200': jsonResponse('One page of tasks.', 'TaskListResponse'),
      '400': responseRef('BadRequest'),
      ...COMMON_ERRORS,
    },
  };

  const retrieveTask: Documented = {
    summary: 'Retrieve a task',
    description:
      'Returns one task. Receivers of webhooks confirm important changes (delivered before releasing a payment) here (the service contract: Events, item 7).',
    responses: {
      '200': jsonResponse('The task.', 'Task'),
      '400': responseRef('BadRequest'),
      '404': responseRef('NotFound'),
      ...COMMON_ERRORS,
    },
  };

  const estimateTask: Documented = {
    summary: 'Estimate distance, time and price',
    description: 'Returns distance, travel time and price between two points without creating a task.',
    requestBody: jsonBody('The two points.', 'EstimateParams'),
    responses: {
      '200': jsonResponse('The estimate.', 'Estimate'),
      '400': responseRef('BadRequest'),
      ...COMMON_ERRORS,
    },
  };

  const listBranches: Documented = {
    summary: 'List pickup branches',
    description:
      'The source of valid `selectedBranch` names for POST /tasks. Its request and response shape are not shown by the spec: see BranchListResponse.',
    responses: {
      '200': jsonResponse('The branches.', 'BranchListResponse'),
      ...COMMON_ERRORS,
    },
  };

  const retrieveWalletBalance: Documented = {
    summary: 'Retrieve the wallet balance',
    description:
      'Returns the balance of the prepaid wallet in KWD. Meaningful for wallet accounts; invoice accounts have no balance check.',
    responses: {
      '200': jsonResponse('The balance.', 'WalletBalance'),
      ...COMMON_ERRORS,
    },
  };

  const topUpWallet: Documented = {
    summary: 'Request a top-up payment link',
    description:
      'Requests a payment link to top up the wallet: at least 5 KWD, at most 3 decimals. The link expires 24 hours after issue; the wallet is credited automatically when the payment completes. The mock refuses a top-up on an invoice account (400, code `INVOICE_ACCOUNT`). Not retried by the SDK.',
    requestBody: jsonBody('The amount.', 'WalletTopUpParams'),
    responses: {
      '200': jsonResponse('The payment link.', 'WalletTopUp'),
      '400': responseRef('BadRequest'),
      ...COMMON_ERRORS,
    },
  };

  const documented: Record<OperationName, Documented> = {
    'tasks.create': createTask,
    'tasks.retrieve': retrieveTask,
    'tasks.list': listTasks,
    'tasks.estimate': estimateTask,
    'branches.list': listBranches,
    'wallet.retrieveBalance': retrieveWalletBalance,
    'wallet.topUp': topUpWallet,
  };
  const paths: Record<string, { get?: Operation; post?: Operation }> = {};
  for (const name of OPERATION_NAMES) {
    const { method, path, operationId } = OPERATIONS[name];
    const { summary, description, parameters = [], ...rest } = documented[name];
    const all = [...pathParameters(path), ...parameters];
    const item = paths[path] ?? {};
    paths[path] = item;
    item[method === 'GET' ? 'get' : 'post'] = {
      operationId,
      'x-sdk-method': name,
      tags: [name.slice(0, name.indexOf('.'))],
      summary,
      description,
      ...(all.length > 0 ? { parameters: all } : {}),
      ...rest,
    };
  }
  return paths;
}

/** The webhook the service sends (OpenAPI webhook `taskStatusChanged`), under the document's `webhooks`. */
export function serviceWebhooks(): Record<string, PathItem> {
  return {
    taskStatusChanged: {
      post: {
        operationId: 'taskStatusChanged',
        tags: ['webhooks'],
        summary: 'A task changed status',
        description: [
          "The service POSTs the full task as JSON to the seller's HTTPS endpoint, one request per status change; there is no other event channel.",
          'The endpoint is registered once per API key with the account manager and applies to every task created with that key.',
          "Event kinds, carried as the body's `status`: `accepted`, `inprogress`, `pickup_location_reached`, `pickedup`, `enroute`, `delivered`, `cancelled` as the spec lists them, and `requested`, `rejected`, `failed`, since every status change triggers a webhook.",
          'Respond within 5 seconds: return 200 at once and process afterwards. Failed or slow deliveries are not retried.',
          'Requests are not signed and the headers sent are not shown by the spec: treat the body as a hint and confirm important changes with GET /tasks/{id}.',
          'Ignore unknown fields; new fields may be added at any time. The SDK parses it with `parseWebhookEvent` and serves it with `createWebhookHandler`.',
        ].join(' '),
        requestBody: jsonBody('The task, webhook form.', 'WebhookTask'),
        responses: {
          '200': { description: 'Acknowledged. Answer at once, within 5 seconds, and process afterwards.' },
        },
        security: [],
      },
    },
  };
}
