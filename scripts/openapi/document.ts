/**
 * The Delivery Task Service as an OpenAPI 3.1 document, built from the SDK's zod schemas (README "What the spec leaves open, and what we chose";
 * Tooling: `delivery-task-sdk/openapi.json`). `npm run build` writes it to `dist/openapi.json` and
 * `delivery-task openapi` prints it; both call {@link buildOpenApiDocument} and
 * {@link serializeOpenApiDocument}, so the two are the same bytes.
 * @module
 */
import { DeliveryClient } from 'delivery-task-sdk';

const { VERSION } = DeliveryClient;

import { convertSdkSchemas, type SdkSchemas, sdkSchemas } from './components.js';
import { ERROR_RESPONSES, RESPONSE_HEADERS, servicePaths, serviceWebhooks } from './operations.js';
import type { OpenApiDocument, SecurityScheme } from './types.js';

/** The OpenAPI version written. */
export const OPENAPI_VERSION = '3.1.0';

/** The two headers of README "The client", both required on every request. */
const SECURITY_SCHEMES = {
  apiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description:
      "The literal word `apikey`, a space, then the API key: `Authorization: apikey <API_KEY>` (give the whole value, prefix included, where a tool asks for the key). Issued by the service operator's account manager; a server secret. SDK option `apiKey`, env `DELIVERY_API_KEY`.",
  },
  sellerId: {
    type: 'apiKey',
    in: 'header',
    name: 'x-seller-id',
    description:
      "The seller id: `x-seller-id: <SELLER_ID>`. Issued by the service operator's account manager. SDK option `sellerId`, env `DELIVERY_SELLER_ID`.",
  },
} as const satisfies Record<string, SecurityScheme>;

/**
 * The spec's `{base_url}` (its name, rather than the SDK option's `baseUrl`: Postman derives a collection
 * variable `baseUrl` from the server URL, which would then refer to itself).
 */
const BASE_URL_VARIABLE = {
  base_url: {
    default: 'https://delivery.example.com',
    description:
      'The base URL the account manager gives: scheme, host and any path before `/tasks` or `/rest/tasks` (SDK option `baseUrl`, env `DELIVERY_BASE_URL`).',
  },
};

/**
 * Builds the document from `schemas` (default: the SDK's own).
 * @throws {Error} when the schemas and the descriptions disagree (see `convertSdkSchemas`).
 */
export function buildOpenApiDocument(schemas: SdkSchemas = sdkSchemas()): OpenApiDocument {
  const converted = convertSdkSchemas(schemas);
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'Delivery Task Service',
      version: VERSION,
      summary:
        'Delivery tasks for merchants: creation, listing, lookup, price estimates, a prepaid wallet and status webhooks.',
      description: [
        'A seller creates delivery tasks, reads them one at a time or as pages, asks for distance, time and price estimates, and, on a wallet (prepaid) account, reads its balance and requests top-up links; the service pushes the full task to a registered HTTPS endpoint on each status change.',
        'Money amounts are in KWD (3 decimals). Responses may gain fields at any time: ignore the ones you do not know.',
        `The service has no version marker; \`info.version\` is the version of delivery-task-sdk (${VERSION}) whose zod schemas generated this document. Where the service's own document says "not shown" (status codes, error bodies, the branches shape), this document states what the SDK's design chose and its mock does.`,
      ].join('\n\n'),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      {
        url: '{base_url}',
        description: 'Reference form: paths directly under the base URL (`{base_url}/tasks`).',
        variables: BASE_URL_VARIABLE,
      },
      {
        url: '{base_url}/rest',
        description: 'Quickstart form: an extra `/rest` segment before `/tasks` (`{base_url}/rest/tasks`).',
        variables: BASE_URL_VARIABLE,
      },
    ],
    security: [{ apiKey: [], sellerId: [] }],
    tags: [
      {
        name: 'tasks',
        description: 'Delivery tasks: create, list, retrieve, estimate (SDK `client.tasks`).',
      },
      { name: 'branches', description: 'Pickup branches (SDK `client.branches`).' },
      { name: 'wallet', description: 'The prepaid wallet: balance and top-up links (SDK `client.wallet`).' },
      { name: 'webhooks', description: 'What the service POSTs to the seller (SDK `createWebhookHandler`).' },
    ],
    paths: servicePaths(converted),
    webhooks: serviceWebhooks(),
    components: {
      schemas: converted.components,
      responses: ERROR_RESPONSES,
      headers: RESPONSE_HEADERS,
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

/** The document as the bytes shipped: compact JSON (20 KB less than indented) and a final newline. */
export function serializeOpenApiDocument(document: OpenApiDocument): string {
  return `${JSON.stringify(document)}\n`;
}
