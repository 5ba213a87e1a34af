import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { anySignal } from '../../src/internal/abort.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = createRequire(import.meta.url).resolve('tsx/cli');

/** Runs `body` in a runtime without `AbortSignal.any` (edge-runtime 4 has none). */
function withoutAbortSignalAny(): void {
  const original = Object.getOwnPropertyDescriptor(AbortSignal, 'any');
  Object.defineProperty(AbortSignal, 'any', { value: undefined, configurable: true });
  restore = () => {
    if (original) Object.defineProperty(AbortSignal, 'any', original);
  };
}
let restore: () => void = () => {};

describe('anySignal where AbortSignal.any is missing', () => {
  afterEach(() => restore());

  it('aborts with the reason of the first input to abort, and stops listening to the others', () => {
    withoutAbortSignalAny();
    expect(typeof AbortSignal.any).toBe('undefined');
    const first = new AbortController();
    const second = new AbortController();
    const combined = anySignal([first.signal, second.signal]);
    expect(combined.aborted).toBe(false);
    second.abort(new Error('second'));
    expect(combined.aborted).toBe(true);
    expect((combined.reason as Error).message).toBe('second');
    first.abort(new Error('first'));
    expect((combined.reason as Error).message).toBe('second');
  });

  it('is aborted at once when an input already is', () => {
    withoutAbortSignalAny();
    const combined = anySignal([new AbortController().signal, AbortSignal.abort('done')]);
    expect([combined.aborted, combined.reason]).toEqual([true, 'done']);
  });

  it('lets the whole client run calls with a caller signal, a total deadline and per-attempt deadlines', async () => {
    // In a process of its own: ky decides at load whether AbortSignal.any exists.
    const { stdout } = await run(process.execPath, [TSX, 'test/support/no-abort-signal-any.ts'], { cwd: ROOT });
    expect(JSON.parse(stdout)).toEqual({
      any: 'undefined',
      answered: { value: { walletAmount: 7 } },
      aborted: { error: 'APIUserAbortError' },
      timedOut: { error: 'APIConnectionTimeoutError' },
    });
  }, 30_000);
});
