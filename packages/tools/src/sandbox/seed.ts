/** The sandbox's seed document (`delivery-task sandbox --seed <file>`). */

import { invalidOption } from 'delivery-task-sdk/internal';
import type { MockBranch, MockSeedTask } from 'delivery-task-sdk/testing';
import { checkMockOptions } from 'delivery-task-sdk/testing';

/** What a seed document holds; both fields are optional. */
export interface SandboxSeed {
  /**
   * The branches of `GET tasks/branches` (names or `{ name, id?, latitude?, longitude?, address?, … }`).
   * Default: the mock's three.
   */
  branches?: MockBranch[];
  /**
   * The tasks present at the start and after every reset (see `MockSeedTask`): a `POST tasks` body plus
   * optional `id` and `status`.
   */
  tasks?: MockSeedTask[];
}

const FIELDS = ['branches', 'tasks'];

/**
 * Checks a parsed seed document (JSON) exactly as the sandbox will use it: its shape here, then every
 * branch and task by the mock's own rules (a task is checked like a `POST tasks` body; its
 * `selectedBranch` must name one of the branches).
 * @returns the document, typed.
 * @throws {ConfigurationError} naming the field (`option`): for a document that is not an object of
 * `branches` and `tasks` arrays (`Invalid task: expected a field of a seed (branches, tasks), got an array`),
 * and as `checkMockOptions` for a branch or task: `Invalid tasks.1.deliveryLocation.latitude: expected a
 * number ≤ 90, got 95`, `Invalid branches.0.name: …`.
 */
export function parseSandboxSeed(document: unknown): SandboxSeed {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw invalidOption('seed', 'a JSON object of branches and tasks', document);
  }
  const seed = document as Record<string, unknown>;
  for (const field of Object.keys(seed)) {
    if (!FIELDS.includes(field)) {
      throw invalidOption(field, `a field of a seed (${FIELDS.join(', ')})`, seed[field]);
    }
  }
  for (const field of FIELDS) {
    if (seed[field] !== undefined && !Array.isArray(seed[field]))
      throw invalidOption(field, 'an array', seed[field]);
  }
  const checked: SandboxSeed = {};
  if (seed.branches !== undefined) checked.branches = seed.branches as MockBranch[];
  if (seed.tasks !== undefined) checked.tasks = seed.tasks as MockSeedTask[];
  // The mock's own rules, without making a mock.
  checkMockOptions(checked);
  return checked;
}
