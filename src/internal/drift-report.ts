/**
 * Where schema drift goes (README "Schema drift"): `onDrift`, one warning per (operation, path), and a
 * `delivery.schema_drift` span event. Type names only: never a value or a secret.
 * @module
 */
import type { SchemaDrift } from '../core/options.js';
import type { Drift } from '../schemas/tolerant-read.js';
import type { LevelLogger } from './logger.js';
import type { TraceSpan } from './tracing.js';

/** Distinct (operation, path) pairs remembered for the once-only warning; past it, warnings stop. */
export const MAX_WARNED_PATHS = 1000;

/** How the warning says what was done, after "`path` came as `received`". */
const ACTION_WORDS: Record<Drift['action'], (expected: string) => string> = {
  coerced: (expected) => `, read as ${expected}`,
  omitted: (expected) => ` where ${expected} is documented; left out`,
  'read-all': (expected) =>
    ` where ${expected} was asked for; the walk reads on to the end instead of stopping early`,
};

export type DriftReporter = (
  operation: string,
  drifts: readonly Drift[],
  span: TraceSpan | undefined,
) => void;

/**
 * A reporter to `onDrift` (its throw ignored), the span, and `logger` once per path (`tasks.*.totalAmount`).
 */
export function driftReporter(
  logger: LevelLogger,
  onDrift: ((drift: SchemaDrift) => void) | undefined,
): DriftReporter {
  const warned = new Set<string>();
  return (operation, drifts, span) => {
    for (const { path, expected, received, action } of drifts) {
      const drift: SchemaDrift = { operation, path, expected, received, action };
      if (onDrift !== undefined) {
        try {
          onDrift(drift);
        } catch {}
      }
      span?.addEvent('delivery.schema_drift', {
        'delivery.operation': operation,
        'delivery.drift.path': path,
        'delivery.drift.expected': expected,
        'delivery.drift.received': received,
        'delivery.drift.action': action,
      });
      const folded = `${operation} ${path.replace(/(^|\.)\d+(?=\.|$)/g, '$1*')}`;
      if (warned.size < MAX_WARNED_PATHS && !warned.has(folded)) {
        warned.add(folded);
        logger.warn(
          `Schema drift in ${operation}: ${path} came as ${received}${ACTION_WORDS[action](expected)} (further drift of this field is not logged)`,
        );
      }
    }
  };
}
