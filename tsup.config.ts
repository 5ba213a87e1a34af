import { defineConfig, type Options } from 'tsup';

/**
 * Entries with declarations: `.d.ts` from the ESM build; the CommonJS entries' `.d.cts` are copies of them
 * (scripts/build-cjs-declarations.ts, run by `npm run build` after tsup).
 */
const declaredEntries = {
  index: 'src/index.ts',
  testing: 'src/testing.ts',
  redis: 'src/redis.ts',
  postgres: 'src/postgres.ts',
  kwd: 'src/kwd.ts',
  webhooks: 'src/webhooks.ts',
  schemas: 'src/schemas.ts',
  internal: 'src/internal.ts',
};

const shared: Options = {
  // No source maps in the package: they would point at ../src (and, for the CommonJS bundles, at ky's
  // sources in node_modules), neither of which is shipped, and they were 2.9 MB of the 4.6 MB unpacked.
  // The ESM build is one readable file per module under the source's own name, so a stack trace names
  // dist/webhooks/handler.js where the source is src/webhooks/handler.ts. scripts/check-publish.sh
  // fails if a shipped map points at a file that is not shipped.
  sourcemap: false,
  target: 'node22',
  platform: 'neutral',
  // msw is an optional peer used only by ./testing; zod and ky are dependencies. ./redis imports neither ioredis nor redis, and ./postgres no pg (they
  // take the merchant's client), so they need no entry here.
  external: ['msw', 'msw/node', 'zod', 'ky'],
};

/**
 * In CommonJS, the redis and postgres entries require the main entry's error classes instead of carrying
 * copies, so a `ConfigurationError` they throw is the very class `require('delivery-task-sdk')` exports.
 * Used by their own build, where every import of the errors (theirs and the option readers') is the main
 * entry's. (The ESM build is one file per module, so every entry shares them already; `instanceof` holds
 * across copies too, and a client's internals are read under a registered symbol.)
 */
const errorsFromMainEntry: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'errors-from-main-entry',
  setup(build) {
    build.onResolve({ filter: /^(\.\.\/)+core\/errors\.js$/ }, () => ({
      path: './index.cjs',
      external: true,
    }));
  },
};

/**
 * `./internal` is what delivery-task-tools (ESM only) imports of the SDK, so it ships as ESM alone: a
 * CommonJS copy would be 52 KB of the package that nothing requires.
 */
const { internal: _esmOnly, ...requirableEntries } = declaredEntries;
const { redis, postgres, ...mainEntries } = requirableEntries;

export default defineConfig([
  // ESM: one file per module (no bundling), so with `sideEffects: false` a bundler keeps only the
  // modules an app's imports reach: `import { kwd }` costs the kwd module alone.
  {
    ...shared,
    entry: ['src/**/*.ts'],
    bundle: false,
    format: ['esm'],
    dts: { entry: declaredEntries },
    clean: true,
  },
  // CommonJS: bundled per entry. ky ships ESM only, so this build carries its own copy and `require`
  // works on every Node ≥ 22. The main and webhooks entries are the Node ones (zod's schema compiler
  // installed).
  // Whitespace and syntax are minified, names are kept (a stack trace still names each function): 130 KB
  // less of the package's 1.5 MB unpacked (index.cjs 307 → 212 KB), which ships the guides of docs/ too.
  {
    ...shared,
    entry: { ...mainEntries, index: 'src/index.node.ts', webhooks: 'src/webhooks.node.ts' },
    format: ['cjs'],
    minifyWhitespace: true,
    minifySyntax: true,
    treeshake: true,
    external: ['msw', 'msw/node', 'zod'],
    noExternal: ['ky'],
  },
  // The store entries in CommonJS, built apart so every import of the errors is the main entry's.
  {
    ...shared,
    entry: { redis, postgres },
    format: ['cjs'],
    minifyWhitespace: true,
    minifySyntax: true,
    treeshake: true,
    external: ['zod'],
    esbuildPlugins: [errorsFromMainEntry],
  },
]);
