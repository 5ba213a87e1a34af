/**
 * The CommonJS entries' declarations, `dist/<entry>.d.cts`, written from the ESM build's `dist/*.d.ts`
 * (`npm run build`, after tsup): both declare the same sources (`src/<entry>.ts`), so a second declaration
 * build, which cost about 8 CPU-s and 4 s of the build's 11, would only repeat the first. Each file the
 * CommonJS entries reach (the entries of `tsup.config.ts`'s CommonJS build and the chunks they import, not
 * the ESM-only `internal`) is copied as `.d.cts` with its relative imports pointed at `.cjs`, so
 * TypeScript reads the `.d.cts` beside it, in CommonJS mode. `npm run check:package` (attw, publint, a
 * CommonJS consumer) checks the result.
 * @throws when an entry's `.d.ts` is missing (tsup did not write it) or a file imports one that is not there.
 * @module
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));

/** The entries `require` resolves to (package.json `exports`, `require.types`). */
export const CJS_ENTRIES = ['index', 'testing', 'redis', 'postgres', 'kwd', 'webhooks', 'schemas'] as const;

/** A relative module specifier of a declaration file: `from './name.js'`, or `import './name.js'`. */
const RELATIVE_IMPORT = /(\b(?:from|import)\s+')\.\/([\w.-]+)\.js'/g;

/** Writes `<name>.d.cts` for each name reached from {@link CJS_ENTRIES}; returns the names written. */
export function writeCjsDeclarations(dist = DIST): string[] {
  const pending: string[] = [...CJS_ENTRIES];
  const written = new Set<string>();
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (written.has(name)) continue;
    const source = join(dist, `${name}.d.ts`);
    if (!existsSync(source)) throw new Error(`build-cjs-declarations: ${source} is missing`);
    const text = readFileSync(source, 'utf8').replace(
      RELATIVE_IMPORT,
      (_match, from: string, target: string) => {
        pending.push(target);
        return `${from}./${target}.cjs'`;
      },
    );
    writeFileSync(join(dist, `${name}.d.cts`), text);
    written.add(name);
  }
  return [...written].sort();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const names = writeCjsDeclarations();
  console.log(
    `build-cjs-declarations: ${names.length} files, ${names.map((name) => `${name}.d.cts`).join(' ')}`,
  );
}
