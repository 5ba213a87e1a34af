/**
 * Generated worlds of the webhook intake (CONTRIBUTING.md "Model tests"): `test/support/model-intake.ts`,
 * for a plain handler, handlers sharing a store, and handlers sharing a store and a durable inbox (the
 * memory inbox of `test/support/model-inbox.ts`, held here to the contract the real inboxes pass).
 */
import { describe, expect, it } from 'vitest';
import { MemoryInbox } from '../support/model-inbox.js';
import { intakeProperty, intakeTimeline } from '../support/model-intake.js';
import type { IntakeMode } from '../support/model-intake-world.js';
import {
  checkWorlds,
  describeFailure,
  inKuwaitZone,
  modelTimeout,
  runParameters,
} from '../support/model-run.js';
import { describeInboxContract } from '../webhooks/inbox-contract.js';

inKuwaitZone();

const WORLDS = 20;

for (const mode of ['plain', 'shared', 'inbox'] as const satisfies readonly IntakeMode[]) {
  it(
    `${mode}: every webhook answered 200 reaches onEvent once, in order, or is reported`,
    async () => {
      const failure = await checkWorlds(
        `intake (${mode})`,
        intakeProperty(mode),
        runParameters(WORLDS),
        intakeTimeline,
      );
      if (failure !== undefined) console.log(describeFailure(failure));
      expect(failure?.message).toBeUndefined();
    },
    modelTimeout(WORLDS, 1_000),
  );
}

describe('the memory inbox of the model tests keeps the inbox contract', () => {
  describeInboxContract((options) => new MemoryInbox(options), { dedupesOnWrite: false });
});
