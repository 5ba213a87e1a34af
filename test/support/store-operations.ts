/**
 * The three store calls the webhook handler makes per event (a lease taken with its record read, a record
 * written with its lease let go, a lease let go alone), generated for the stores' batch tests on keys
 * `k0`…`k3` and values `v0`…`v2`.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { DeliveryStore } from '../../src/core/store.js';

/** One of the three calls. */
export type Operation =
  | { kind: 'take'; key: number; value: number; readKey: number }
  | {
      kind: 'record';
      key: number;
      expected: number | undefined;
      value: number;
      fence: number;
      fenceValue: number;
      orAbsent: boolean;
    }
  | { kind: 'release'; key: number; expected: number };

export const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({
    kind: fc.constant('take' as const),
    key: fc.nat(3),
    value: fc.nat(2),
    readKey: fc.nat(3),
  }),
  fc.record({
    kind: fc.constant('record' as const),
    key: fc.nat(3),
    expected: fc.option(fc.nat(2), { nil: undefined }),
    value: fc.nat(2),
    fence: fc.nat(3),
    fenceValue: fc.nat(2),
    orAbsent: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('release' as const), key: fc.nat(3), expected: fc.nat(2) }),
);

export const call = (store: DeliveryStore, op: Operation): Promise<unknown> => {
  if (op.kind === 'take') {
    return (
      store.setIfAbsentThenGet?.(`k${op.key}`, `v${op.value}`, 60_000, `k${op.readKey}`) ?? Promise.reject()
    );
  }
  if (op.kind === 'record') {
    return (
      store.compareAndSetReleasing?.(
        `k${op.key}`,
        op.expected === undefined ? undefined : `v${op.expected}`,
        `v${op.value}`,
        60_000,
        { key: `k${op.fence}`, value: `v${op.fenceValue}`, orAbsent: op.orAbsent },
      ) ?? Promise.reject()
    );
  }
  return store.delete(`k${op.key}`, `v${op.expected}`);
};

/** Takes the leases of tasks `tasks` in one tick (`lease:<task>`, value `token`, its record `task:<task>`). */
export const takeInOneTick = (store: DeliveryStore, tasks: readonly string[]) =>
  Promise.all(
    tasks.map((task) => store.setIfAbsentThenGet?.(`lease:${task}`, 'token', 60_000, `task:${task}`)),
  );

/** Records `seen` for tasks `tasks` in one tick, each letting go of its lease taken by {@link takeInOneTick}. */
export const recordInOneTick = (store: DeliveryStore, tasks: readonly string[]) =>
  Promise.all(
    tasks.map((task) =>
      store.compareAndSetReleasing?.(`task:${task}`, undefined, 'seen', 60_000, {
        key: `lease:${task}`,
        value: 'token',
        orAbsent: false,
      }),
    ),
  );

/**
 * Runs `before` on both stores one call at a time, then `batch` on `batched` in one tick and on `oneByOne`
 * one call at a time; fails unless each call of the tick answers as it did alone.
 */
export async function expectTickAsAlone(
  batched: DeliveryStore,
  oneByOne: DeliveryStore,
  before: readonly Operation[],
  batch: readonly Operation[],
): Promise<void> {
  for (const op of before) {
    await call(batched, op);
    await call(oneByOne, op);
  }
  const replies = await Promise.all(batch.map((op) => call(batched, op)));
  const expected: unknown[] = [];
  for (const op of batch) expected.push(await call(oneByOne, op));
  expect(replies).toEqual(expected);
}
