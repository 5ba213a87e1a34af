/**
 * Whether an operation may be sent again after a failure (README "Retries and timeouts"): `idempotent` operations
 * are retried, `never` ones are sent once.
 */
export type RetryPolicy = 'idempotent' | 'never';
