import { execFile } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { anySignal, DeadlineReason, deadline } from '../../src/internal/abort.js';

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
    const { stdout } = await run(process.execPath, [TSX, 'test/support/no-abort-signal-any.ts'], {
      cwd: ROOT,
    });
    expect(JSON.parse(stdout)).toEqual({
      any: 'undefined',
      answered: { value: { walletAmount: 7 } },
      aborted: { error: 'APIUserAbortError' },
      timedOut: { error: 'APIConnectionTimeoutError' },
    });
  }, 30_000);
});

describe('deadline following an outer signal', () => {
  afterEach(() => vi.useRealTimers());

  it('aborts with a DeadlineReason at its time when the outer signal stays quiet', () => {
    vi.useFakeTimers();
    const outer = new AbortController();
    const limit = deadline(100, 'attempt', outer.signal);
    vi.advanceTimersByTime(99);
    expect(limit.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(limit.signal.reason).toBeInstanceOf(DeadlineReason);
    expect((limit.signal.reason as DeadlineReason).kind).toBe('attempt');
    limit.clear();
  });

  it('aborts at once with the outer reason when the outer signal aborts first, and its timer no longer fires', () => {
    vi.useFakeTimers();
    const outer = new AbortController();
    const limit = deadline(100, 'total', outer.signal);
    outer.abort(new Error('caller stopped'));
    expect((limit.signal.reason as Error).message).toBe('caller stopped');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('is aborted from the start when the outer signal already is', () => {
    const limit = deadline(100, 'attempt', AbortSignal.abort('early'));
    expect([limit.signal.aborted, limit.signal.reason]).toEqual([true, 'early']);
    limit.clear();
  });

  it('leaves nothing on a long-lived outer signal once cleared', () => {
    const outer = new AbortController();
    for (let index = 0; index < 1000; index++) deadline(1000, 'attempt', outer.signal).clear();
    expect(getEventListeners(outer.signal, 'abort')).toHaveLength(0);
    const open = deadline(1000, 'attempt', outer.signal);
    expect(getEventListeners(outer.signal, 'abort')).toHaveLength(1);
    open.clear();
  });
});
