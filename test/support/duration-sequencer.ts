/**
 * The order `npm test` starts its files in: longest first, across both projects, so no long file starts
 * late and ends the run alone. A file's length is its duration in vitest's results cache (the last run on
 * this machine), else its figure in `file-durations.json` (a fresh clone has no cache), else unknown: an
 * unknown file starts first (a new file could be long). A file that failed last time starts before all.
 * `npm run test:durations` writes `file-durations.json` again from the cache of a whole run.
 * @module
 */
import { readFileSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Each test file's duration, ms, by its path from the repository root. */
const HINTS = JSON.parse(readFileSync(new URL('./file-durations.json', import.meta.url), 'utf8')) as Record<
  string,
  number
>;

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export default class DurationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = this.ctx.cache;
    const known = new Map(
      files.map((spec) => {
        const result = cache.getTestSpecificationResult(spec);
        const hint = HINTS[relative(ROOT, spec.moduleId).split(sep).join('/')];
        return [spec, { failed: result?.failed ?? false, durationMs: result?.duration ?? hint }] as const;
      }),
    );
    const rank = (spec: TestSpecification): number => {
      const file = known.get(spec);
      if (file === undefined || file.failed) return Number.POSITIVE_INFINITY;
      return file.durationMs ?? Number.MAX_VALUE;
    };
    return [...files].sort((a, b) => rank(b) - rank(a));
  }
}
