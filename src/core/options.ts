/**
 * Public option types shared by the client, its resources and the webhook handler: per-call request
 * options, response validation, logging, and the reconciliation of creates. Types only.
 * @module
 */

/** Options every method accepts as its last argument. */
export interface RequestOptions {
  /** Cancels the call, including any wait between retries. The call then rejects with `APIUserAbortError`. */
  signal?: AbortSignal;
  /** Per-attempt timeout in ms, covering the response headers and the whole body. Default: the client's `timeout` (30 000 ms). */
  timeout?: number;
  /** Retries after the first attempt, for operations that are safe to repeat. Default: the client's `maxRetries` (2). */
  maxRetries?: number;
  /**
   * Deadline for the whole call in ms, retries and waits included (README "Retries and timeouts"). For
   * `tasks.create` also the order lease, the reconciliation lookups and their waits, and store calls;
   * for a `tasks.list` iteration the whole walk. Default: the client's `totalTimeout` (none).
   */
  totalTimeout?: number;
  /** Extra request headers. They cannot replace `Authorization` or `x-seller-id`. */
  headers?: Record<string, string>;
}

/** Options of `client.tasks.create`: the request options, plus the opt-out of the remembered order. */
export interface TaskCreateOptions extends RequestOptions {
  /**
   * Create a second delivery for an `orderNumber` that already has a task: skip the remembered order
   * (README "Running several instances") and send. The create is still one flight per order and still
   * reconciled (from this call's start) after an ambiguous failure. Default `false`.
   */
  repeatDelivery?: boolean;
  /**
   * Send the order even though an earlier create of it ended `TaskCreationOutcomeUnknownError`: skip
   * the lookup that would otherwise come first, and any candidate tasks it would name. Pass it only
   * after checking (`client.tasks.findByOrderNumber`) that the order has no task: otherwise it may cost
   * a second task and fee. Failures of this call are still reconciled. Default `false` (README
   * "Exactly-once creation"); the whole create still ends by `totalTimeout`.
   */
  resendUnknownOutcome?: boolean;
}

/**
 * How response bodies are read (README "Schema drift"):
 *
 * - `'tolerant'` (default): a body that does not match its schema is read field by field: unambiguous
 *   drift is coerced to the documented type (numeric text → number, a number → decimal text,
 *   `"true"`/`"false"`/`1`/`0` → boolean), anything else of the wrong type is left out, and each is reported
 *   ({@link SchemaDrift}). The result always has the documented types.
 * - `'strict'`: a body that does not match throws `ResponseValidationError`.
 *
 * Load-bearing fields are strict in both (a create's task id, a retrieve's object, a page's `tasks` and
 * page numbers, a webhook's task id and `status`). `'warn'` and `'off'` are deprecated
 * aliases of `'tolerant'`.
 */
export type ValidationMode = 'tolerant' | 'strict' | 'warn' | 'off';

/**
 * One difference between an answer and its documented shape, read tolerantly (README "Schema drift").
 * Holds type names only: never a value, an unknown key, the API key or the seller id.
 */
export interface SchemaDrift {
  /** The operation whose answer drifted (`tasks.retrieve`, `tasks.list`, …), or `webhook` for a webhook body. */
  operation: string;
  /** Dotted path of the field (`totalAmount`, `tasks.3.pickupLocation.latitude`). */
  path: string;
  /** The documented type: `string`, `number`, `integer`, `boolean`, `object`, `array`, … */
  expected: string;
  /** The type name received: `string`, `number`, `boolean`, `object`, `array`, `null` or `undefined`. */
  received: string;
  /** `'coerced'`: read as the documented type; `'omitted'`: left out of the result. */
  action: 'coerced' | 'omitted';
}

/** Log levels, most verbose first. `'off'` writes nothing. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'off';

/**
 * Where the SDK writes log lines. Two calling conventions, told apart by the logger itself:
 *
 * - console style (`console`, winston, anything else): `warn(message, fields?)`, the message prefixed
 *   with `[delivery-task-sdk]`;
 * - structured (pino, recognised by its `bindings()`; bunyan, by its `streams` and `fields`):
 *   `warn({ component: 'delivery-task-sdk', ...fields }, message)`, so the fields land in the JSON line.
 *
 * Fields are redacted before either call.
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
  /** Clock-skew allowance in ms: tasks created this long before the first attempt still count. Default 300 000 (5 min). */
  windowSkewMs: number;
  /** List requests one create may send to look its order up, all lookups together. Default 10. Integer 1…1000. */
  maxPages: number;
}
