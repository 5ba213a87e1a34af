/**
 * Generated creation windows (CONTRIBUTING.md "Model tests"): `test/support/model-window.ts`, run with
 * the machine in Kuwait's zone (UTC+3), where a timestamp without a zone read as local time is 3 h off.
 */
import { expect, it } from 'vitest';
import {
  checkWorlds,
  describeFailure,
  inKuwaitZone,
  modelTimeout,
  runParameters,
} from '../support/model-run.js';
import { windowProperty, windowTimeline } from '../support/model-window.js';

const WORLDS = 60;
inKuwaitZone();

it(
  'a creation window yields every listed task created in it, whatever the service sorts by',
  async () => {
    expect(new Date(2026, 10, 20, 12).getTime()).toBe(Date.UTC(2026, 10, 20, 9));
    const failure = await checkWorlds(
      'creation window',
      windowProperty,
      runParameters(WORLDS),
      windowTimeline,
    );
    if (failure !== undefined) console.log(describeFailure(failure));
    expect(failure?.message).toBeUndefined();
  },
  modelTimeout(WORLDS, 500),
);
