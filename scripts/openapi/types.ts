/**
 * The parts of OpenAPI 3.1 this document uses, typed just enough to build and read it.
 * @module
 */
import type { JsonSchema } from './components.js';

/** A `$ref` to another part of the document. */
export interface Reference {
  readonly $ref: string;
}

/** A media type entry: the schema of a JSON body. */
export interface MediaType {
  readonly schema: JsonSchema;
}

/** A response header. */
export interface Header {
  readonly description: string;
  readonly schema: JsonSchema;
}

/** One response of an operation. */
export interface ResponseObject {
  readonly description: string;
  readonly headers?: Readonly<Record<string, Header | Reference>>;
  readonly content?: Readonly<Record<string, MediaType>>;
}

/** A query or path parameter. */
export interface Parameter {
  readonly name: string;
  readonly in: 'query' | 'path';
  readonly required: boolean;
  readonly description: string;
  readonly schema: JsonSchema;
}

/** A request body. */
export interface RequestBody {
  readonly description: string;
  readonly required: boolean;
  readonly content: Readonly<Record<string, MediaType>>;
}

/** One operation. `x-sdk-method` names the SDK method that calls it (`tasks.create`). */
export interface Operation {
  readonly operationId: string;
  readonly 'x-sdk-method'?: string;
  readonly tags: readonly string[];
  readonly summary: string;
  readonly description: string;
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: RequestBody;
  /** By status code (`"200"`) or range (`"4XX"`). */
  readonly responses: Readonly<Record<string, ResponseObject | Reference>>;
  readonly security?: readonly Readonly<Record<string, readonly string[]>>[];
}

/** The operations of one path, by lower-case HTTP method. */
export type PathItem = Readonly<Partial<Record<'get' | 'post' | 'put' | 'patch' | 'delete', Operation>>>;

/** A server URL template. */
export interface Server {
  readonly url: string;
  readonly description: string;
  readonly variables?: Readonly<Record<string, { readonly default: string; readonly description: string }>>;
}

/** A security scheme (this document uses API keys in headers only). */
export interface SecurityScheme {
  readonly type: 'apiKey';
  readonly in: 'header';
  readonly name: string;
  readonly description: string;
}

/** The OpenAPI 3.1 document of the Delivery Task Service. */
export interface OpenApiDocument {
  readonly openapi: string;
  readonly info: {
    readonly title: string;
    readonly version: string;
    readonly summary: string;
    readonly description: string;
    readonly license: { readonly name: string; readonly identifier: string };
  };
  readonly servers: readonly Server[];
  readonly security: readonly Readonly<Record<string, readonly string[]>>[];
  readonly tags: readonly { readonly name: string; readonly description: string }[];
  readonly paths: Readonly<Record<string, PathItem>>;
  readonly webhooks: Readonly<Record<string, PathItem>>;
  readonly components: {
    readonly schemas: Readonly<Record<string, JsonSchema>>;
    readonly responses: Readonly<Record<string, ResponseObject>>;
    readonly headers: Readonly<Record<string, Header>>;
    readonly securitySchemes: Readonly<Record<string, SecurityScheme>>;
  };
}
