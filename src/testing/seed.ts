/**
 * Seed tasks (option `tasks`): checked as `POST tasks` bodies, moved to their status, no webhooks, no fee.
 * @module
 */
import {
  isOffPathStatus,
  isTaskStatus,
  type LifecycleEvent,
  OFF_PATH_SOURCES,
  TASK_STATUSES,
} from '../schemas/lifecycle.js';
import { TaskCreateParams } from '../schemas/task-create.js';
import { draftTask, type ServiceState } from './endpoints.js';
import { applyEvent, mockDriver, plannedEvents } from './lifecycle.js';
import { describeIssues } from './request-body.js';
import type { TaskRecord } from './state.js';
import type { MockSeedTask } from './types.js';

/** Most seed tasks a mock takes. */
export const MAX_SEED_TASKS = 10_000;

/** `tasks[3]`, for messages. */
const at = (index: number): string => `tasks[${index}]`;

function seedFailure(message: string): never {
  throw new TypeError(message);
}

/** The events taking a `pending` task to `status`; an off-path status goes through its first source. */
function eventsTo(taskId: string, status: string): LifecycleEvent[] {
  if (status === 'pending') return [];
  if (!isOffPathStatus(status)) return plannedEvents(taskId, 'pending', status);
  const [via = 'pending'] = OFF_PATH_SOURCES[status];
  return [...(via === 'pending' ? [] : plannedEvents(taskId, 'pending', via)), status];
}

/**
 * @throws {TypeError} naming the first invalid field (`tasks[2].…`), a duplicate id, or over {@link
 * MAX_SEED_TASKS}.
 */
export function seedRecords(state: ServiceState, seeds: ReadonlyArray<MockSeedTask>): readonly TaskRecord[] {
  if (!Array.isArray(seeds)) seedFailure('tasks must be an array of task objects');
  if (seeds.length > MAX_SEED_TASKS)
    seedFailure(`tasks: at most ${MAX_SEED_TASKS} seed tasks, got ${seeds.length}`);
  const { config } = state;
  const ids = new Set<string>();
  return seeds.map((seed: unknown, index) => {
    if (typeof seed !== 'object' || seed === null || Array.isArray(seed)) {
      seedFailure(`${at(index)}: must be an object (the body of a POST tasks, with optional id and status)`);
    }
    const { id, status = 'pending', ...body } = seed as Record<string, unknown>;
    if (id !== undefined && (typeof id !== 'string' || id.trim() === '')) {
      seedFailure(`${at(index)}.id: must be a non-empty string`);
    }
    if (typeof id === 'string' && ids.has(id))
      seedFailure(`${at(index)}.id: ${JSON.stringify(id)} is used twice`);
    if (typeof id === 'string') ids.add(id);
    if (typeof status !== 'string' || !isTaskStatus(status)) {
      seedFailure(`${at(index)}.status: must be one of ${TASK_STATUSES.join(', ')}`);
    }
    const parsed = TaskCreateParams.safeParse(body);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => ({
        ...issue,
        path: ['tasks', index, ...issue.path],
      }));
      seedFailure(describeIssues(issues, at(index)));
    }
    if (parsed.data.sellerId !== undefined && parsed.data.sellerId !== config.sellerId) {
      seedFailure(`${at(index)}.sellerId: must equal the mock's seller id`);
    }
    const draft = draftTask(state, parsed.data, config.sellerId, id as string | undefined);
    if (!draft.ok) seedFailure(`${at(index)}.${draft.message}`);
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
