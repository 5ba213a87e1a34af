/** Every failure the SDK surfaces is a {@link DeliveryError} (README "Errors"). @module */
export * from './errors/api-errors.js';
export * from './errors/classes.js';
export { type APIErrorInit, serverMessageOf, type ValidationIssue } from './errors/messages.js';
