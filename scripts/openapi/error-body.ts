/**
 * The error body of the OpenAPI document. The spec leaves the error format open (README "Errors": "Error body
 * format and error status codes: not shown"); the SDK chooses `{ message, code }` and the mock
 * sends exactly that on every error. The SDK itself is more tolerant (it reads `message`, `error`,
 * `error.message`, `errors[0].message` or the text) and so has no schema for it: this one exists only to
 * describe the chosen contract.
 * @module
 */
import * as z from 'zod';

/** An error answer: a human-readable `message` and a machine-readable `code`; other fields are allowed. */
export const ErrorBody = z.looseObject({
  /** What went wrong, for people (`"Task not found"`). Never contains the API key or the seller id. */
  message: z.string(),
  /** What went wrong, for programs: `BAD_REQUEST`, `UNAUTHORIZED`, `INSUFFICIENT_BALANCE`, `NOT_FOUND`, … */
  code: z.string(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;
