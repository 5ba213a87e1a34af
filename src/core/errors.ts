/** Every failure the SDK surfaces is a {@link DeliveryError} (README "Errors"). @module */
export * from './errors/classes.js';
export * from './errors/guards.js';
export type { DeliveryErrorName } from './errors/kinds.js';
export { type APIErrorInit, serverMessageOf, type ValidationIssue } from './errors/messages.js';
