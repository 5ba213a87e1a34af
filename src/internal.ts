/**
 * `delivery-task-sdk/internal`: what `delivery-task-tools` needs of the SDK and a merchant does not.
 * **Unstable**: outside semver, changed in any release; for `delivery-task-tools` of the same version,
 * which depends on this SDK's exact version. Do not import it from an application.
 *
 * It carries a client's resolved internals (seller id, redactor, logging), the store's key layout and
 * deadline, the redaction of secrets, the node HTTP plumbing of the mock's server and the bounded JSON
 * reading, and the reader of options (`readOptions`) with the pieces of options schemas.
 * @module delivery-task-sdk/internal
 */
export { OPERATION_NAMES } from './core/operations.js';
export {
  DEFAULT_STORE_TIMEOUT_MS,
  type StoreScope,
  storeKey,
  withStoreDeadline,
} from './core/store.js';
export { VERSION } from './core/version.js';
export {
  type ClientInternals,
  type ClientLogging,
  type ClientRedactor,
  clientInternalsOf,
} from './internal/client-internals.js';
export { describeIssues, type Parsed } from './internal/issues.js';
export { MAX_JSON_DEPTH, nestsDeeperThan } from './internal/json.js';
export {
  allowedHostsOption,
  answerBadTarget,
  answerBodyTooLarge,
  answerFailure,
  BodyTooLargeError,
  closeServer,
  DEFAULT_MAX_BODY_BYTES,
  hostOption,
  isAllowedHost,
  listenOn,
  readBody,
  requestTarget,
} from './internal/node-http.js';
export {
  accepted,
  flag,
  hook,
  isDeliveryStore,
  oneOf,
  optionsObject,
  storeOption,
  upTo,
  wholeNumber,
} from './internal/option-checks.js';
export { invalidOption, readOptions, shownValue } from './internal/read-options.js';
export { REDACTED, Redactor, SECRET_HEADERS } from './internal/redact.js';
