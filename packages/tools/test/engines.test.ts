/**
 * The tools' `engines` names the first Node.js that loads them as documented: `require(esm)` of
 * `delivery-task-tools/mcp` (unflagged from Node.js 22.12; 22.11 throws ERR_REQUIRE_ESM), and no lower than
 * any dependency asks (msw 3: >= 22.12).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from './support/sandbox-process.js';

type Manifest = { engines?: { node?: string }; dependencies?: Record<string, string> };

/** The least version a `>=X[.Y[.Z]]` range admits, as [X, Y, Z]. */
function floorOf(range: string): [number, number, number] {
  const match = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
  if (!match) throw new Error(`engines.node ${JSON.stringify(range)} is not a >= range`);
  return [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)];
}

const compare = (a: readonly number[], b: readonly number[]) =>
  (a[0] ?? 0) - (b[0] ?? 0) || (a[1] ?? 0) - (b[1] ?? 0) || (a[2] ?? 0) - (b[2] ?? 0);

const tools = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;

it('admits no Node.js older than 22.12, the first that can require() the ESM entries', () => {
  expect(compare(floorOf(tools.engines?.node ?? ''), [22, 12, 0])).toBeGreaterThanOrEqual(0);
});

it('admits no Node.js that a dependency refuses', () => {
  const require = createRequire(join(ROOT, 'package.json'));
  const floor = floorOf(tools.engines?.node ?? '');
  for (const name of Object.keys(tools.dependencies ?? {})) {
    const manifest = JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as Manifest;
    const wanted = manifest.engines?.node;
    if (wanted === undefined) continue;
    expect(compare(floor, floorOf(wanted)), `${name} wants node ${wanted}`).toBeGreaterThanOrEqual(0);
  }
});
