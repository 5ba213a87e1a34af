/**
 * delivery-task-sdk for Node.js and other runtimes that load the package unbundled (the `node`
 * export condition): everything of the main entry, with zod's schema compiler installed so responses,
 * parameters and webhooks are parsed about 8× faster. Bundlers take the `module` condition instead and
 * get the main entry without the compiler, 9 KB gzip smaller.
 * @module
 */
import { compile } from 'zod/mini';
import { compiledCheck } from './internal/copy-free.js';
import { useSchemaCompiler } from './internal/validate.js';

useSchemaCompiler(compile, compiledCheck);

export * from './index.js';
