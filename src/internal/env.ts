/** Reads an environment variable where one exists (Node, Bun, Deno with permission); `undefined` elsewhere. */
export function readEnv(name: string): string | undefined {
  try {
    const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  } catch {
    // Deno without --allow-env throws on access.
    return undefined;
  }
}

/** True in a browser page (a `window` with a `document`), where a server secret must not be used by default. */
export function isBrowser(): boolean {
  const scope = globalThis as { window?: { document?: unknown } };
  return typeof scope.window === 'object' && scope.window !== null && typeof scope.window.document !== 'undefined';
}
