/**
 * Checks the built package as a bundler sees it (esbuild, minified, gzip -9, dependencies included):
 *
 * - every budget in package.json `bundleBudgets` (gzip bytes per import) holds; each figure is printed
 *   beside its budget;
 * - the main entry reaches neither msw nor the Redis store, whatever is imported from it;
 * - the testing entry loads msw; the redis entry loads no Redis library, the postgres entry no pg;
 * - in CommonJS, the redis and webhooks entries require the main entry instead of carrying copies of
 *   its classes;
 *
 * Run after `npm run build`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { bundleSize, importSize, kb } from '../bench/support/bundle-size.js';

const failures: string[] = [];

const budgets = (
  JSON.parse(readFileSync('package.json', 'utf8')) as { bundleBudgets?: Record<string, number> }
).bundleBudgets;
if (!budgets || Object.keys(budgets).length === 0) failures.push('package.json has no bundleBudgets');
for (const [statement, budget] of Object.entries(budgets ?? {})) {
  const { gzip, minified } = await importSize(statement);
  const verdict = gzip <= budget ? 'ok' : 'OVER BUDGET';
  console.log(
    `${statement}: ${kb(gzip)} gzip (${gzip} bytes; ${kb(minified)} min), budget ${kb(budget)} (${budget} bytes): ${verdict}`,
  );
  if (gzip > budget) failures.push(`${statement} is ${gzip} bytes gzip, over its budget of ${budget}`);
}

/** Text only the Redis store has: its Lua scripts and its raw-command calls. */
const REDIS_STORE_MARKERS = ['redis.call(', 'EVALSHA', 'sendCommand'];
/** An import or require of a Redis client library. */
const REDIS_LIBRARY = /(?:from\s*|import\s*|require\()["'](?:ioredis|redis|@redis\/[^"']*)["']/;
const MSW = /["']msw(\/[^"']*)?["']|mswjs/;

const { text: everything, gzip: everythingGzip } = await bundleSize(
  `export * from 'delivery-task-sdk';`,
).catch((error: unknown) => {
  failures.push(`the main entry does not bundle for the browser: ${String(error)}`);
  return { text: '', gzip: 0 };
});
if (MSW.test(everything)) failures.push('the main entry reaches msw');
const markers = REDIS_STORE_MARKERS.filter((marker) => everything.includes(marker));
if (markers.length > 0) failures.push(`the main entry contains the Redis store (${markers.join(', ')})`);
console.log(
  `everything from the main entry: ${kb(everythingGzip)} gzip; ` +
    `msw ${MSW.test(everything) ? 'present' : 'absent'}, Redis store ${markers.length > 0 ? 'present' : 'absent'}`,
);
const testingModules = readdirSync('dist/testing').filter((file) => file.endsWith('.js'));
if (!testingModules.some((file) => /["']msw/.test(readFileSync(`dist/testing/${file}`, 'utf8')))) {
  failures.push('dist/testing/ does not load msw');
}
if (!/["']msw/.test(readFileSync('dist/testing.cjs', 'utf8')))
  failures.push('dist/testing.cjs does not load msw');
const folderOf = (entry: string): string[] => [
  `dist/${entry}.js`,
  ...readdirSync(`dist/${entry}`).map((file) => `dist/${entry}/${file}`),
];
for (const files of [folderOf('redis'), ['dist/redis.cjs']]) {
  const file = files.length === 1 ? (files[0] as string) : 'dist/redis/';
  const source = files.map((path) => readFileSync(path, 'utf8')).join('\n');
  if (!source.includes('redis.call(')) failures.push(`${file} lacks the Redis store's scripts`);
  if (REDIS_LIBRARY.test(source)) failures.push(`${file} loads a Redis client library`);
  if (MSW.test(source)) failures.push(`${file} references msw`);
}
for (const files of [folderOf('postgres'), ['dist/postgres.cjs']]) {
  const file = files.length === 1 ? (files[0] as string) : 'dist/postgres/';
  const source = files.map((path) => readFileSync(path, 'utf8')).join('\n');
  if (/(?:from\s*|import\s*|require\()["']pg["']/.test(source)) failures.push(`${file} loads pg`);
  if (MSW.test(source)) failures.push(`${file} references msw`);
}
// The CommonJS webhooks entry carries its own copy: its errors are not all in the main entry, and
// `instanceof` holds across copies (test/package/dual-copies.test.ts).
for (const file of ['dist/redis.cjs', 'dist/postgres.cjs']) {
  const source = readFileSync(file, 'utf8');
  if (/extends Error\b/.test(source) || !/require\(["']\.\/index\.cjs["']\)/.test(source)) {
    failures.push(`${file} carries its own copies instead of requiring ./index.cjs`);
  }
}
if (failures.length > 0) {
  console.error(failures.join('\n'));
  process.exit(1);
}
console.log('bundle check passed');
