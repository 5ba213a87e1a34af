/**
 * Where msw's `setupServer` can intercept requests, for `mock.listen()`: msw 3 intercepts
 * `fetch` on Node.js ≥ 22.12 only. On older Node.js it fails inside its interceptors; on Bun and Deno it
 * does not intercept at all, and requests meant for the mock go to the network.
 * @module
 */

import { detectRuntime, type RuntimeScope } from '../internal/env.js';

/** The first Node.js version where msw 3 intercepts: 22.12. */
const MSW_MIN_NODE: readonly [major: number, minor: number] = [22, 12];

/**
 * Names the runtime when msw cannot intercept there, e.g. `'Bun 1.4.5'`, `'Deno 2.9.6'`,
 * `'Node.js 20.20.2'`; `undefined` where it can (Node.js ≥ 22.12, or a runtime that is none of Bun, Deno
 * and Node.js, where msw is left to try).
 * @param scope the globals to read; default `globalThis`.
 */
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
