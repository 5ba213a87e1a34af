/**
 * The main entry for runtimes that load the package unbundled (the `node` condition), with zod's schema
 * compiler installed. Bundlers take the `module` condition, without it.
 * @module
 */
import { useNodeSchemaCompiler } from './internal/node-compiler.js';

useNodeSchemaCompiler();

export * from './index.js';
