/**
 * Where the mock listens and which operation a request is for. The spec allows two forms of the
 * address (spec, preamble of the OpenAPI document's paths and the first paragraph): the reference form
 * `{base_url}/tasks…` and the quickstart form `{base_url}/rest/tasks…`; the mock serves both.
 * @module
 */
import { OPERATION_NAMES, OPERATIONS } from '../core/operations.js';
import type { MockOperation } from './types.js';

/** The address of the mock service. */
export interface ServiceAddress {
  /** The base URL as configured, without trailing slashes. */
  readonly baseUrl: string;
  /** Scheme, host and port (`https://delivery.test`). */
  readonly origin: string;
  /** Percent-encoded paths of the tasks collection in both forms (`/tasks`, `/rest/tasks`, or with a prefix). */
  readonly collections: readonly string[];
}

/**
 * Normalises a base URL and derives the paths served: the root is the URL without trailing slashes
 * and without a trailing `/rest` segment; `<root>/tasks` and `<root>/rest/tasks` are served.
 * @throws {TypeError} when `baseUrl` is not an absolute http(s) URL, or has a query, fragment or credentials.
 */
export function serviceAddress(baseUrl: string): ServiceAddress {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`baseUrl must be an absolute http(s) URL, got ${JSON.stringify(baseUrl)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`baseUrl must use http or https, got ${JSON.stringify(url.protocol)}`);
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new TypeError('baseUrl must not have a query, a fragment or credentials');
  }
  const path = url.pathname.replace(/\/+$/, '');
  const root = path.replace(/\/rest$/, '');
  return {
    baseUrl: `${url.origin}${path}`,
    origin: url.origin,
    collections: [`${root}/tasks`, `${root}/rest/tasks`],
  };
}

/**
 * The path segments after the tasks collection (still percent-encoded), or `undefined` when the URL
 * is not served by the mock. `/tasks` → `[]`, `/tasks/` → `[]`, `/rest/tasks/abc` → `['abc']`.
 */
export function segmentsAfterCollection(address: ServiceAddress, url: URL): string[] | undefined {
  if (url.origin !== address.origin) return undefined;
  for (const collection of address.collections) {
    if (url.pathname === collection) return [];
    if (url.pathname.startsWith(`${collection}/`)) {
      const segments = url.pathname.slice(collection.length + 1).split('/');
      if (segments.at(-1) === '') segments.pop();
      return segments;
    }
  }
  return undefined;
}

/** The collection's fixed sub-paths (`/tasks/estimate`, …), from the table of operations. */
const FIXED_ROUTES: Readonly<
  Record<string, { readonly method: string; readonly operation: Exclude<MockOperation, 'tasks.retrieve'> }>
> = Object.fromEntries(
  OPERATION_NAMES.flatMap((operation) => {
    const { method, path } = OPERATIONS[operation];
    const fixed = /^\/tasks\/([a-z-]+)$/.exec(path)?.[1];
    return fixed === undefined || operation === 'tasks.retrieve' ? [] : [[fixed, { method, operation }]];
  }),
);

/** The operations on the collection itself (`/tasks`), by method. */
const COLLECTION_ROUTES = new Map(
  OPERATION_NAMES.filter((operation) => OPERATIONS[operation].path === '/tasks').map(
    (operation) =>
      [OPERATIONS[operation].method as string, operation as Exclude<MockOperation, 'tasks.retrieve'>] as const,
  ),
);

/** What a request is for. */
export type Route =
  | { readonly operation: Exclude<MockOperation, 'tasks.retrieve'> }
  | { readonly operation: 'tasks.retrieve'; readonly taskId: string }
  | { readonly operation: 'unknown'; readonly problem: 'not-found' | 'malformed-id' }
  | { readonly operation: 'unknown'; readonly problem: 'method-not-allowed'; readonly allow: string };

/**
 * Routes a request by method and the segments after the collection. A fixed name
 * (`wallet-balance`, `wallet-topup`, `estimate`, `branches`) is matched on the raw segment only; any
 * other single segment is a task id, percent-decoded, so `..%2Fwallet-balance` is the id
 * `../wallet-balance` (a 404), never another route.
 */
export function routeOf(method: string, segments: readonly string[]): Route {
  const [first, ...rest] = segments;
  if (first === undefined) {
    const operation = COLLECTION_ROUTES.get(method);
    if (operation !== undefined) return { operation };
    return { operation: 'unknown', problem: 'method-not-allowed', allow: [...COLLECTION_ROUTES.keys()].join(', ') };
  }
  if (rest.length > 0) return { operation: 'unknown', problem: 'not-found' };
  const fixed = Object.hasOwn(FIXED_ROUTES, first) ? FIXED_ROUTES[first] : undefined;
  if (fixed) {
    return method === fixed.method
      ? { operation: fixed.operation }
      : { operation: 'unknown', problem: 'method-not-allowed', allow: fixed.method };
  }
  if (method !== 'GET') return { operation: 'unknown', problem: 'method-not-allowed', allow: 'GET' };
  try {
    return { operation: 'tasks.retrieve', taskId: decodeURIComponent(first) };
  } catch {
    return { operation: 'unknown', problem: 'malformed-id' };
  }
}
