/**
 * The main entry for runtimes that load the package unbundled (the `node` condition), with zod's schema
 * compiler installed. Bundlers take the `module` condition, without it.
 * @module
 */
import { compile } from 'zod/mini';
import { compiledCheck } from './internal/copy-free.js';
import { useSchemaCompiler } from './internal/validate.js';

useSchemaCompiler(compile, compiledCheck);

export * from './index.js';
