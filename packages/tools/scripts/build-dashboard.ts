/**
 * Builds the sandbox dashboard into `dist/dashboard/` (docs/sandbox.md, "Dashboard"): the page
 * script `src/sandbox/dashboard/page.ts` bundled and minified by esbuild into `dashboard.js` (for
 * browsers of 2023 on: ES2022), the style minified into `dashboard.css`, and `index.html` copied. Prints
 * each file's size and the page's weight gzipped. Run by `npm run build` after tsup.
 */
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const source = join(root, 'src/sandbox/dashboard');
const target = join(root, 'dist/dashboard');

mkdirSync(target, { recursive: true });
await build({
  entryPoints: [join(source, 'page.ts')],
  outfile: join(target, 'dashboard.js'),
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2022',
  platform: 'browser',
  legalComments: 'none',
  logLevel: 'warning',
});
await build({
  entryPoints: [join(source, 'dashboard.css')],
  outfile: join(target, 'dashboard.css'),
  minify: true,
  logLevel: 'warning',
});
copyFileSync(join(source, 'index.html'), join(target, 'index.html'));

let total = 0;
let gzipped = 0;
for (const file of ['index.html', 'dashboard.js', 'dashboard.css']) {
  const bytes = readFileSync(join(target, file));
  const packed = gzipSync(bytes, { level: 9 }).length;
  total += bytes.length;
  gzipped += packed;
  console.log(`dashboard: ${file} ${bytes.length} bytes (${packed} gzipped)`);
}
console.log(`dashboard: wrote ${target}/, ${total} bytes, ${gzipped} bytes gzipped`);
