/**
 * The order `npm test` starts its files in (test/support/duration-sequencer.ts): a file that failed last
 * time, then files in neither the results cache nor file-durations.json, then the longest first, the cache
 * before the committed figure, across projects.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import DurationSequencer from '../support/duration-sequencer.js';
import { ROOT } from '../support/root.js';

const HINTS = JSON.parse(readFileSync(join(ROOT, 'test/support/file-durations.json'), 'utf8')) as Record<
  string,
  number
>;

interface Cached {
  readonly failed: boolean;
  readonly duration: number;
}

/** A sequencer over a results cache holding `cached` (by path from the root). */
function sequencer(cached: Record<string, Cached>): DurationSequencer {
  const cache = {
    getTestSpecificationResult: (spec: TestSpecification) => cached[spec.moduleId.slice(ROOT.length)],
  };
  return new DurationSequencer({ cache } as unknown as Vitest);
}

const spec = (path: string, project: string): TestSpecification =>
  ({ moduleId: join(ROOT, path), project: { name: project } }) as unknown as TestSpecification;

const order = async (ordered: Promise<TestSpecification[]>): Promise<string[]> =>
  (await ordered).map((file) => file.moduleId.slice(ROOT.length));

describe('the test files order', () => {
  it('starts the longest files first in a fresh clone, by file-durations.json, whatever their project', async () => {
    const files = [
      spec('test/kwd.test.ts', 'shared'),
      spec('test/reliability/deadlines.test.ts', 'shared'),
      spec('test/webhooks/intake-kill.test.ts', 'isolated'),
      spec('test/resources/task-creation/several-instances.test.ts', 'shared'),
    ];
    const paths = files.map((file) => file.moduleId.slice(ROOT.length));
    for (const path of paths) expect(HINTS[path], path).toBeTypeOf('number');
    const expected = [...paths].sort((a, b) => (HINTS[b] as number) - (HINTS[a] as number));
    expect(await order(sequencer({}).sort(files))).toEqual(expected);
    // The committed figures put the suite's longest file ahead of its shortest.
    expect(expected.indexOf('test/reliability/deadlines.test.ts')).toBeLessThan(
      expected.indexOf('test/kwd.test.ts'),
    );
  });

  it('prefers the last run on this machine, starts a failed file and an unknown one first', async () => {
    const files = [
      spec('test/kwd.test.ts', 'shared'),
      spec('test/reliability/deadlines.test.ts', 'shared'),
      spec('test/new-file.test.ts', 'shared'),
      spec('test/webhooks/intake-kill.test.ts', 'isolated'),
    ];
    const ordered = await order(
      sequencer({
        'test/kwd.test.ts': { failed: false, duration: 500_000 },
        'test/reliability/deadlines.test.ts': { failed: false, duration: 1 },
        'test/webhooks/intake-kill.test.ts': { failed: true, duration: 2 },
      }).sort(files),
    );
    expect(ordered.slice(0, 2).sort()).toEqual([
      'test/new-file.test.ts',
      'test/webhooks/intake-kill.test.ts',
    ]);
    expect(ordered.slice(2)).toEqual(['test/kwd.test.ts', 'test/reliability/deadlines.test.ts']);
  });
});
