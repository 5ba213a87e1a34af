/** Exit codes of the operator commands by error class: one table for `--help`, docs/cli.md ("Exit codes"). */
import { APIError, DeliveryError } from 'delivery-task-sdk';
import { UsageError } from './args.js';

/** One row of the exit-code table. */
export interface ExitCodeEntry {
  /** The process exit code. */
  readonly code: number;
  /** What it means for the operator, in a few words. */
  readonly meaning: string;
  /** The SDK error classes that end a command with this code. */
  readonly errors: readonly DeliveryError['name'][];
}

/** Every exit code, smallest first; an error class not listed exits with 1. */
export const EXIT_CODES: readonly ExitCodeEntry[] = [
  { code: 0, meaning: 'done', errors: [] },
  {
    code: 1,
    meaning: 'unexpected: a bug, or an answer the SDK cannot use',
    errors: [
      'ResponseValidationError',
      'ResponseTooLargeError',
      'PaginationLimitError',
      'ConflictError',
      'APIError',
    ],
  },
  {
    code: 2,
    meaning: 'usage or bad input: arguments, the order file, parameters refused, configuration missing',
    errors: ['RequestValidationError', 'ConfigurationError', 'BadRequestError', 'UnprocessableEntityError'],
  },
  {
    code: 3,
    meaning: 'authentication: the API key or seller id was refused',
    errors: ['AuthenticationError', 'PermissionDeniedError'],
  },
  { code: 4, meaning: 'not found', errors: ['NotFoundError'] },
  {
    code: 5,
    meaning: 'wallet balance too low to create the task (no task, no fee)',
    errors: ['InsufficientBalanceError'],
  },
  {
    code: 6,
    meaning: 'temporary: rate limited, service or connection failure; try again later',
    errors: [
      'RateLimitError',
      'InternalServerError',
      'APIConnectionError',
      'APIConnectionTimeoutError',
      'StoreUnavailableError',
    ],
  },
  {
    code: 7,
    meaning: 'create needs a look: outcome unknown, or several tasks carry the order number',
    errors: ['TaskCreationOutcomeUnknownError', 'DuplicateTaskError'],
  },
  { code: 8, meaning: 'tasks watch: no final status before --timeout', errors: ['StatusWaitTimeoutError'] },
  { code: 130, meaning: 'interrupted (Ctrl-C or SIGTERM)', errors: ['APIUserAbortError'] },
];

/** Exit code: success. */
export const EXIT_OK = 0;
/** Exit code: unexpected failure. */
export const EXIT_UNEXPECTED = 1;
/** Exit code: usage or bad input. */
export const EXIT_USAGE = 2;
/** Exit code: a temporary failure worth trying again (the watch loop keeps polling through these). */
export const EXIT_TEMPORARY = 6;
/** Exit code: a create whose outcome needs a look. */
export const EXIT_CREATE_UNCERTAIN = 7;
/** Exit code: interrupted by the operator. */
export const EXIT_INTERRUPTED = 130;

const BY_NAME: ReadonlyMap<string, number> = new Map(
  EXIT_CODES.flatMap((entry) => entry.errors.map((name) => [name, entry.code] as const)),
);

/**
 * The exit code for an error: {@link UsageError} → 2, else by class ({@link EXIT_CODES}); `interrupted`: 130
 * unless a create's outcome is
 * unknown (7); a plain `APIError` 404 (wrong `DELIVERY_BASE_URL`) → 2; anything else → 1.
 */
export function exitCodeOf(error: unknown, interrupted = false): number {
  if (error instanceof UsageError) return EXIT_USAGE;
  if (error instanceof APIError && error.name === 'APIError' && error.status === 404) {
    return interrupted ? EXIT_INTERRUPTED : EXIT_USAGE;
  }
  const code =
    error instanceof DeliveryError ? (BY_NAME.get(error.name) ?? EXIT_UNEXPECTED) : EXIT_UNEXPECTED;
  if (interrupted && code !== EXIT_CREATE_UNCERTAIN) return EXIT_INTERRUPTED;
  return code;
}
