/**
 * Seed tasks (option `tasks`): checked as `POST tasks` bodies, moved to their status, no webhooks, no fee;
 * and the check of the mock's options without a mock.
 * @module
 */
import type * as z from 'zod/mini';
import { invalidOption } from '../internal/read-options.js';
import { isOffPathStatus, type LifecycleEvent, OFF_PATH_SOURCES } from '../schemas/lifecycle.js';
import { TaskCreateParams } from '../schemas/task-create.js';
import { draftTask, type ServiceState } from './endpoints.js';
import { createObjectIdGenerator, createSequenceIdGenerator } from './ids.js';
import { applyEvent, mockDriver, plannedEvents } from './lifecycle.js';
import { type ReadSeedTask, resolveOptions } from './options.js';
import { type TaskRecord, TaskStore } from './state.js';
import type { MockDeliveryServiceOptions } from './types.js';
import { Account } from './wallet.js';

/** The events taking a `pending` task to `status`; an off-path status goes through its first source. */
function eventsTo(taskId: string, status: string): LifecycleEvent[] {
  if (status === 'pending') return [];
  if (!isOffPathStatus(status)) return plannedEvents(taskId, 'pending', status);
  const [via = 'pending'] = OFF_PATH_SOURCES[status];
  return [...(via === 'pending' ? [] : plannedEvents(taskId, 'pending', via)), status];
}

/** The `<what>` of the one message form for an issue of a `POST tasks` body. */
function expectedBy(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return 'a field of a POST tasks body';
  if (issue.code === 'invalid_type')
    return `${/^[aeiou]/.test(issue.expected) ? 'an' : 'a'} ${issue.expected}`;
  if (issue.code === 'too_big' && issue.origin === 'number') {
    return `a number ${issue.inclusive ? '≤' : '<'} ${String(issue.maximum)}`;
  }
  if (issue.code === 'too_small' && issue.origin === 'number') {
    return `a number ${issue.inclusive ? '≥' : '>'} ${String(issue.minimum)}`;
  }
  const what = issue.message.replace(/^Expected /, '');
  return what === issue.message ? `a value a POST tasks body takes (${issue.message})` : what;
}

/** The error of the first issue of seed task `index`'s `body`, at its path under `tasks.<index>`. */
function bodyError(issue: z.core.$ZodIssue, body: unknown, index: number): Error {
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : issue.path;
  let given = body;
  for (const key of path) given = (given as Record<PropertyKey, unknown> | undefined)?.[key];
  return invalidOption(['tasks', index, ...path].map(String).join('.'), expectedBy(issue), given);
}

/**
 * The seed tasks' records, each body checked as a `POST tasks` body (`seeds` already read by the options
 * schema: objects, ids unique, statuses known).
 * @throws {ConfigurationError} `Invalid tasks.<n>.<field>: expected …, got …` for a body a `POST tasks`
 * refuses, a `sellerId` other than the mock's, a `selectedBranch` naming no branch.
 */
export function seedRecords(state: ServiceState, seeds: readonly ReadSeedTask[]): readonly TaskRecord[] {
  const { config } = state;
  return seeds.map((seed, index) => {
    const { id, status = 'pending', ...body } = seed as { id?: string; status?: string };
    const parsed = TaskCreateParams.safeParse(body);
    if (!parsed.success) throw bodyError(parsed.error.issues[0] as z.core.$ZodIssue, body, index);
    const { sellerId, selectedBranch } = parsed.data;
    if (sellerId !== undefined && sellerId !== config.sellerId) {
      throw invalidOption(`tasks.${index}.sellerId`, "the mock's seller id (or none)", sellerId);
    }
    const draft = draftTask(state, parsed.data, config.sellerId, id);
    if (!draft.ok) {
      // Its one refusal: a branch the mock does not have.
      const names = config.branches.map((branch) => JSON.stringify(branch.name)).join(', ');
      throw invalidOption(`tasks.${index}.selectedBranch`, `the name of a branch (${names})`, selectedBranch);
    }
    const record = draft.value.record(config.accountType === 'wallet');
    const taskId = record.task.id ?? '';
    for (const event of eventsTo(taskId, status)) {
      applyEvent(record, event, {
        timestamp: config.now().toISOString(),
        historyId: state.objectId,
        driver: () => mockDriver(config.address.origin, record.task.deliveryId ?? taskId),
      });
    }
    return record;
  });
}

/**
 * Checks `options` as `createMockDeliveryService` does, seed tasks included, without making a mock:
 * nothing is served, stored or intercepted. For a tool that takes the mock's options and makes its mock
 * later (the sandbox checks them before it takes a port).
 * @throws {ConfigurationError} for the first unknown or invalid option, as `createMockDeliveryService`:
 * `option` its path (`account.type`, `branches.2.name`, `tasks.0.status`, `taskLimit`), the message
 * `Invalid <path>: expected <what>, got <value>`.
 */
export function checkMockOptions(options?: MockDeliveryServiceOptions): void {
  const config = resolveOptions(options);
  const state: ServiceState = {
    config,
    store: new TaskStore(config.taskLimit),
    account: new Account(config.accountType, config.openingBalanceFils),
    objectId: createObjectIdGenerator(config.now),
    deliveryId: createSequenceIdGenerator('DLV-'),
  };
  seedRecords(state, config.seeds);
}
