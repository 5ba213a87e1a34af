/**
 * The machine's zone for one test file. Node applies `TZ` to the whole process, every worker thread
 * included, so such a file runs in a process of its own (the `zoned` project of vitest.config.ts).
 */
import { isMainThread } from 'node:worker_threads';
import { afterAll } from 'vitest';

/**
 * Sets `TZ` to `zone` until the file's end (call it before any time is read, or in `beforeAll`).
 * @throws {Error} in a worker thread: the zone would change for the files running beside it.
 */
export function useMachineZone(zone: string): void {
  if (!isMainThread) {
    throw new Error(
      'TZ applies to the whole process: list this file in vitest.config.ts ZONED (a forks project)',
    );
  }
  const previous = process.env.TZ;
  process.env.TZ = zone;
  afterAll(() => {
    if (previous === undefined) delete process.env.TZ;
    else process.env.TZ = previous;
  });
}
