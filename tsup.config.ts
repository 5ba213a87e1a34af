import { defineConfig, type Options } from 'tsup';

const shared: Options = {
  entry: { index: 'src/index.ts', testing: 'src/testing/index.ts', redis: 'src/redis.ts' },
  dts: true,
  sourcemap: true,
  target: 'node22',
  platform: 'neutral',
  treeshake: true,
  // msw is an optional peer used only by ./testing; zod and ky are dependencies. ./redis imports
  // neither ioredis nor redis (it takes the merchant's client), so they need no entry here.
  external: ['msw', 'msw/node', 'zod', 'ky'],
};

/**
 * In CommonJS, ./redis requires the main entry for the error classes instead of carrying copies, so a
 * `ConfigurationError` it throws is `instanceof` the one `require('delivery-task-sdk')` exports. (The
 * ESM build shares them through a chunk by itself.)
 */
const redisErrorsFromMainEntry: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'redis-errors-from-main-entry',
  setup(build) {
    build.onResolve({ filter: /^\.\/errors\.js$/ }, (args) =>
      args.importer.endsWith('/src/redis.ts') ? { path: './index.cjs', external: true } : undefined,
    );
  },
};

/**
 * The executable serves the mock over its own HTTP server and never intercepts requests, so it leaves
 * out `msw/node` (`setupServer`, used only by `mock.listen()`): that module pulls in @mswjs/interceptors,
 * whose CommonJS `debug` calls `require('tty')` and whose HTTP parser reads `llhttp.wasm` beside its own
 * file, and neither survives bundling into one ESM file.
 */
const mswNodeLeftOut: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'msw-node-left-out',
  setup(build) {
    build.onResolve({ filter: /^msw\/node$/ }, () => ({ path: 'msw/node', namespace: 'msw-node-left-out' }));
    build.onLoad({ filter: /.*/, namespace: 'msw-node-left-out' }, () => ({
      contents:
        "export function setupServer() { throw new Error('mock.listen() is not available in the delivery-task executable'); }",
      loader: 'js',
    }));
  },
};

export default defineConfig([
  { ...shared, format: ['esm'], clean: true },
  // ky ships ESM only: the CommonJS build carries its own copy so `require` works on every Node ≥ 22.
  {
    ...shared,
    format: ['cjs'],
    external: ['msw', 'msw/node', 'zod'],
    noExternal: ['ky'],
    esbuildPlugins: [redisErrorsFromMainEntry],
  },
  // The `delivery-task` executable: one ESM file for Node, carrying msw (the sandbox serves the mock) so
  // `npx delivery-task` works in a project that has not installed the optional peer.
  {
    entry: { cli: 'src/cli/bin.ts' },
    format: ['esm'],
    target: 'node22',
    platform: 'node',
    sourcemap: true,
    // esbuild's own tree shaking: tsup's rollup pass would rename the `require` the banner defines.
    treeshake: false,
    // CommonJS code msw still pulls in (@mswjs/interceptors → debug) calls require('tty'): an ES module
    // has no `require`, so the banner makes one (without it: "Dynamic require of "tty" is not supported").
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);",
    },
    external: ['zod', 'ky'],
    noExternal: ['msw'],
    esbuildPlugins: [mswNodeLeftOut],
  },
]);
