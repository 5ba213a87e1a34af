/**
 * How long this process's event loop could not run, measured beside a timing assertion: what a test
 * adds to its slack on a machine whose cores are busy (`npm run test:stress`).
 */

/** The meter's tick, ms. */
const TICK_MS = 10;
/** A tick's lateness ignored, ms: timer jitter on an idle machine stays under it. */
const JITTER_MS = 3;

/**
 * Measures how long the event loop could not run timers from now on: each 10 ms tick's lateness beyond
 * {@link JITTER_MS}, summed. A process starved of CPU by the other test files stalls the loop, often in
 * slices shorter than a tick (a 2-tick threshold left one call 0.2 s past its slack, both cores busy);
 * a wait of the SDK past its deadline does not (the loop idles through it), so the stall can be added
 * to the slack without hiding one. The returned function stops the meter and gives the stall, ms.
 */
export function loopStallMeter(): () => number {
  let last = performance.now();
  let stalled = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stalled += Math.max(0, now - last - TICK_MS - JITTER_MS);
    last = now;
  }, TICK_MS);
  return () => {
    clearInterval(timer);
    return stalled;
  };
}
