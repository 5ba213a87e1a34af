/**
 * The size of what an import costs an app's bundle: esbuild, minified, browser platform by default (the
 * `module` condition, as bundlers resolve it), dependencies included, gzip -9. Needs `npm run build` first; the
 * package is imported by its own name.
 * @module
 */
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/** Bytes of one bundle, minified and gzipped. */
export interface BundleSize {
  minified: number;
  gzip: number;
  /** The minified bundle itself. */
  text: string;
  /** Minified bytes of each module in the bundle (`dist/client.js`, `node_modules/zod/v4/core/schemas.js`, …), largest first. */
  modules: [module: string, bytes: number][];
}

/** Bundles `source` (ES module text importing this package by name) from the project root. */
export async function bundleSize(
  source: string,
  platform: 'browser' | 'node' = 'browser',
): Promise<BundleSize> {
  const result = await build({
    stdin: { contents: source, resolveDir: process.cwd(), loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform,
    write: false,
    logLevel: 'silent',
    external: ['node:*'],
    // The package's own name must resolve to dist/ through package.json exports, not to src/ through
    // the tsconfig `paths` the tests use.
    tsconfigRaw: {},
    metafile: true,
  });
  const text = result.outputFiles[0]?.text ?? '';
  const fromSource = Object.keys(result.metafile.inputs).filter((input) => input.startsWith('src/'));
  if (fromSource.length > 0)
    throw new Error(`bundled from src/, not dist/: ${fromSource.slice(0, 3).join(', ')}`);
  const inputs = Object.values(result.metafile.outputs)[0]?.inputs ?? {};
  const modules = Object.entries(inputs)
    .map(([module, { bytesInOutput }]): [string, number] => [module, bytesInOutput])
    .filter(([module, bytes]) => bytes > 0 && module !== '<stdin>')
    .sort((a, b) => b[1] - a[1]);
  return { minified: Buffer.byteLength(text), gzip: gzipSync(text, { level: 9 }).length, text, modules };
}

/** The bundle of one import statement, its binding used so nothing is dropped as unused. */
export function importSize(statement: string, platform: 'browser' | 'node' = 'browser'): Promise<BundleSize> {
  const binding = /import\s+(?:\*\s+as\s+)?\{?\s*(\w+)/.exec(statement)?.[1] ?? 'undefined';
  return bundleSize(`${statement}\nconsole.log(${binding});`, platform);
}

/** `12.3 KB` (1 KB = 1024 bytes). */
export function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}
