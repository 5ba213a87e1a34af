/**
 * The CommonJS entries' declarations, `dist/<entry>.d.cts`, written from the ESM build's `dist/*.d.ts`
 * (`npm run build`, after tsup): both declare the same sources (`src/<entry>.ts`), so a second declaration
 * build, which cost about 8 CPU-s and 4 s of the build's 11, would only repeat the first. Each file the
 * CommonJS entries reach (the entries of `tsup.config.ts`'s CommonJS build and the chunks they import, not
 * the ESM-only `internal`) is copied as `.d.cts` with its relative imports pointed at `.cjs`, so
 * TypeScript reads the `.d.cts` beside it, in CommonJS mode. A named import from a package that ships ESM
 * only (msw) becomes `import type … with { 'resolution-mode': 'import' }`: types only, read as ESM, so a
 * CommonJS project in `node16` mode with `skipLibCheck` off type-checks it (TS1479 otherwise). `npm run
 * check:package` (attw, publint, a CommonJS consumer, and scripts/check-types.sh in `node16` mode) checks
 * the result.
 * @throws when an entry's `.d.ts` is missing (tsup did not write it) or a file imports one that is not there,
 * or imports an ESM-only package other than by name.
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

/** A bare import of a declaration file: `import { A, B } from 'pkg';`, `import 'pkg';`, … */
const BARE_IMPORT = /^import\s+(?:(type\s+)?(\{[^}]*\})\s+from\s+|[^'"]*?from\s+)?'([^'./][^']*)';$/gm;

/** The package of a bare specifier (`@scope/name` or `name`) and the `exports` key of its subpath. */
function packageOf(specifier: string): { name: string; subpath: string } {
  const parts = specifier.split('/');
  const length = specifier.startsWith('@') ? 2 : 1;
  const rest = parts.slice(length).join('/');
  return { name: parts.slice(0, length).join('/'), subpath: rest === '' ? '.' : `./${rest}` };
}

/** True when `specifier` resolves to ESM only: a `type: module` package whose export has no `require`. */
function esmOnly(specifier: string, root: string): boolean {
  if (specifier.startsWith('node:')) return false;
  const { name, subpath } = packageOf(specifier);
  const manifest = join(root, 'node_modules', name, 'package.json');
  if (!existsSync(manifest)) throw new Error(`build-cjs-declarations: ${specifier} is not installed`);
  const { type, exports } = JSON.parse(readFileSync(manifest, 'utf8')) as {
    type?: string;
    exports?: unknown;
  };
  const entry =
    typeof exports === 'object' && exports !== null && subpath in exports
      ? (exports as Record<string, unknown>)[subpath]
      : exports;
  const conditions = JSON.stringify(entry ?? '');
  return type === 'module' && !conditions.includes('"require"') && !conditions.includes('.cjs');
}

/** `text`'s named imports of ESM-only packages as type-only imports resolved as ESM. */
function esmOnlyAsImportTypes(text: string, file: string, root: string): string {
  return text.replace(
    BARE_IMPORT,
    (line, _type: string | undefined, names: string | undefined, specifier: string) => {
      if (!esmOnly(specifier, root)) return line;
      if (names === undefined) {
        throw new Error(
          `build-cjs-declarations: ${file} imports the ESM-only ${specifier} other than by name`,
        );
      }
      return `import type ${names} from '${specifier}' with { 'resolution-mode': 'import' };`;
    },
  );
}

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Writes `<name>.d.cts` for each name reached from {@link CJS_ENTRIES}; returns the names written. */
export function writeCjsDeclarations(dist = DIST, root = ROOT): string[] {
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
    writeFileSync(join(dist, `${name}.d.cts`), esmOnlyAsImportTypes(text, `${name}.d.ts`, root));
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
