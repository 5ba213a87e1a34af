/**
 * The webhook handler's processing queue: `concurrency` events in `onEvent` at once, one task's events one
 * at a time in arrival order, at most `capacity` waiting and `maxBytes` of bodies held. A started event
 * is filtered (its task's lease taken, its record read) and confirmed before it enters a slot, and leaves
 * the slot once `onEvent` returned, while it records its status ({@link EventSlot}): at most
 * 2 × `concurrency` events started and not in a slot yet, 4 × `concurrency` started and not ended.
 * @module
 */

/**
 * A started event's place among the `concurrency` running `onEvent`: `enter` resolves once it holds one
 * (first come, first served; called again, at once), `leave` frees it for the next event before the job
 * ends (its task's next event still waits for the end). Never entered, or never left, it is freed when the
 * job ends.
 */
export interface EventSlot {
  enter(): Promise<void>;
  leave(): void;
}

type Job = (slot: EventSlot) => Promise<unknown>;

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
  /** Started jobs waiting for a slot, first come first served. */
  readonly #slotWaiters: (() => void)[] = [];
  #waiting = 0;
  /** Jobs started and not ended, in a slot or not: at most 4 × `concurrency`. */
  #running = 0;
  /** Jobs started that have not entered a slot: at most 2 × `concurrency`. */
  #before = 0;
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

  /** Jobs started that have not entered a slot. */
  get ahead(): number {
    return this.#before;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** `capacity` events wait for a slot: queued, or started and not in a slot yet. */
  isFull(): boolean {
    return this.#waiting + this.#before >= this.#capacity;
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
      const run: Job = async (slot) => {
        try {
          await job(slot);
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
    while (this.#before < 2 * this.#concurrency && this.#running < 4 * this.#concurrency) {
      const taskId = this.#ready.values().next().value;
      if (taskId === undefined) break;
      this.#ready.delete(taskId);
      const lane = this.#lanes.get(taskId);
      const job = lane?.jobs.shift();
      if (lane === undefined || job === undefined) continue;
      lane.running = true;
      this.#waiting--;
      this.#running++;
      this.#before++;
      // 0: no slot yet; 1: in a slot; 2: left it.
      let stage = 0;
      let entered: Promise<void> | undefined;
      let grant: (() => void) | undefined;
      const slot: EventSlot = {
        enter: () => {
          entered ??= new Promise<void>((resolve) => {
            grant = () => {
              stage = 1;
              resolve();
            };
            this.#slotWaiters.push(grant);
            this.#grantSlots();
          });
          return entered;
        },
        leave: () => {
          if (stage !== 1) return;
          stage = 2;
          this.#inSlots--;
          this.#grantSlots();
          this.#pump();
        },
      };
      void job(slot).then(() => {
        if (stage === 0) {
          // Ended without a slot (dropped), or while waiting for one.
          const waiting = grant === undefined ? -1 : this.#slotWaiters.indexOf(grant);
          if (waiting >= 0) this.#slotWaiters.splice(waiting, 1);
          this.#before--;
        } else slot.leave();
        this.#finish(taskId, lane);
      });
    }
  }

  /** Gives free slots to the jobs waiting for one, in order; each makes room for another job to start. */
  #grantSlots(): void {
    while (this.#inSlots < this.#concurrency) {
      const grant = this.#slotWaiters.shift();
      if (grant === undefined) return;
      this.#inSlots++;
      this.#before--;
      grant();
      this.#schedulePump();
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
