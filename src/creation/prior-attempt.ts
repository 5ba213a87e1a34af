/**
 * What creation and the order's lease share: when an earlier attempt may have created the task, and the
 * check the lease holder runs before each POST.
 * @module
 */

/** When an earlier attempt of the order may have created its task. */
export interface PriorAttempt {
  /** When sending began, ms since the epoch: the start of the order's time window. */
  since: number;
  /** When a lookup can decide, ms since the epoch: the last moment a POST may have reached the service plus `listingDelayMs`. */
  decidableAt: number;
}

/** What the holder of an order's lease checks before each POST. */
export interface SendGuard {
  /**
   * Throws when the lease was lost (before the first POST `StoreUnavailableError`, before a resend
   * `TaskCreationOutcomeUnknownError`); else makes sure the record covers this POST's flight (`timeoutMs`,
   * default the client's attempt timeout).
   */
  beforeAttempt(resend: boolean, timeoutMs?: number): Promise<void>;
}
