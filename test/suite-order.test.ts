/** The suite's own file order in a fresh clone (test/support/longest-first.ts; vitest.config.ts). */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { LONGEST_FILES } from './support/longest-first.js';
import { ROOT } from './support/root.js';

it('every file started first in a fresh clone is a test file of the suite, named once', () => {
  for (const file of LONGEST_FILES) {
    expect(existsSync(join(ROOT, file)), file).toBe(true);
    expect(file).toMatch(/^(test|packages\/tools\/test)\/.+\.test\.ts$/);
  }
  expect(new Set(LONGEST_FILES).size).toBe(LONGEST_FILES.length);
});
