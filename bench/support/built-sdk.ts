/**
 * The SDK as its package ships it, for the benches that set it beside other libraries: the files of `dist/`
 * that Node loads (the `node` condition, zod's schema compiler installed), not the sources. The benches
 * run under tsx, which compiles TypeScript keeping every function's name (esbuild's `keepNames`: a
 * property defined on each function as it is made, closures included), a cost the package does not have;
 * tsx leaves the JavaScript of `dist/` as it is. The peers' own code is their packages' JavaScript too.
 * @module
 */
import { builtAfterSource } from '../../test/support/build.js';

/** `dist/<file>` of the repository, as a URL to import. */
function built(file: string): string {
  return new URL(`../../dist/${file}`, import.meta.url).href;
}

/**
 * The main, webhooks, redis and postgres entries and the store module of the build, typed as their sources.
 * @throws {Error} when the build is missing or older than a source file (`npm run build` first): a bench of
 * stale code would measure the wrong thing in silence.
 */
export async function builtSdk(): Promise<{
  main: typeof import('../../src/index.node.js');
  webhooks: typeof import('../../src/webhooks.node.js');
  redis: typeof import('../../src/redis.js');
  postgres: typeof import('../../src/postgres.js');
  store: typeof import('../../src/core/store.js');
}> {
  if (!builtAfterSource('dist/index.node.js')) {
    throw new Error(
      'dist/ is missing or older than src/: run `npm run build` first (npm run bench:peers does)',
    );
  }
  const [main, webhooks, redis, postgres, store] = await Promise.all([
    import(built('index.node.js')),
    import(built('webhooks.node.js')),
    import(built('redis.js')),
    import(built('postgres.js')),
    import(built('core/store.js')),
  ]);
  return { main, webhooks, redis, postgres, store };
}
