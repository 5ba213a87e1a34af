/**
 * The pieces of the options schemas (`src/options/`): each refuses with the `<what>` of the one message form
 * of `readOptions`, `Invalid <path>: expected <what>, got <value>`.
 * @module
 */
import * as z from 'zod/mini';
import type { LogLevel, ValidationMode } from '../core/options.js';
import type { DeliveryStore } from '../core/store.js';
import { RANK } from './logger.js';

export { MAX_TIMER_MS } from './options.js';

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

/** `T` with the options of `D` present: what a schema of options gives with its defaults applied. */
export type Defaulted<T, D> = Omit<T, keyof D> & { [K in keyof D & keyof T]-?: Exclude<T[K], undefined> };

/**
 * An object of options, `shape` its options, `defaults` read for those absent or `undefined` once the given
 * ones are checked. An unknown option is refused: its `unrecognized_keys` issue's message lists the known
 * ones, comma-separated, for `readOptions`.
 */
export function optionsObject<
  T extends z.core.$ZodLooseShape,
  const D extends Partial<z.output<z.ZodMiniObject<T>>> = Record<never, never>,
>(shape: T, defaults?: D) {
  return z.looseObject(shape, 'an object').check(
    z.check<Record<string, unknown>>((payload) => {
      const keys = Object.keys(payload.value).filter((key) => !Object.hasOwn(shape, key));
      if (keys[0] !== undefined) {
        payload.issues.push({
          code: 'unrecognized_keys',
          keys,
          input: payload.value,
          message: Object.keys(shape).join(', '),
        });
      }
      for (const key in defaults) if (payload.value[key] === undefined) payload.value[key] = defaults[key];
    }),
  ) as unknown as z.ZodMiniType<Defaulted<z.output<z.ZodMiniObject<T>>, D>, z.input<z.ZodMiniObject<T>>>;
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

/** Every log level, least severe first. */
export const LOG_LEVELS = Object.keys(RANK) as readonly LogLevel[];

/** The `validation` option: `'warn'` and `'off'` are read as `'tolerant'`. */
export const validationOption = z.optional(
  oneOf<ValidationMode>(['tolerant', 'strict', 'warn', 'off'], ['tolerant', 'strict']),
);

/** The `logLevel` option, absent when not given (the environment's `DELIVERY_LOG` decides). */
export const logLevelOption = z.optional(oneOf(LOG_LEVELS));
