/**
 * The suite's file order where vitest has no durations yet (a fresh clone): the files that take longest
 * start first, so none of them starts last and holds the run up alone. With durations, vitest's own
 * order (longest first) stands.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The files that take longest (about 15–75 s each on 2 cores, servers and processes included), longest first. */
export const LONGEST_FILES: readonly string[] = [
  'packages/tools/test/sandbox/dashboard/dashboard.test.ts',
  'test/resources/task-creation/several-instances.test.ts',
  'test/reliability/deadlines.test.ts',
  'test/resources/task-list/pagination-concurrency.test.ts',
  'test/webhooks/intake-kill.test.ts',
  'packages/tools/test/sandbox/sandbox-cli.test.ts',
  'packages/tools/test/cli/process.test.ts',
  'test/webhooks/intake-faults.test.ts',
  'packages/tools/test/mcp/stdio.test.ts',
  'packages/tools/test/packages.test.ts',
  'test/webhooks/intake-faults-postgres.test.ts',
  'test/reliability/hostile-input.test.ts',
  'packages/tools/test/sandbox/hostile.test.ts',
  'test/testing/listen-guard.test.ts',
];

/** vitest's order, with {@link LONGEST_FILES} moved to the front while any file has no recorded duration. */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    if (sorted.every((file) => this.ctx.cache.getTestSpecificationResult(file) !== undefined)) return sorted;
    const rank = (file: TestSpecification): number => {
      const index = LONGEST_FILES.indexOf(relative(this.ctx.config.root, file.moduleId).replaceAll('\\', '/'));
      return index === -1 ? LONGEST_FILES.length : index;
    };
    return sorted
      .map((file, order) => ({ file, order, rank: rank(file) }))
      .sort((a, b) => a.rank - b.rank || a.order - b.order)
      .map(({ file }) => file);
  }
}
