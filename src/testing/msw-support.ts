/** Where msw 3's `setupServer` intercepts `fetch`: Node.js ≥ 22.12 only (not Bun, Deno). @module */

import { detectRuntime, type RuntimeScope } from '../internal/env.js';

/** The first Node.js version where msw 3 intercepts: 22.12. */
const MSW_MIN_NODE: readonly [major: number, minor: number] = [22, 12];

/** The runtime where msw cannot intercept (`'Bun 1.4.5'`, `'Node.js 20.20.2'`), else `undefined`. */
export function runtimeWithoutMswInterception(scope?: RuntimeScope): string | undefined {
  const { name, version } = detectRuntime(scope);
  if (name === 'bun') return withVersion('Bun', version);
  if (name === 'deno') return withVersion('Deno', version);
  if (name !== 'node') return undefined;
  const [major = 0, minor = 0] = version.split('.').map((part) => Number.parseInt(part, 10));
  const [minMajor, minMinor] = MSW_MIN_NODE;
  return major > minMajor || (major === minMajor && minor >= minMinor) ? undefined : `Node.js ${version}`;
}

function withVersion(name: string, version: string): string {
  return version === 'unknown' ? name : `${name} ${version}`;
}
