/**
 * Generated worlds of the create path (CONTRIBUTING.md "Model tests"): `test/support/model-create.ts`.
 * A fixed seed and a bounded number of worlds here; `npm run bench:model` runs many more.
 */
import { expect, it } from 'vitest';
import { createProperty, createTimeline } from '../support/model-create.js';
import {
  checkWorlds,
  describeFailure,
  inKuwaitZone,
  modelTimeout,
  runParameters,
} from '../support/model-run.js';

inKuwaitZone();

const WORLDS = 30;

it(
  'creates at most one task per order, and resolve with it, across generated worlds',
  async () => {
    const failure = await checkWorlds('create path', createProperty, runParameters(WORLDS), createTimeline);
    if (failure !== undefined) console.log(describeFailure(failure));
    expect(failure?.message).toBeUndefined();
  },
  modelTimeout(WORLDS, 1_000),
);
