/**
 * `delivery-task-sdk/webhooks` for runtimes that load the package unbundled (the `node` condition), with
 * zod's schema compiler installed: each webhook body (received, or claimed from an inbox) is checked by the
 * compiled schema. Bundlers take the `module` condition, without it.
 * @module delivery-task-sdk/webhooks
 */
import { useNodeSchemaCompiler } from './internal/node-compiler.js';

useNodeSchemaCompiler();

export * from './webhooks.js';
