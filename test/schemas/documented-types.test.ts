import { describe, expectTypeOf, it } from 'vitest';
import type { Task, TaskCreateParams } from '../../src/index.js';
import type { DeliveryLocation, TaskListParams, TaskWithId, WebhookTask } from '../../src/schemas.js';

// The request and response types carry per-field TSDoc for the API reference; they must still fit where a
// plain object is expected, as the zod-inferred types they replace did.
describe('documented schema types', () => {
  it('are assignable to Record<string, unknown>', () => {
    expectTypeOf<TaskCreateParams>().toExtend<Record<string, unknown>>();
    expectTypeOf<TaskListParams>().toExtend<Record<string, unknown>>();
    expectTypeOf<DeliveryLocation>().toExtend<Record<string, unknown>>();
    expectTypeOf<Task>().toExtend<Record<string, unknown>>();
    expectTypeOf<TaskWithId>().toExtend<Task>();
    expectTypeOf<WebhookTask>().toExtend<Record<string, unknown>>();
  });

  it('refuse selectedBranch without customPickup: true', () => {
    expectTypeOf<{ selectedBranch: 'Main' }>().not.toExtend<TaskCreateParams>();
    expectTypeOf<{ customPickup: true; selectedBranch: 'Main' }>().toExtend<TaskCreateParams>();
  });
});
