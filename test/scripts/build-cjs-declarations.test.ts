/**
 * The CommonJS entries' declarations written from the ESM build's (scripts/build-cjs-declarations.ts):
 * every file an entry reaches, and only those, as `.d.cts` importing `.cjs`; a missing file stops the build.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { CJS_ENTRIES, writeCjsDeclarations } from '../../scripts/build-cjs-declarations.js';
import { temporaryFolder } from '../support/temporary-folders.js';

/** A build folder holding each entry's `.d.ts` (importing `chunk-a`) and the files in `extra`. */
function distWith(extra: Record<string, string>): string {
  const dist = temporaryFolder('cjs-declarations-');
  for (const entry of CJS_ENTRIES) {
    writeFileSync(join(dist, `${entry}.d.ts`), `export { A as ${entry}A } from './chunk-a.js';\n`);
  }
  for (const [name, text] of Object.entries(extra)) writeFileSync(join(dist, name), text);
  return dist;
}

it('writes each file the entries reach as .d.cts with its relative imports on .cjs, and no other', () => {
  const dist = distWith({
    'chunk-a.d.ts':
      "import { B } from './chunk-b.js';\nimport './chunk-c.js';\nimport * as z from 'zod/mini';\nexport type A = B | z.infer<typeof z.string>;\n",
    'chunk-b.d.ts': 'export type B = number;\n',
    'chunk-c.d.ts': "declare module './chunk-b.js' {}\nexport {};\n",
    'internal.d.ts': "export { A } from './chunk-a.js';\nexport { D } from './chunk-d.js';\n",
    'chunk-d.d.ts': 'export type D = string;\n',
  });
  const written = writeCjsDeclarations(dist);
  expect(written).toEqual([...CJS_ENTRIES, 'chunk-a', 'chunk-b', 'chunk-c'].sort());
  expect(
    readdirSync(dist)
      .filter((file) => file.endsWith('.d.cts'))
      .sort(),
  ).toEqual(written.map((name) => `${name}.d.cts`));
  expect(readFileSync(join(dist, 'index.d.cts'), 'utf8')).toBe(
    "export { A as indexA } from './chunk-a.cjs';\n",
  );
  // Relative imports and side-effect imports move to .cjs; a package's specifier stays as it is.
  expect(readFileSync(join(dist, 'chunk-a.d.cts'), 'utf8')).toBe(
    "import { B } from './chunk-b.cjs';\nimport './chunk-c.cjs';\nimport * as z from 'zod/mini';\nexport type A = B | z.infer<typeof z.string>;\n",
  );
  // The ESM-only entry and what only it reaches get no .d.cts.
  expect(existsSync(join(dist, 'internal.d.cts'))).toBe(false);
  expect(existsSync(join(dist, 'chunk-d.d.cts'))).toBe(false);
  // The ESM declarations stay as tsup wrote them.
  expect(readFileSync(join(dist, 'chunk-a.d.ts'), 'utf8')).toContain("from './chunk-b.js'");
});

it('stops the build when a file the entries import is missing', () => {
  const dist = distWith({ 'chunk-a.d.ts': "export { B as A } from './chunk-gone.js';\n" });
  expect(() => writeCjsDeclarations(dist)).toThrow(/chunk-gone\.d\.ts is missing/);
});
