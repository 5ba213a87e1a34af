/**
 * A contract judge: does a response (or a webhook body) match the OpenAPI document the SDK ships?
 *
 * It reads only the generated document (`buildOpenApiDocument()`, the bytes of `dist/openapi.json`) and
 * validates with Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1), never with the SDK's zod schemas,
 * so a response is judged by the published contract rather than by the code under test. Usable from any
 * test that sees responses: pass the request method, the URL path as sent, the status and the parsed body.
 *
 * ```ts
 * assertResponseMatchesContract({ method: 'GET', path: '/rest/tasks/abc', status: 404, body });
 * ```
 *
 * The path is matched to a path template after removing `basePath` (default none) and then an optional
 * `/rest` segment (the quickstart form of the address); concrete paths win over templated ones
 * (`/tasks/estimate` is never `/tasks/{id}`), as OpenAPI says. A status is looked up as the exact code,
 * then its range (`4XX`); a status the operation does not declare fails.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { buildOpenApiDocument } from '../../scripts/openapi/document.js';
import type { OpenApiDocument, Operation, Reference, ResponseObject } from '../../scripts/openapi/types.js';

/** One response as a client saw it. */
export interface ObservedResponse {
  /** HTTP method of the request (any case). */
  method: string;
  /** URL path as sent (`/rest/tasks/abc`), percent-encoded; a query string or fragment is ignored. */
  path: string;
  /** HTTP status of the response. */
  status: number;
  /** The parsed JSON body, the text when it was not JSON, or `undefined` when empty. */
  body: unknown;
  /** The response's `content-type`; checked when given. */
  contentType?: string | null;
}

/** How to read paths. */
export interface ContractOptions {
  /** Path of the base URL before `/tasks` or `/rest/tasks` (`/api` for `https://host/api`). Default `''`. */
  basePath?: string;
}

/** Where a response was matched in the document. */
export interface ContractMatch {
  readonly operationId: string;
  /** Path template (`/tasks/{id}`). */
  readonly template: string;
  /** The response key used: the code (`"404"`) or its range (`"5XX"`). */
  readonly responseKey: string;
}

/** A response outside the contract; `problems` says where and why. */
export class ContractViolation extends Error {
  override readonly name = 'ContractViolation';
  readonly problems: readonly string[];

  constructor(subject: string, problems: readonly string[]) {
    super(`${subject} breaks the OpenAPI contract:\n  - ${problems.join('\n  - ')}`);
    this.problems = problems;
  }
}

/** One operation of the document. */
export interface ContractOperation {
  readonly method: string;
  readonly template: string;
  readonly operationId: string;
  /** Declared response keys: codes and ranges. */
  readonly responseKeys: readonly string[];
}

const JSON_MEDIA_TYPE = 'application/json';
const DOCUMENT_ID = 'urn:delivery-task-sdk:openapi.json';
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

// ajv-formats is CommonJS with a default export; under ESM interop it may arrive wrapped once more.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as typeof addFormatsModule;

function isReference(value: ResponseObject | Reference): value is Reference {
  return '$ref' in value;
}

/** A URI fragment holding a JSON Pointer to `tokens`. */
function fragmentOf(tokens: readonly string[]): string {
  return `#${tokens.map((token) => `/${encodeURIComponent(token.replaceAll('~', '~0').replaceAll('/', '~1'))}`).join('')}`;
}

/** Ajv errors as short lines: `/tasks/0/status must be string`. */
function describeErrors(errors: readonly ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map(
    (error) => `body${error.instancePath || ''} ${error.message ?? 'is invalid'} (${error.schemaPath})`,
  );
}

/** A judge over one document. */
export interface ContractJudge {
  readonly document: OpenApiDocument;
  /** Every operation of the document. */
  readonly operations: readonly ContractOperation[];
  /** Where the response was matched; throws {@link ContractViolation} when it is outside the contract. */
  assertResponse(response: ObservedResponse, options?: ContractOptions): ContractMatch;
  /** Throws {@link ContractViolation} when `body` is not a webhook body of the contract. */
  assertWebhook(body: unknown): void;
}

/** Builds a judge over `document` (compiling each schema once, when first needed). */
export function createContractJudge(document: OpenApiDocument): ContractJudge {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  // The document is added whole, so the `$ref`s inside its schemas resolve as they do in the document;
  // its OpenAPI keys are declared as annotations so that strict mode lets them be.
  for (const key of Object.keys(document)) ajv.addKeyword(key);
  ajv.addSchema({ $id: DOCUMENT_ID, ...document });
  const validators = new Map<string, ValidateFunction>();
  const validatorAt = (tokens: readonly string[]): ValidateFunction => {
    const ref = `${DOCUMENT_ID}${fragmentOf(tokens)}`;
    let validate = validators.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: ref });
      validators.set(ref, validate);
    }
    return validate;
  };

  const templates = Object.keys(document.paths).sort(
    (a, b) => Number(a.includes('{')) - Number(b.includes('{')) || b.length - a.length,
  );
  const patterns = new Map(
    templates.map((template) => [
      template,
      new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    ]),
  );

  const operations: ContractOperation[] = templates.flatMap((template) =>
    METHODS.flatMap((method) => {
      const operation = document.paths[template]?.[method];
      return operation
        ? [
            {
              method: method.toUpperCase(),
              template,
              operationId: operation.operationId,
              responseKeys: Object.keys(operation.responses),
            },
          ]
        : [];
    }),
  );

  /** The path relative to the server: base path, then an optional `/rest`, removed. */
  function relativePath(path: string, basePath: string, problems: string[]): string | undefined {
    const bare = path.split(/[?#]/, 1)[0] ?? '';
    if (!bare.startsWith(basePath)) {
      problems.push(`path ${bare} is not under the base path ${basePath}`);
      return undefined;
    }
    const rest = bare.slice(basePath.length);
    return rest === '/rest' || rest.startsWith('/rest/') ? rest.slice('/rest'.length) : rest;
  }

  function checkBody(
    subject: string,
    tokens: readonly string[],
    response: ResponseObject,
    observed: ObservedResponse,
    problems: string[],
  ): void {
    const media = response.content?.[JSON_MEDIA_TYPE];
    if (!media) {
      if (observed.body !== undefined && observed.body !== '')
        problems.push(`${subject} declares no body, got one`);
      return;
    }
    if (observed.contentType !== undefined) {
      const mediaType = observed.contentType?.split(';')[0]?.trim().toLowerCase();
      if (mediaType !== JSON_MEDIA_TYPE)
        problems.push(`content-type ${String(observed.contentType)} is not ${JSON_MEDIA_TYPE}`);
    }
    const validate = validatorAt([...tokens, 'content', JSON_MEDIA_TYPE, 'schema']);
    if (!validate(observed.body)) problems.push(...describeErrors(validate.errors));
  }

  return {
    document,
    operations,
    assertResponse(observed, options = {}) {
      const subject = `${observed.method.toUpperCase()} ${observed.path} → ${observed.status}`;
      const problems: string[] = [];
      const relative = relativePath(observed.path, options.basePath ?? '', problems);
      const template =
        relative === undefined ? undefined : templates.find((t) => patterns.get(t)?.test(relative));
      if (relative !== undefined && template === undefined)
        problems.push(`no path of the document matches ${relative}`);
      const method = observed.method.toLowerCase() as (typeof METHODS)[number];
      const item = template === undefined ? undefined : document.paths[template];
      const operation: Operation | undefined = item?.[method];
      if (template !== undefined && !operation) {
        problems.push(
          `${template} has no ${method.toUpperCase()} operation (it has ${Object.keys(item ?? {}).join(', ')})`,
        );
      }
      if (!operation || template === undefined) throw new ContractViolation(subject, problems);

      const code = String(observed.status);
      const range = `${code[0]}XX`;
      const responseKey = Object.hasOwn(operation.responses, code)
        ? code
        : Object.hasOwn(operation.responses, range)
          ? range
          : undefined;
      if (responseKey === undefined) {
        problems.push(
          `status ${code} is not declared for ${operation.operationId} (declared: ${Object.keys(operation.responses).join(', ')})`,
        );
        throw new ContractViolation(subject, problems);
      }
      const declared = operation.responses[responseKey] as ResponseObject | Reference;
      let response: ResponseObject | undefined;
      let tokens: string[];
      if (isReference(declared)) {
        const name = declared.$ref.replace('#/components/responses/', '');
        response = document.components.responses[name];
        tokens = ['components', 'responses', name];
        if (!response) problems.push(`${declared.$ref} does not resolve`);
      } else {
        response = declared;
        tokens = ['paths', template, method, 'responses', responseKey];
      }
      if (response) checkBody(subject, tokens, response, observed, problems);
      if (problems.length > 0) throw new ContractViolation(subject, problems);
      return { operationId: operation.operationId, template, responseKey };
    },
    assertWebhook(body) {
      const problems: string[] = [];
      const [name, item] = Object.entries(document.webhooks)[0] ?? [];
      const requestBody = item?.post?.requestBody;
      if (!name || !requestBody?.content[JSON_MEDIA_TYPE]) {
        throw new ContractViolation('webhook body', ['the document declares no JSON webhook']);
      }
      const validate = validatorAt([
        'webhooks',
        name,
        'post',
        'requestBody',
        'content',
        JSON_MEDIA_TYPE,
        'schema',
      ]);
      if (!validate(body)) problems.push(...describeErrors(validate.errors));
      if (problems.length > 0) throw new ContractViolation(`webhook ${name}`, problems);
    },
  };
}

let defaultJudge: ContractJudge | undefined;

/** The judge over the document the SDK ships (built once per process). */
export function contractJudge(): ContractJudge {
  defaultJudge ??= createContractJudge(buildOpenApiDocument());
  return defaultJudge;
}

/**
 * Checks one response against the shipped OpenAPI document: the path and method name an operation, the
 * status is declared for it (exactly or by range), and the body matches the declared schema.
 * @returns where it matched.
 * @throws {ContractViolation} listing every problem.
 */
export function assertResponseMatchesContract(
  response: ObservedResponse,
  options?: ContractOptions,
): ContractMatch {
  return contractJudge().assertResponse(response, options);
}

/**
 * Checks a webhook body (what the service POSTs on a status change) against the document's `webhooks`.
 * @throws {ContractViolation} listing every problem.
 */
export function assertWebhookMatchesContract(body: unknown): void {
  contractJudge().assertWebhook(body);
}
