/**
 * The webhook handler's processing queue: `concurrency` events at once, one task's events one at a time
 * in arrival order, at most `capacity` waiting and `maxBytes` of bodies held. An event whose `onEvent`
 * returned leaves its slot while it records its status ({@link SlotRelease}); started and not ended, slot
 * left or not: at most 2 × `concurrency`.
 * @module
 */

/**
 * Frees the job's slot for the next event before the job ends (its task's next event still waits for the
 * end). Called again, or never, it does nothing: the slot is freed when the job ends.
 */
export type SlotRelease = () => void;

type Job = (leaveSlot: SlotRelease) => Promise<unknown>;

/**
 * A later turn of the event loop: `setImmediate` where there is one (no 1 ms timer clamp), else `setTimeout`.
 */
const nextTurn: (run: () => void) => void =
  typeof globalThis.setImmediate === 'function'
    ? (run) => globalThis.setImmediate(run)
    : (run) => setTimeout(run, 0);

interface TaskLane {
  readonly jobs: Job[];
  running: boolean;
}

export class TaskEventQueue {
  readonly #concurrency: number;
  readonly #capacity: number;
  readonly #maxBytes: number;
  readonly #lanes = new Map<string, TaskLane>();
  /** Tasks with a job waiting and none running, in the order they became ready. */
  readonly #ready = new Set<string>();
  readonly #idleWaiters: (() => void)[] = [];
  #waiting = 0;
  /** Jobs started and not ended, slots left or not: at most 2 × `concurrency`. */
  #running = 0;
  /** Jobs that hold a slot: at most `concurrency`. */
  #inSlots = 0;
  #bytes = 0;
  #pumpScheduled = false;

  constructor(concurrency: number, capacity: number, maxBytes = Number.POSITIVE_INFINITY) {
    this.#concurrency = concurrency;
    this.#capacity = capacity;
    this.#maxBytes = maxBytes;
  }

  get waiting(): number {
    return this.#waiting;
  }

  get running(): number {
    return this.#running;
  }

  get bytes(): number {
    return this.#bytes;
  }

  isFull(): boolean {
    return this.#waiting >= this.#capacity;
  }

  hasRoomFor(bytes: number): boolean {
    return this.#bytes + bytes <= this.#maxBytes;
  }

  /**
   * Queues a job holding `bytes` until it ends; it starts on a later turn, after the answer. Resolves when it
   * ends; never rejects.
   */
  push(taskId: string, job: Job, bytes = 0): Promise<void> {
    this.#bytes += bytes;
    return new Promise<void>((resolve) => {
      const run: Job = async (leaveSlot) => {
        try {
          await job(leaveSlot);
        } catch {
        } finally {
          this.#bytes -= bytes;
          resolve();
        }
      };
      let lane = this.#lanes.get(taskId);
      if (lane === undefined) {
        lane = { jobs: [], running: false };
        this.#lanes.set(taskId, lane);
      }
      lane.jobs.push(run);
      this.#waiting++;
      if (!lane.running) this.#ready.add(taskId);
      this.#schedulePump();
    });
  }

  idle(): Promise<void> {
    if (this.#waiting === 0 && this.#running === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #schedulePump(): void {
    if (this.#pumpScheduled) return;
    this.#pumpScheduled = true;
    nextTurn(() => {
      this.#pumpScheduled = false;
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#inSlots < this.#concurrency && this.#running < 2 * this.#concurrency) {
      const taskId = this.#ready.values().next().value;
      if (taskId === undefined) break;
      this.#ready.delete(taskId);
      const lane = this.#lanes.get(taskId);
      const job = lane?.jobs.shift();
      if (lane === undefined || job === undefined) continue;
      lane.running = true;
      this.#waiting--;
      this.#running++;
      this.#inSlots++;
      let inSlot = true;
      const leaveSlot = () => {
        if (!inSlot) return;
        inSlot = false;
        this.#inSlots--;
        this.#pump();
      };
      void job(leaveSlot).then(() => {
        leaveSlot();
        this.#finish(taskId, lane);
      });
    }
  }

  #finish(taskId: string, lane: TaskLane): void {
    this.#running--;
    lane.running = false;
    if (lane.jobs.length > 0) this.#ready.add(taskId);
    else this.#lanes.delete(taskId);
    this.#pump();
    if (this.#waiting === 0 && this.#running === 0) {
      for (const resolve of this.#idleWaiters.splice(0)) resolve();
    }
  }
}
