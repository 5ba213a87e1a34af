/** Checks of numeric options shared by `DeliveryClient` and `createWebhookHandler`. */
import { ConfigurationError } from '../core/errors.js';
import type { ValidationMode } from '../core/options.js';

/** Largest delay a JavaScript timer accepts, in ms (2^31 − 1). */
export const MAX_TIMER_MS = 2_147_483_647;

/** The option's value, or `fallback`. @throws {ConfigurationError} unless an integer in `min…max`. */
export function integerOption(
  option: string,
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigurationError(
      option,
      `Invalid ${option}: expected an integer from ${min} to ${max}, got ${String(value)}`,
    );
  }
  return value;
}

/**
 * The `validation` option: `'tolerant'` when absent, `'warn'`/`'off'` read as it. @throws
 * {ConfigurationError} otherwise.
 */
export function checkValidation(value: ValidationMode | undefined): 'tolerant' | 'strict' {
  if (value === undefined || value === 'tolerant' || value === 'warn' || value === 'off') return 'tolerant';
  if (value === 'strict') return 'strict';
  throw new ConfigurationError('validation', `Invalid validation: expected 'tolerant' or 'strict'`);
}
