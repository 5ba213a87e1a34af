/**
 * Writes `test/support/file-durations.json` (`npm run test:durations`; CONTRIBUTING "The test suite's
 * speed"): each test file's duration, ms rounded to 100, from vitest's results cache of the last run in
 * this clone (`node_modules/.vite/vitest/<hash>/results.json`, the newest). Run it after a whole
 * `npm test` in a fresh clone: `test/support/duration-sequencer.ts` starts the longest files first where
 * the cache is empty. Exits 1 when there is no cache or it names fewer files than the suite has.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testFiles } from '../test/support/test-files.js';

interface ResultsCache {
  projects: Record<string, { files: Record<string, { duration?: number }> }>;
}

const root = fileURLToPath(new URL('..', import.meta.url));
const cacheDirectory = join(root, 'node_modules/.vite/vitest');
/** When `file` was last written, ms since the epoch; `undefined` when it is not there. */
function writtenAt(file: string): number | undefined {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}
let caches: { file: string; at: number }[] = [];
try {
  caches = readdirSync(cacheDirectory).flatMap((hash) => {
    const file = join(cacheDirectory, hash, 'results.json');
    const at = writtenAt(file);
    return at === undefined ? [] : [{ file, at }];
  });
} catch {}
const newest = caches.sort((a, b) => b.at - a.at)[0]?.file;
if (newest === undefined) {
  console.error(`test-durations: no vitest results under ${cacheDirectory}: run \`npm test\` first`);
  process.exit(1);
}
const cache = JSON.parse(readFileSync(newest, 'utf8')) as ResultsCache;
const durations: Record<string, number> = {};
for (const project of Object.values(cache.projects)) {
  for (const [file, result] of Object.entries(project.files)) {
    if (typeof result.duration === 'number') durations[file] = Math.round(result.duration / 100) * 100;
  }
}
const suite = testFiles(root);
const missing = suite.filter((file) => durations[file] === undefined);
if (missing.length > 0) {
  console.error(`test-durations: the cache has no duration for ${missing.length} files, e.g. ${missing[0]}`);
  process.exit(1);
}
const sorted = Object.fromEntries(suite.sort().map((file) => [file, durations[file] as number] as const));
writeFileSync(join(root, 'test/support/file-durations.json'), `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`test-durations: ${suite.length} files written to test/support/file-durations.json`);
