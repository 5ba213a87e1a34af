/**
 * Every store of the sandbox holds at most its bound (docs/sandbox.md, "Bounds"), measured in the
 * sandbox's own process after garbage collection: the floods of `bench/sandbox-memory.ts` (the request log
 * from another origin and authenticated, the webhook delivery log), each against its 8 MiB bound.
 */
import { describe, expect, it } from 'vitest';
import { formatFigures, measureSandboxMemory, STORE_BOUND_MIB } from '../../bench/sandbox-memory.js';

describe('the sandbox under floods, its heap after garbage collection', () => {
  // About 40 s on 2 loaded cores: 3,000 requests and 1,000 webhook POSTs through a second process.
  it(`grows at most ${STORE_BOUND_MIB} MiB for each store`, { timeout: 300_000 }, async () => {
    const figures = await measureSandboxMemory();
    const report = formatFigures(figures).join('\n');
    expect(figures, report).toHaveLength(3);
    for (const figure of figures) {
      expect(figure.grownMiB, `${figure.store}\n${report}`).toBeLessThanOrEqual(STORE_BOUND_MIB);
    }
  });
});
