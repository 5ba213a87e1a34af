/**
 * The webhook handler's processing queue: at most `concurrency` events run at once, events of one task
 * run one at a time in arrival order, at most `capacity` events wait, and the events waiting and
 * running hold at most `maxBytes` of bodies.
 * @module
 */

type Job = () => Promise<void>;

interface TaskLane {
  /** Jobs of this task waiting, in arrival order. */
  readonly jobs: Job[];
  /** A job of this task is running. */
  running: boolean;
}

/**
 * A FIFO of jobs keyed by task id, bounded by count and by bytes, run with bounded concurrency, one job
 * per task at a time.
 */
export class TaskEventQueue {
  readonly #concurrency: number;
  readonly #capacity: number;
  readonly #maxBytes: number;
  /** Tasks with a job running or waiting. */
  readonly #lanes = new Map<string, TaskLane>();
  /** Tasks with a job waiting and none running, in the order they became ready. */
  readonly #ready = new Set<string>();
  readonly #idleWaiters: (() => void)[] = [];
  #waiting = 0;
  #running = 0;
  #bytes = 0;
  #pumpScheduled = false;

  /**
   * @param concurrency jobs run at once at most.
   * @param capacity jobs waiting at most; {@link isFull} beyond.
   * @param maxBytes bytes held by the jobs waiting and running at most; see {@link hasRoomFor}.
   */
  constructor(concurrency: number, capacity: number, maxBytes = Number.POSITIVE_INFINITY) {
    this.#concurrency = concurrency;
    this.#capacity = capacity;
    this.#maxBytes = maxBytes;
  }

  /** Jobs waiting to start. */
  get waiting(): number {
    return this.#waiting;
  }

  /** Jobs running. */
  get running(): number {
    return this.#running;
  }

  /** Bytes held by the jobs waiting and running (given back as each job finishes). */
  get bytes(): number {
    return this.#bytes;
  }

  /** True when no more jobs may wait. */
  isFull(): boolean {
    return this.#waiting >= this.#capacity;
  }

  /** True when a job holding `bytes` more stays within `maxBytes`. */
  hasRoomFor(bytes: number): boolean {
    return this.#bytes + bytes <= this.#maxBytes;
  }

  /**
   * Queues a job that holds `bytes` until it finishes. It starts on a later turn of the event loop (never
   * inside this call, so an answer written right after is sent first). Check {@link isFull} and
   * {@link hasRoomFor} before.
   * @returns a promise that resolves when the job has finished; it never rejects (a job's own failure is
   * its to report).
   */
  push(taskId: string, job: Job, bytes = 0): Promise<void> {
    this.#bytes += bytes;
    return new Promise<void>((resolve) => {
      const run: Job = async () => {
        try {
          await job();
        } catch {
          // Jobs report their own failures; the queue only has to keep going.
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

  /** Resolves once no job is waiting or running. */
  idle(): Promise<void> {
    if (this.#waiting === 0 && this.#running === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #schedulePump(): void {
    if (this.#pumpScheduled) return;
    this.#pumpScheduled = true;
    // A timer (available in every runtime) rather than a microtask: the answer goes out first.
    setTimeout(() => {
      this.#pumpScheduled = false;
      this.#pump();
    }, 0);
  }

  #pump(): void {
    while (this.#running < this.#concurrency) {
      const taskId = this.#ready.values().next().value;
      if (taskId === undefined) break;
      this.#ready.delete(taskId);
      const lane = this.#lanes.get(taskId);
      const job = lane?.jobs.shift();
      if (lane === undefined || job === undefined) continue;
      lane.running = true;
      this.#waiting--;
      this.#running++;
      void job().then(() => this.#finish(taskId, lane));
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
