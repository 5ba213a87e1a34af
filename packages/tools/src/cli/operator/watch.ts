/**
 * `delivery-task tasks watch <id>`: prints each status of a task as it changes, until a final one
 * (`delivered`, `cancelled`, `rejected`, `failed`: src/core/lifecycle.ts), by polling `GET tasks/{id}`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Task } from 'delivery-task-sdk';
import { StatusWaitTimeoutError } from 'delivery-task-sdk';
import { FINAL_STATUSES, isFinalStatus } from 'delivery-task-sdk/schemas';
import { textCell, timeCell } from '../format.js';
import { secondsValue } from './args.js';
import type { OperatorCommandSpec } from './command.js';
import { EXIT_TEMPORARY, exitCodeOf } from './exit-codes.js';

/** Bounds of `--interval`, ms: 50 ms to 60 s, default 2 s. */
export const WATCH_INTERVAL_MS = { minMs: 50, maxMs: 60_000, fallbackMs: 2000 } as const;

/** Bounds of `--timeout`, ms: 100 ms to 24 h, default 10 min. */
export const WATCH_TIMEOUT_MS = { minMs: 100, maxMs: 86_400_000, fallbackMs: 600_000 } as const;

/** History entries remembered as printed (the oldest are forgotten past this; a task has far fewer). */
const MAX_REMEMBERED_ENTRIES = 1000;

/** One status change as printed. */
export interface StatusChange {
  readonly taskId: string;
  readonly status: string;
  /** When it happened (the history entry's timestamp, else the task's `updatedAt`), as sent. */
  readonly at: string | undefined;
}

/**
 * Turns successive reads of a task into the changes not yet printed: the `statusHistory` entries not
 * seen before, in order (so a status passed between two reads is still printed), else the current
 * `status` when it differs from the last one printed.
 */
export class StatusChanges {
  readonly #taskId: string;
  readonly #seen = new Set<string>();
  #last: string | undefined;

  constructor(taskId: string) {
    this.#taskId = taskId;
  }

  /** The changes `task` shows since the previous read. */
  next(task: Task): StatusChange[] {
    const changes: StatusChange[] = [];
    for (const entry of task.statusHistory ?? []) {
      if (typeof entry.status !== 'string' || entry.status === '') continue;
      const key = `${entry.id ?? ''}\n${entry.status}\n${entry.timestamp ?? ''}`;
      if (this.#seen.has(key)) continue;
      if (this.#seen.size >= MAX_REMEMBERED_ENTRIES) this.#seen.clear();
      this.#seen.add(key);
      changes.push({ taskId: this.#taskId, status: entry.status, at: entry.timestamp });
    }
    const latest = changes.at(-1)?.status ?? this.#last;
    if (typeof task.status === 'string' && task.status !== '' && task.status !== latest) {
      changes.push({ taskId: this.#taskId, status: task.status, at: task.updatedAt });
    }
    this.#last = changes.at(-1)?.status ?? this.#last;
    return changes;
  }
}

/** `tasks watch <id> [--interval SECONDS] [--timeout SECONDS]`. */
export const tasksWatch: OperatorCommandSpec = {
  words: ['tasks', 'watch'],
  arguments: ['<id>'],
  options: {
    interval: {
      type: 'string',
      valueName: 'SECONDS',
      description: `time between reads, ${WATCH_INTERVAL_MS.minMs / 1000}…${WATCH_INTERVAL_MS.maxMs / 1000} s (default ${WATCH_INTERVAL_MS.fallbackMs / 1000})`,
    },
    timeout: {
      type: 'string',
      valueName: 'SECONDS',
      description: `give up after this long, exit 8 (default ${WATCH_TIMEOUT_MS.fallbackMs / 1000}, at most ${WATCH_TIMEOUT_MS.maxMs / 1000})`,
    },
  },
  summary: 'print each status change until a final status',
  details: [
    'Prints the history so far, then each change: "<time UTC>  <status>", and ends (exit 0) at a final',
    `status: ${FINAL_STATUSES.join(', ')}. Ctrl-C stops it (exit 130).`,
    'A read that fails for a temporary reason (exit code 6 class) is tried again at the next interval.',
    '--json: a JSON array of { "taskId", "status", "at" }, one change per line, closed at the final status.',
  ],
  async run(context, input) {
    const [id = ''] = input.positionals;
    const intervalMs = secondsValue(input, 'interval', WATCH_INTERVAL_MS);
    const timeoutMs = secondsValue(input, 'timeout', WATCH_TIMEOUT_MS);
    const { output } = context;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([context.signal, deadline]);
    const changes = new StatusChanges(id);
    const array = output.json ? output.jsonArray() : undefined;
    let lastStatus: string | undefined;
    const timedOut = () =>
      new StatusWaitTimeoutError({ taskId: id, statuses: FINAL_STATUSES, lastStatus, timeoutMs });
    for (let read = 0; ; read++) {
      let task: Task | undefined;
      try {
        task = await context.client.tasks.retrieve(id, { signal });
      } catch (error) {
        if (context.signal.aborted) throw error;
        if (deadline.aborted) throw timedOut();
        // Not found, refused credentials and the like end the watch; a hiccup of the service does not.
        if (read === 0 || exitCodeOf(error) !== EXIT_TEMPORARY) throw error;
        output.note(`reading task ${id} failed, trying again: ${(error as Error).message}`);
      }
      if (task !== undefined) {
        for (const change of changes.next(task)) {
          if (array) array.add(change);
          else output.line(`${timeCell(change.at)}  ${textCell(output.redact(change.status))}`);
        }
        lastStatus = task.status ?? lastStatus;
        if (typeof task.status === 'string' && isFinalStatus(task.status)) {
          array?.end();
          return;
        }
      }
      try {
        await sleep(intervalMs, undefined, { signal });
      } catch (error) {
        if (context.signal.aborted) throw context.signal.reason ?? error;
        throw timedOut();
      }
    }
  },
};
