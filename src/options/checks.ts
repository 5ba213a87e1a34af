/**
 * The pieces of the options schemas (`src/options/`): each refuses with the `<what>` of the one message form
 * of `readOptions`, `Invalid <path>: expected <what>, got <value>`.
 * @module
 */
import * as z from 'zod/mini';
import type { DeliveryStore } from '../core/store.js';

/** Largest delay a JavaScript timer accepts, in ms (2^31 − 1). */
export const MAX_TIMER_MS = 2_147_483_647;

/** A value `test` accepts; `expected` says which (`'a function'`). */
export function accepted<T>(test: (value: unknown) => boolean, expected: string) {
  return z.custom<T>(test, expected);
}

/** An integer from `min` to `max`; `max` of `Number.MAX_SAFE_INTEGER` reads "an integer ≥ min". */
export function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER) {
  return accepted<number>(
    (value) => Number.isInteger(value) && (value as number) >= min && (value as number) <= max,
    max === Number.MAX_SAFE_INTEGER ? `an integer ≥ ${min}` : `an integer from ${min} to ${max}`,
  );
}

/**
 * An object of options, `shape` its options; an unknown one refused (its issue's message lists the known
 * ones, comma-separated, for `readOptions`).
 */
export function optionsObject<T extends z.core.$ZodLooseShape>(shape: T) {
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? Object.keys(shape).join(', ') : 'an object'),
  });
}

/** `T` with the options of `D` present: what a schema of options gives with its defaults applied. */
export type Defaulted<T, D> = Omit<T, keyof D> & { [K in keyof D & keyof T]-?: Exclude<T[K], undefined> };

/**
 * `schema` (an object of options) with `defaults` read for the options absent or `undefined`, once the
 * given ones are checked.
 */
export function withDefaults<S extends z.ZodMiniObject, const D extends Partial<z.output<S>>>(
  schema: S,
  defaults: D,
) {
  return schema.check(
    z.check<Record<string, unknown>>((payload) => {
      for (const key in defaults) payload.value[key] ??= defaults[key];
    }),
  ) as unknown as z.ZodMiniType<Defaulted<z.output<S>, D>, z.input<S>>;
}

/** An optional integer from `min` to `max` (see {@link wholeNumber}). */
export function upTo(min: number, max?: number) {
  return z.optional(wholeNumber(min, max));
}

/** One of `values`, listed in the message (`'tolerant' or 'strict'`). */
export function oneOf<T extends string>(values: readonly T[], listed = values) {
  const quoted = listed.map((value) => `'${value}'`);
  return accepted<T>(
    (value) => (values as readonly unknown[]).includes(value),
    `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`,
  );
}

/** An optional function. */
export function hook<F>() {
  return z.optional(accepted<F>((value) => typeof value === 'function', 'a function'));
}

/** An optional boolean. */
export const flag = z.optional(accepted<boolean>((value) => typeof value === 'boolean', 'true or false'));

/** Whether `value` has the four methods of a `DeliveryStore`. */
export function isDeliveryStore(value: unknown): value is DeliveryStore {
  const store = (value ?? {}) as Record<keyof DeliveryStore, unknown>;
  return [store.setIfAbsent, store.get, store.compareAndSet, store.delete].every(
    (member) => typeof member === 'function',
  );
}

/** An optional `DeliveryStore`, checked by its four methods. */
export const storeOption = z.optional(
  accepted<DeliveryStore>(isDeliveryStore, 'a DeliveryStore, e.g. memoryStore()'),
);
