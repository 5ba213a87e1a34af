/**
 * The handler's queue over generated job mixes (fast-check): jobs of a few tasks that take a place or not
 * (a drop), leave it early or not, pause before, inside and after it. Whatever the mix: one task's jobs run
 * one at a time in arrival order, at most `concurrency` jobs hold a place, 2 × `concurrency` are started
 * without one and 4 × `concurrency` are started and not ended, places go in the order asked, and every job
 * ends.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { type EventSlot, TaskEventQueue } from '../../src/webhooks/queue.js';

interface Job {
  readonly task: number;
  /** Takes a place (else ends without one, as a dropped event does). */
  readonly enters: boolean;
  /** Leaves its place before it ends (as an event recording its status does). */
  readonly leavesEarly: boolean;
  /** Turns of the event loop before the place, in it, and after leaving it. */
  readonly before: number;
  readonly inside: number;
  readonly after: number;
}

const job: fc.Arbitrary<Job> = fc.record({
  task: fc.nat(4),
  enters: fc.boolean(),
  leavesEarly: fc.boolean(),
  before: fc.nat(3),
  inside: fc.nat(3),
  after: fc.nat(3),
});

const turns = async (count: number): Promise<void> => {
  for (let turn = 0; turn < count; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
};

it('keeps each task in order, the places and starts within their bounds, places in the order asked, over generated jobs', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 3 }),
      fc.array(job, { minLength: 1, maxLength: 30 }),
      async (concurrency, jobs) => {
        const queue = new TaskEventQueue(concurrency, 1000);
        const runningByTask = new Map<number, number>();
        const order: string[] = [];
        const asked: number[] = [];
        const granted: number[] = [];
        let inPlace = 0;
        const peaks = { inPlace: 0, ahead: 0, started: 0 };
        // The queue's own counts of jobs ahead of a place and started, read at every step of every job.
        const note = () => {
          peaks.inPlace = Math.max(peaks.inPlace, inPlace);
          peaks.ahead = Math.max(peaks.ahead, queue.ahead);
          peaks.started = Math.max(peaks.started, queue.running);
        };
        const ended: Promise<void>[] = [];
        for (const [index, spec] of jobs.entries()) {
          ended.push(
            queue.push(`task-${spec.task}`, async (slot: EventSlot) => {
              note();
              runningByTask.set(spec.task, (runningByTask.get(spec.task) ?? 0) + 1);
              expect(runningByTask.get(spec.task)).toBe(1);
              order.push(`${spec.task}:${index}`);
              await turns(spec.before);
              note();
              if (spec.enters) {
                asked.push(index);
                await slot.enter();
                granted.push(index);
                inPlace++;
                note();
                await turns(spec.inside);
                inPlace--;
                if (spec.leavesEarly) {
                  slot.leave();
                  note();
                  await turns(spec.after);
                }
              }
              runningByTask.set(spec.task, (runningByTask.get(spec.task) ?? 1) - 1);
            }),
          );
        }
        await Promise.all(ended);
        await queue.idle();
        // One task's jobs in arrival order.
        for (let task = 0; task <= 4; task++) {
          const ran = order
            .filter((line) => line.startsWith(`${task}:`))
            .map((line) => Number(line.split(':')[1]));
          expect(ran).toEqual([...ran].sort((a, b) => a - b));
        }
        expect(order).toHaveLength(jobs.length);
        expect(peaks.inPlace).toBeLessThanOrEqual(concurrency);
        expect(peaks.ahead).toBeLessThanOrEqual(2 * concurrency);
        expect(peaks.started).toBeLessThanOrEqual(4 * concurrency);
        expect(granted).toEqual(asked);
        expect([queue.running, queue.waiting, queue.ahead]).toEqual([0, 0, 0]);
      },
    ),
    { numRuns: 300 },
  );
});
