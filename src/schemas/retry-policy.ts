/** Whether an operation is retried (`idempotent`) or sent once (`never`); README "Retries and timeouts". */
export type RetryPolicy = 'idempotent' | 'never';
