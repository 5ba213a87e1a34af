/**
 * Store calls generated for the stores' batch tests on keys `k0`…`k3` and values `v0`…`v2`: the three the
 * webhook handler makes per event (a lease taken with its record read, a record written with its lease let
 * go, a lease let go alone) and the others a create or a caller makes (a read, a take, a compare-and-set,
 * a delete).
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
  | { kind: 'release'; key: number; expected: number }
  | { kind: 'get'; key: number }
  | { kind: 'setIfAbsent'; key: number; value: number }
  | { kind: 'compareAndSet'; key: number; expected: number | undefined; value: number }
  | { kind: 'deleteAny'; key: number };

const release = fc.record({ kind: fc.constant('release' as const), key: fc.nat(3), expected: fc.nat(2) });

/** One of the handler's three calls. */
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
  release,
);

/** A call on one key: the four calls every store has, and a release (a delete of a value). */
export const singleKeyOperation: fc.Arbitrary<Operation> = fc.oneof(
  release,
  fc.record({ kind: fc.constant('get' as const), key: fc.nat(3) }),
  fc.record({ kind: fc.constant('setIfAbsent' as const), key: fc.nat(3), value: fc.nat(2) }),
  fc.record({
    kind: fc.constant('compareAndSet' as const),
    key: fc.nat(3),
    expected: fc.option(fc.nat(2), { nil: undefined }),
    value: fc.nat(2),
  }),
  fc.record({ kind: fc.constant('deleteAny' as const), key: fc.nat(3) }),
);

/** Any of the seven store calls: the handler's three ({@link operation}) and the others. */
export const anyOperation: fc.Arbitrary<Operation> = fc.oneof(operation, singleKeyOperation);

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
  if (op.kind === 'release') return store.delete(`k${op.key}`, `v${op.expected}`);
  if (op.kind === 'get') return store.get(`k${op.key}`);
  if (op.kind === 'setIfAbsent') return store.setIfAbsent(`k${op.key}`, `v${op.value}`, 60_000);
  if (op.kind === 'compareAndSet') {
    const expected = op.expected === undefined ? undefined : `v${op.expected}`;
    return store.compareAndSet(`k${op.key}`, expected, `v${op.value}`, 60_000);
  }
  return store.delete(`k${op.key}`);
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
