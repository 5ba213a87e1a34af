/**
 * Reads an environment variable where one exists (Node, Bun, Deno with permission); `undefined` elsewhere.
 */
export function readEnv(name: string): string | undefined {
  try {
    const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[
      name
    ];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  } catch {
    return undefined;
  }
}

/**
 * True in a browser page (a `window` with a `document`), where a server secret must not be used by default.
 */
export function isBrowser(): boolean {
  const scope = globalThis as { window?: { document?: unknown } };
  return (
    typeof scope.window === 'object' && scope.window !== null && typeof scope.window.document !== 'undefined'
  );
}

export type RuntimeName = 'node' | 'bun' | 'deno' | 'workerd' | 'edge-runtime' | 'unknown';

export interface RuntimeScope {
  readonly Bun?: { readonly version?: unknown } | undefined;
  readonly Deno?: { readonly version?: { readonly deno?: unknown } } | undefined;
  readonly EdgeRuntime?: unknown;
  readonly navigator?: { readonly userAgent?: unknown } | undefined;
  readonly process?: { readonly versions?: { readonly node?: unknown } } | undefined;
}

/** The runtime and its version (`unknown` where it cannot be told); Bun and Deno checked before Node. */
export function detectRuntime(scope: RuntimeScope = globalThis as RuntimeScope): {
  name: RuntimeName;
  version: string;
} {
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : 'unknown');
  try {
    if (scope.Bun !== undefined) return { name: 'bun', version: text(scope.Bun.version) };
    if (scope.Deno !== undefined) return { name: 'deno', version: text(scope.Deno.version?.deno) };
    if (typeof scope.EdgeRuntime === 'string') return { name: 'edge-runtime', version: 'unknown' };
    if (scope.navigator?.userAgent === 'Cloudflare-Workers') return { name: 'workerd', version: 'unknown' };
    const node = scope.process?.versions?.node;
    if (typeof node === 'string') return { name: 'node', version: node };
  } catch {}
  return { name: 'unknown', version: 'unknown' };
}
