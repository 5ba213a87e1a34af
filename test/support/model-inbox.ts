/**
 * A durable inbox in memory for the intake's model test (CONTRIBUTING.md "Model tests"): the
 * `WebhookInbox` contract of docs/several-instances.md "Durable intake" (as `redisInbox` keeps it), on
 * the world's virtual clock and behind the world's store faults, so that many worlds run in little time.
 * `test/model/intake.test.ts` holds it to the inbox contract suite the real inboxes pass.
 */
import type { InboxAppend, InboxEntry, InboxInspection, WebhookInbox } from '../../src/webhooks/inbox.js';
import type { ProcessGate } from './model-processes.js';

interface Stored {
  readonly id: string;
  readonly taskId: string;
  readonly kind: string;
  readonly body: string;
  readonly receivedAt: number;
  state: 'pending' | 'done' | 'failed';
  /** Claimed until (ms since the epoch), 0 when not claimed. */
  claimedUntil: number;
  attempts: number;
  error?: string;
}

/** Options, as `redisInbox` names them. */
export interface MemoryInboxOptions {
  visibilityTimeoutMs?: number;
  maxEntries?: number;
  maxAttempts?: number;
  retentionMs?: number;
}

/** Where the inbox's calls go through: the world's faulty backend (its stalls, failures, restarts). */
export type InboxBackend = <T>(work: () => Promise<T>) => Promise<T>;

export class MemoryInbox implements WebhookInbox {
  readonly visibilityTimeoutMs: number;
  readonly #maxEntries: number;
  readonly #maxAttempts: number;
  readonly #retentionMs: number;
  readonly #entries: Stored[] = [];
  readonly #backend: InboxBackend;
  #seq = 0;

  constructor(options: MemoryInboxOptions = {}, backend: InboxBackend = (work) => work()) {
    this.visibilityTimeoutMs = options.visibilityTimeoutMs ?? 60_000;
    this.#maxEntries = options.maxEntries ?? 1_000_000;
    this.#maxAttempts = options.maxAttempts ?? 5;
    this.#retentionMs = options.retentionMs ?? 900_000;
    this.#backend = backend;
  }

  append = (entry: InboxAppend): Promise<void> =>
    this.#backend(async () => {
      if (this.#entries.filter((stored) => stored.state !== 'done').length >= this.#maxEntries) {
        throw new Error(`the inbox holds ${this.#maxEntries} entries (maxEntries)`);
      }
      this.#seq++;
      this.#entries.push({ ...entry, id: String(this.#seq), state: 'pending', claimedUntil: 0, attempts: 0 });
    });

  /**
   * Per task, in arrival order, its oldest event not done, none while that one is claimed by a live
   * claim; an expired claim is claimed again, or fails past `maxAttempts`. One event per task a claim.
   */
  claim = (_consumer: string, max: number): Promise<InboxEntry[]> => {
    return this.#backend(async () => {
      const now = Date.now();
      const claimed: InboxEntry[] = [];
      const blocked = new Set<string>();
      for (const entry of this.#entries) {
        if (claimed.length >= max) break;
        if (entry.state !== 'pending' || blocked.has(entry.taskId)) continue;
        if (entry.claimedUntil > now) {
          blocked.add(entry.taskId);
          continue;
        }
        if (entry.claimedUntil > 0 && entry.attempts >= this.#maxAttempts) {
          entry.state = 'failed';
          entry.error = `claimed ${this.#maxAttempts} times without being marked done (a worker died each time)`;
          continue;
        }
        entry.attempts++;
        entry.claimedUntil = now + this.visibilityTimeoutMs;
        blocked.add(entry.taskId);
        claimed.push({
          id: entry.id,
          body: entry.body,
          receivedAt: entry.receivedAt,
          attempts: entry.attempts,
        });
      }
      return claimed;
    });
  };

  complete = (id: string): Promise<void> =>
    this.#mark(id, (entry) => {
      entry.state = 'done';
    });

  fail = (id: string, error: string): Promise<void> =>
    this.#mark(id, (entry) => {
      entry.state = 'failed';
      entry.error = error;
    });

  release = (id: string): Promise<void> =>
    this.#mark(id, (entry) => {
      entry.claimedUntil = 0;
      entry.attempts = Math.max(0, entry.attempts - 1);
    });

  #mark(id: string, change: (entry: Stored) => void): Promise<void> {
    return this.#backend(async () => {
      const entry = this.#entries.find((stored) => stored.id === id);
      if (entry?.state === 'pending') change(entry);
    });
  }

  inspect = (options: { limit?: number } = {}): Promise<InboxInspection> =>
    this.#backend(async () => {
      const pending = this.#entries.filter((entry) => entry.state === 'pending');
      const failed = this.#entries.filter((entry) => entry.state === 'failed');
      return {
        pending: pending.length,
        failed: failed.length,
        events: [...pending, ...failed].slice(0, options.limit ?? 100).map((entry) => ({
          id: entry.id,
          taskId: entry.taskId,
          kind: entry.kind,
          receivedAt: entry.receivedAt,
          state: entry.state === 'failed' ? ('failed' as const) : ('pending' as const),
          attempts: entry.attempts,
          ...(entry.error === undefined ? {} : { error: entry.error }),
        })),
      };
    });

  replay = (ids?: readonly string[]): Promise<number> =>
    this.#backend(async () => {
      let count = 0;
      for (const entry of this.#entries) {
        if (entry.state !== 'failed' || (ids !== undefined && !ids.includes(entry.id))) continue;
        entry.state = 'pending';
        entry.claimedUntil = 0;
        entry.attempts = 0;
        delete entry.error;
        count++;
      }
      return count;
    });

  maintain = (): Promise<void> =>
    this.#backend(async () => {
      const before = Date.now() - this.#retentionMs;
      for (let index = this.#entries.length - 1; index >= 0; index--) {
        const entry = this.#entries[index];
        if (entry?.state === 'done' && entry.receivedAt < before) this.#entries.splice(index, 1);
      }
    });

  /** Every event stored and not done, for a world's checks (outside any fault). */
  get open(): readonly { taskId: string; kind: string; state: 'pending' | 'failed' }[] {
    return this.#entries.flatMap((entry) =>
      entry.state === 'done' ? [] : [{ taskId: entry.taskId, kind: entry.kind, state: entry.state }],
    );
  }
}

/** `inbox` as one incarnation reaches it: every call crosses its gate. */
export function inboxOfProcess(inbox: MemoryInbox, gate: ProcessGate): WebhookInbox {
  return {
    visibilityTimeoutMs: inbox.visibilityTimeoutMs,
    append: (entry) => gate.cross('inbox append', () => inbox.append(entry)),
    claim: (consumer, max) => gate.cross('inbox claim', () => inbox.claim(consumer, max)),
    complete: (id) => gate.cross('inbox mark', () => inbox.complete(id)),
    fail: (id, error) => gate.cross('inbox mark', () => inbox.fail(id, error)),
    release: (id) => gate.cross('inbox mark', () => inbox.release(id)),
    inspect: (options) => gate.cross('inbox claim', () => inbox.inspect(options)),
    replay: (ids) => gate.cross('inbox mark', () => inbox.replay(ids)),
    maintain: () => gate.cross('inbox mark', () => inbox.maintain()),
  };
}
