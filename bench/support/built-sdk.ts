/**
 * The SDK as its package ships it, for the benches that set it beside other libraries: the files of `dist/`
 * that Node loads (the `node` condition, zod's schema compiler installed), not the sources. The benches
 * run under tsx, which compiles TypeScript keeping every function's name (esbuild's `keepNames`: a
 * property defined on each function as it is made, closures included), a cost the package does not have;
 * tsx leaves the JavaScript of `dist/` as it is. The peers' own code is their packages' JavaScript too.
 * @module
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { builtAfterSource } from '../../test/support/build.js';

/** `<folder>/<file>` of the repository, as a URL to import. */
function built(folder: string, file: string): string {
  return new URL(`../../${folder}/${file}`, import.meta.url).href;
}

/**
 * The main, webhooks, redis and postgres entries and the store module of the build, typed as their sources.
 * `folder`: the build's folder in the repository, `dist` unless a bench sets an earlier build beside it (a
 * copy of `dist/` made inside the repository, so its imports of ky and zod resolve from `node_modules`).
 * @throws {Error} when `dist/` is missing or older than a source file (`npm run build` first): a bench of
 * stale code would measure the wrong thing in silence; for another folder, when it holds no build.
 */
export async function builtSdk(folder = 'dist'): Promise<{
  main: typeof import('../../src/index.node.js');
  webhooks: typeof import('../../src/webhooks.node.js');
  redis: typeof import('../../src/redis.js');
  postgres: typeof import('../../src/postgres.js');
  store: typeof import('../../src/core/store.js');
}> {
  if (folder === 'dist' && !builtAfterSource('dist/index.node.js')) {
    throw new Error(
      'dist/ is missing or older than src/: run `npm run build` first (npm run bench:peers does)',
    );
  }
  if (folder !== 'dist' && !existsSync(fileURLToPath(built(folder, 'index.node.js')))) {
    throw new Error(`${folder}/ holds no build: copy one there (cp -r dist ${folder}) first`);
  }
  const [main, webhooks, redis, postgres, store] = await Promise.all([
    import(built(folder, 'index.node.js')),
    import(built(folder, 'webhooks.node.js')),
    import(built(folder, 'redis.js')),
    import(built(folder, 'postgres.js')),
    import(built(folder, 'core/store.js')),
  ]);
  return { main, webhooks, redis, postgres, store };
}
