/** Public option types: per-call request options, response validation, logging, reconciliation. @module */

/** Options every method accepts as its last argument. */
export interface RequestOptions {
  /** Cancels the call, including any wait between retries. The call then rejects with `APIUserAbortError`. */
  signal?: AbortSignal;
  /**
   * Per-attempt timeout in ms, covering the response headers and the whole body. Default: the client's
   * `timeout` (30 000 ms).
   */
  timeout?: number;
  /**
   * Retries after the first attempt, for operations that are safe to repeat. Default: the client's
   * `maxRetries` (2).
   */
  maxRetries?: number;
  /**
   * Deadline of the whole call in ms, retries, waits and lookups included (README "Retries and timeouts").
   * Default: the client's `totalTimeout`.
   */
  totalTimeout?: number;
  /** Extra request headers. They cannot replace `Authorization` or `x-seller-id`. */
  headers?: Record<string, string>;
}

/** Options of `client.tasks.create`: the request options, plus the opt-out of the remembered order. */
export interface TaskCreateOptions extends RequestOptions {
  /**
   * Create a second delivery for an order that already has a task (README "Running several instances").
   * Default `false`.
   */
  repeatDelivery?: boolean;
  /**
   * Resend after `TaskCreationOutcomeUnknownError` without a lookup, only once `findByOrderNumber` found no
   * task. Default `false`.
   */
  resendUnknownOutcome?: boolean;
  /**
   * Look the order up (one list request, inside `totalTimeout`) before its first POST, so an order created
   * by an earlier process is returned, not created again (README "Exactly-once creation"). Default: the
   * client's `lookupFirst`, else `true` without a `store` (its memory ends with the process) or for a
   * `repeatDelivery` (whose lookup names the earlier deliveries), `false` with one (its record answers).
   * `false` suits order numbers new by construction. A create without `orderNumber` cannot look.
   */
  lookupFirst?: boolean;
}

/**
 * README "Schema drift": `'tolerant'` (default; {@link SchemaDrift}), `'strict'`; `'warn'`, `'off'`:
 * deprecated.
 */
export type ValidationMode = 'tolerant' | 'strict' | 'warn' | 'off';

/**
 * A field of an answer that drifted from its documented type (README "Schema drift"): type names, never
 * values.
 */
export interface SchemaDrift {
  /** The operation (`tasks.retrieve`, …), or `webhook`. */
  operation: string;
  /** Dotted path of the field (`totalAmount`, `tasks.3.pickupLocation.latitude`). */
  path: string;
  /**
   * The documented type: `string`, `number`, `integer`, `boolean`, `object`, `array`, `date-time in UTC`, …
   */
  expected: string;
  /**
   * The type name received: `string`, …, `undefined`; `date-time without a zone`; `another order` (a
   * listing).
   */
  received: string;
  /**
   * `coerced`: read as `expected` (also a retrieved task's missing `id`, given the id asked for); `omitted`:
   * left
   * out; `read-all`: a listing out of the order asked for, so the walk read on instead of stopping early.
   */
  action: 'coerced' | 'omitted' | 'read-all';
}

/** Log levels, most verbose first. `'off'` writes nothing. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'off';

/**
 * Where log lines go: console style or structured (pino, bunyan); fields redacted first
 * (docs/configuration.md).
 */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** How a create whose outcome is unknown is reconciled (README "Exactly-once creation"). */
export interface ReconciliationOptions {
  /** Accepted and ignored (lookups follow `listingDelayMs` now). Integer 1…10. */
  checks: number;
  /** Accepted and ignored (lookups follow `listingDelayMs` now). Integer 0…60 000. */
  intervalMs: number;
  /**
   * Clock-skew allowance in ms: tasks created this long before the first attempt still count. Default 300 000
   * (5 min).
   */
  windowSkewMs: number;
  /**
   * List requests one create may send to look its order up, all lookups together. Default 10. Integer 1…1000.
   */
  maxPages: number;
}
