/**
 * Where the test files of both packages and the example shop are, read by `vitest.config.ts` and
 * `scripts/test-durations.ts`.
 * @module
 */
import { readdirSync } from 'node:fs';
import { join, sep } from 'node:path';

/** The folders holding `*.test.ts` files, from the repository root. */
export const TEST_DIRECTORIES = ['test', 'packages/tools/test', 'examples/shop/test'] as const;

/** Every test file under `root`'s {@link TEST_DIRECTORIES}, as paths from `root` joined with `/`. */
export function testFiles(root: string): string[] {
  return TEST_DIRECTORIES.flatMap((directory) =>
    readdirSync(join(root, directory), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.test.ts'))
      .map((file) => `${directory}/${file.split(sep).join('/')}`),
  );
}
