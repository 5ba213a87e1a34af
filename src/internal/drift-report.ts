/**
 * Where schema drift goes (README "Schema drift"): the caller's `onDrift`, one logger warning per
 * (operation, path) per client or handler, and a `delivery.schema_drift` event on the call's span.
 * A drift names the operation, the field's path, the documented and the received type name: never a
 * value, an unknown key or a secret.
 * @module
 */
import type { SchemaDrift } from '../core/options.js';
import type { Drift } from '../schemas/tolerant-read.js';
import type { LevelLogger } from './logger.js';
import type { TraceSpan } from './tracing.js';

/** Distinct (operation, path) pairs remembered for the once-only warning; past it, warnings stop. */
export const MAX_WARNED_PATHS = 1000;

/** Reports the drifts of one answer. */
export type DriftReporter = (operation: string, drifts: readonly Drift[], span: TraceSpan | undefined) => void;

/**
 * A reporter writing to `onDrift` (a listener that throws is ignored: reporting never fails a call),
 * the span, and `logger` once per (operation, path), array indices folded (`tasks.*.totalAmount`).
 */
export function driftReporter(logger: LevelLogger, onDrift: ((drift: SchemaDrift) => void) | undefined): DriftReporter {
  const warned = new Set<string>();
  return (operation, drifts, span) => {
    for (const { path, expected, received, action } of drifts) {
      const drift: SchemaDrift = { operation, path, expected, received, action };
      if (onDrift !== undefined) {
        try {
          onDrift(drift);
        } catch {
          // The listener's failure is its own; the answer is still read.
        }
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
          `Schema drift in ${operation}: ${path} came as ${received}${
            action === 'coerced' ? `, read as ${expected}` : ` where ${expected} is documented; left out`
          } (further drift of this field is not logged)`,
        );
      }
    }
  };
}
