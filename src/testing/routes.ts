/**
 * Where the mock listens (`<root>/tasks…`, `<root>/rest/tasks…`) and which operation a request is for.
 * @module
 */
import { OPERATIONS, type OperationName } from '../core/operations.js';

export interface ServiceAddress {
  readonly baseUrl: string;
  readonly origin: string;
  /** Percent-encoded paths of the tasks collection in both forms (`/tasks`, `/rest/tasks`). */
  readonly collections: readonly string[];
}

/**
 * Serves `<root>/tasks` and `<root>/rest/tasks`. @throws {TypeError} for a `baseUrl` not plain absolute
 * http(s).
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

/** The raw segments after the collection (`/rest/tasks/abc` → `['abc']`), or `undefined` when not served. */
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

/** What a request is for: an operation with its decoded path parameters, or why there is none. */
export type Route<Name extends string = OperationName> =
  | { readonly operation: Name; readonly params: Readonly<Record<string, string>> }
  | { readonly operation: 'unknown'; readonly problem: 'not-found' }
  | { readonly operation: 'unknown'; readonly problem: 'malformed-param'; readonly param: string }
  | { readonly operation: 'unknown'; readonly problem: 'method-not-allowed'; readonly allow: string };

type Segment = { readonly fixed: string } | { readonly param: string };

interface Template<Name extends string> {
  readonly segments: readonly Segment[];
  readonly methods: Map<string, Name>;
}

function templateSegments(path: string): Segment[] {
  const [empty, collection, ...rest] = path.split('/');
  if (empty !== '' || collection !== 'tasks') {
    throw new TypeError(`the mock serves templates under /tasks, got ${JSON.stringify(path)}`);
  }
  return rest.map((segment) => {
    const param = /^\{(\w+)\}$/.exec(segment)?.[1];
    return param === undefined ? { fixed: segment } : { param };
  });
}

/** `undefined`, or a rank that sorts a fixed segment before a parameter at the first difference. */
function rankOf(template: readonly Segment[], segments: readonly string[]): string | undefined {
  if (template.length !== segments.length) return undefined;
  let rank = '';
  for (const [index, segment] of template.entries()) {
    if ('fixed' in segment) {
      if (segment.fixed !== segments[index]) return undefined;
      rank += '0';
    } else rank += '1';
  }
  return rank;
}

/**
 * Most specific template wins; fixed segments matched raw (`..%2Fwallet-balance` is an id), parameters
 * decoded.
 * @throws {TypeError} for a template outside `/tasks`.
 */
export function routerOf<Name extends string>(
  table: Readonly<Record<Name, { readonly method: string; readonly path: string }>>,
): (method: string, segments: readonly string[]) => Route<Name> {
  const templates = new Map<string, Template<Name>>();
  for (const name of Object.keys(table) as Name[]) {
    const { method, path } = table[name];
    const template = templates.get(path) ?? { segments: templateSegments(path), methods: new Map() };
    templates.set(path, template);
    template.methods.set(method, name);
  }
  return (method, segments) => {
    let best: { template: Template<Name>; rank: string } | undefined;
    for (const template of templates.values()) {
      const rank = rankOf(template.segments, segments);
      if (rank !== undefined && (best === undefined || rank < best.rank)) best = { template, rank };
    }
    if (best === undefined) return { operation: 'unknown', problem: 'not-found' };
    const operation = best.template.methods.get(method);
    if (operation === undefined) {
      return {
        operation: 'unknown',
        problem: 'method-not-allowed',
        allow: [...best.template.methods.keys()].join(', '),
      };
    }
    const params: Record<string, string> = {};
    for (const [index, segment] of best.template.segments.entries()) {
      if (!('param' in segment)) continue;
      try {
        params[segment.param] = decodeURIComponent(segments[index] ?? '');
      } catch {
        return { operation: 'unknown', problem: 'malformed-param', param: segment.param };
      }
    }
    return { operation, params };
  };
}

/** Routes a request by method and the segments after `/tasks`. */
export const routeOf = routerOf(OPERATIONS);
