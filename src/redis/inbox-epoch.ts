/**
 * The inbox's epoch and consumer group: made at start, and a reset of its Redis seen while running
 * (docs/several-instances.md "Redis settings"). The epoch hash `<stream>:epoch` holds a random `id`,
 * written once, and `written`, the appends counted since. A reset is a lost consumer group (`NOGROUP`),
 * an epoch that is gone or has another id, or fewer appends than this process saw: a restart empty or
 * from an older snapshot, a flush. Each is reported once per process, then the epoch and group are made
 * again.
 * @module
 */
import { asArray, numberReply, type RedisWarningLogger, type SendCommand, scalarText } from './commands.js';
import { runScript, TAKE_EPOCH } from './scripts.js';

/** What this process knew when it sent a command: a reply read against a later state is not a reset. */
export interface EpochMark {
  readonly generation: number;
  /** The highest `written` seen before the command: a reply below it tells appends were lost. */
  readonly floor: number;
}

/** A stream's consumer group or key is gone: `NOGROUP`, or `XINFO` on a missing stream. */
function isLostGroup(error: unknown): boolean {
  return error instanceof Error && /NOGROUP|no such key/i.test(error.message);
}

export class InboxEpoch {
  readonly #send: SendCommand;
  readonly #stream: string;
  readonly #group: string;
  readonly #logger: RedisWarningLogger;
  readonly #listeners = new Set<(reset: { readonly reason: string }) => void>();
  /** `<stream>:epoch`: on a cluster, in the stream's slot (the stream has a hash tag). */
  readonly key: string;
  #id: string | undefined;
  #floor = 0;
  /** Moves on when a reset is seen and again when it is repaired. */
  #generation = 0;
  #repaired = false;
  #repairing: Promise<void> | undefined;

  constructor(send: SendCommand, stream: string, group: string, logger: RedisWarningLogger) {
    this.#send = send;
    this.#stream = stream;
    this.#group = group;
    this.#logger = logger;
    this.key = `${stream}:epoch`;
  }

  /** The epoch id this process works in ('' before {@link start}). */
  get id(): string {
    return this.#id ?? '';
  }

  mark(): EpochMark {
    return { generation: this.#generation, floor: this.#floor };
  }

  /** Takes the epoch (made unless it exists) and makes the group unless it exists; nothing is reported. */
  start(): Promise<void> {
    return this.#repair();
  }

  /**
   * Adds a listener; without any, a reset is logged here (`logger.error`, else `warn`). Returns its removal.
   */
  onReset(listener: (reset: { readonly reason: string }) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Runs `command`; when its group or stream is gone, reports the reset, repairs and runs it once more. */
  async guarded<T>(command: (mark: EpochMark) => Promise<T>): Promise<T> {
    const mark = this.mark();
    try {
      return await command(mark);
    } catch (error) {
      if (!isLostGroup(error)) throw error;
      await this.#lost(mark, 'lost its consumer group (NOGROUP)');
      return command(this.mark());
    }
  }

  /**
   * Reads the epoch a command's reply carried (`id`, `written`) against `mark`: resolves `true` once a
   * reset it tells is reported and repaired, `false` when it tells none.
   */
  async observe(mark: EpochMark, id: unknown, written: unknown): Promise<boolean> {
    if (mark.generation !== this.#generation) return false;
    const seen = scalarText(id);
    const count = written === null || written === undefined ? undefined : numberReply(written);
    let reason: string;
    if (seen === undefined) reason = `lost its epoch key ${this.key}`;
    else if (seen !== this.#id) reason = `has its epoch key ${this.key} made again (by another process)`;
    else if (count !== undefined && count < mark.floor) {
      reason = `counts ${count} webhooks written where this process saw ${mark.floor}: it came back from an older snapshot`;
    } else {
      if (count !== undefined && count > this.#floor) this.#floor = count;
      return false;
    }
    await this.#lost(mark, reason);
    return true;
  }

  /**
   * Reports a reset unless one was reported since `mark` and not yet repaired; then repairs (one run at a
   * time).
   */
  #lost(mark: EpochMark, reason: string): Promise<void> {
    if (mark.generation === this.#generation && this.#repaired) {
      this.#generation++;
      this.#repaired = false;
      this.#report(`the Redis of stream ${this.#stream} ${reason}`);
    }
    this.#repairing ??= this.#repair().finally(() => {
      this.#repairing = undefined;
    });
    return this.#repairing;
  }

  #report(reason: string): void {
    if (this.#listeners.size === 0) {
      const log = this.#logger.error ?? this.#logger.warn;
      log.call(
        this.#logger,
        `redisInbox reset: ${reason}; the webhooks it held, answered 200 already, are lost: handler.sync() passes on each task's latest status`,
      );
    }
    for (const listener of this.#listeners) {
      try {
        listener({ reason });
      } catch (error) {
        this.#logger.warn(
          `redisInbox: an onReset listener threw (${(error as Error)?.message ?? String(error)})`,
        );
      }
    }
  }

  async #repair(): Promise<void> {
    const newId = `${Date.now()}-${globalThis.crypto.randomUUID()}`;
    const [id, written] = asArray(await runScript(this.#send, TAKE_EPOCH, this.key, [newId]));
    try {
      await this.#send(this.#stream, 'XGROUP', 'CREATE', this.#stream, this.#group, '0', 'MKSTREAM');
    } catch (error) {
      if (!(error instanceof Error && error.message.includes('BUSYGROUP'))) throw error;
    }
    this.#id = scalarText(id);
    this.#floor = numberReply(written ?? 0);
    this.#generation++;
    this.#repaired = true;
  }
}
