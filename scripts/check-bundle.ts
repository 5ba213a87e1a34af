/**
 * Checks the built package: the main entry (ESM with the chunks it imports, and CJS) loads neither msw
 * nor the Redis store; the testing entry loads msw; the redis entry loads no Redis library and, in
 * CommonJS, takes the error classes from the main entry instead of carrying copies. Run after
 * `npm run build`.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** `file` and every local chunk it imports, transitively (ESM static imports). */
function withChunks(file: string, seen = new Set<string>()): Set<string> {
  seen.add(file);
  const source = readFileSync(file, 'utf8');
  for (const [, specifier] of source.matchAll(/(?:from|import)\s*["'](\.\/[^"']+)["']/g)) {
    const chunk = join(dirname(file), specifier ?? '');
    if (!seen.has(chunk)) withChunks(chunk, seen);
  }
  return seen;
}

/** Text only the Redis store has: its Lua scripts and its raw-command calls. */
const REDIS_STORE_MARKERS = ['redis.call(', 'EVALSHA', 'sendCommand'];
/** An import or require of a Redis client library. */
const REDIS_LIBRARY = /(?:from\s*|import\s*|require\()["'](?:ioredis|redis|@redis\/[^"']*)["']/;
const MSW = /["']msw(\/[^"']*)?["']/;

const failures: string[] = [];
for (const entry of ['dist/index.js', 'dist/index.cjs']) {
  const files = entry.endsWith('.js') ? [...withChunks(entry)] : [entry];
  const sources = files.map((file) => readFileSync(file, 'utf8'));
  const all = sources.join('\n');
  if (MSW.test(all)) failures.push(`${entry} references msw`);
  const markers = REDIS_STORE_MARKERS.filter((marker) => all.includes(marker));
  if (markers.length > 0) failures.push(`${entry} contains the Redis store (${markers.join(', ')})`);
  const kib = (text: string) => (text.length / 1024).toFixed(1);
  const chunks = files.length > 1 ? ` + ${files.length - 1} chunks, ${kib(sources.slice(1).join(''))} KiB` : '';
  console.log(
    `${entry}: ${kib(sources[0] ?? '')} KiB${chunks}; msw ${MSW.test(all) ? 'present' : 'absent'}, ` +
      `Redis store ${markers.length > 0 ? 'present' : 'absent'}`,
  );
}
for (const file of ['dist/testing.js', 'dist/testing.cjs']) {
  if (!/["']msw/.test(readFileSync(file, 'utf8'))) failures.push(`${file} does not load msw`);
}
for (const file of ['dist/redis.js', 'dist/redis.cjs']) {
  const source = readFileSync(file, 'utf8');
  if (!source.includes('redis.call(')) failures.push(`${file} lacks the Redis store's scripts`);
  if (REDIS_LIBRARY.test(source)) failures.push(`${file} loads a Redis client library`);
  if (MSW.test(source)) failures.push(`${file} references msw`);
}
const redisCjs = readFileSync('dist/redis.cjs', 'utf8');
if (/extends Error\b/.test(redisCjs) || !/require\(["']\.\/index\.cjs["']\)/.test(redisCjs)) {
  failures.push('dist/redis.cjs carries its own error classes instead of requiring ./index.cjs');
}
if (failures.length > 0) {
  console.error(failures.join('\n'));
  process.exit(1);
}
console.log('bundle check passed');
