/**
 * What a failed attempt says about its request: the one place deciding retries of reads and whether a
 * create is resent, reconciled or given up (README "Retries and timeouts", "Exactly-once creation").
 * `not-sent`: refused, DNS, TLS; `not-processed`: 429; `ambiguous`: timeout, reset, 408, 5xx, an unknown
 * create outcome; `committed`: an unusable 2xx/3xx; `rejected`: other 4xx, bad input, configuration.
 */
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  DeliveryError,
  ResponseTooLargeError,
  ResponseValidationError,
  TaskCreationOutcomeUnknownError,
} from '../core/errors.js';

/** The meaning of a failure for the request that caused it (this module's notes). */
export type FailureOutcome =
  | 'aborted'
  | 'not-sent'
  | 'not-processed'
  | 'ambiguous'
  | 'committed'
  | 'rejected';

const AMBIGUOUS_STATUSES: ReadonlySet<number> = new Set([408, 500, 502, 503, 504]);

/** System error codes that prove the request never reached the server. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_INVALID_URL',
]);
const TLS_CODE = /^(ERR_TLS|CERT_|UNABLE_TO_VERIFY|DEPTH_ZERO|SELF_SIGNED)/;

/** The first system error code (`ECONNREFUSED`, …) along an error's cause chain (six links at most). */
export function systemErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && typeof current === 'object' && current !== null; depth++) {
    const { code, errors, cause } = current as { code?: unknown; errors?: unknown; cause?: unknown };
    if (typeof code === 'string') return code;
    if (Array.isArray(errors) && errors.length > 0) {
      const nested = systemErrorCode(errors[0]);
      if (nested) return nested;
    }
    current = cause;
  }
  return undefined;
}

function statusOutcome(status: number): FailureOutcome {
  if (status >= 200 && status < 400) return 'committed';
  if (status === 429) return 'not-processed';
  if (AMBIGUOUS_STATUSES.has(status) || status >= 500) return 'ambiguous';
  return 'rejected';
}

/** Classifies a failure (this module's notes); an unexpected error counts as `ambiguous`. */
export function failureOutcome(error: unknown): FailureOutcome {
  if (error instanceof APIUserAbortError) return 'aborted';
  if (error instanceof APIError) return statusOutcome(error.status);
  if (error instanceof APIConnectionTimeoutError) return 'ambiguous';
  if (error instanceof APIConnectionError) {
    const code = error.code;
    return code !== undefined && (NOT_SENT_CODES.has(code) || TLS_CODE.test(code)) ? 'not-sent' : 'ambiguous';
  }
  if (error instanceof ResponseValidationError || error instanceof ResponseTooLargeError) {
    const outcome = statusOutcome(error.status);
    return outcome === 'rejected' ? 'ambiguous' : outcome;
  }
  // A create whose outcome was not known may have created a task: never a reason to send blindly.
  if (error instanceof TaskCreationOutcomeUnknownError) return 'ambiguous';
  if (error instanceof DeliveryError && error.name !== 'DeliveryError') return 'rejected';
  return 'ambiguous';
}

/** True for a failure worth another attempt of a safe operation: not sent, not processed, or ambiguous. */
export function isRetryable(error: unknown): boolean {
  const outcome = failureOutcome(error);
  return outcome === 'not-sent' || outcome === 'not-processed' || outcome === 'ambiguous';
}
