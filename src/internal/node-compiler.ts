/**
 * zod's schema compiler for the builds Node loads unbundled (the `node` condition of the main and webhooks
 * entries); bundlers take the `module` condition, without it (docs/performance.md
 * "Two builds").
 * @module
 */
import { compile } from 'zod/mini';
import { compiledCheck } from './copy-free.js';
import { useSchemaCompiler } from './validate.js';

/** Installs zod's compiler (`z.compile`) for every later parse of the SDK: schemas compiled on first use. */
export function useNodeSchemaCompiler(): void {
  useSchemaCompiler(compile, compiledCheck);
}
