import { defineConfig, type Options } from 'tsup';

/** Entries with declarations: `.d.ts` from the ESM build, `.d.cts` from the CommonJS one. */
const declaredEntries = {
  index: 'src/index.ts',
  testing: 'src/testing/index.ts',
  redis: 'src/redis.ts',
  postgres: 'src/postgres.ts',
  kwd: 'src/kwd.ts',
  webhooks: 'src/webhooks.ts',
  mcp: 'src/mcp/index.ts',
};

/** `@modelcontextprotocol/sdk` and its subpaths: the optional peer of `./mcp`, never bundled. */
const MCP_SDK = /^@modelcontextprotocol\/sdk(\/|$)/;

const shared: Options = {
  // No source maps in the package: they would point at ../src (and, for the CommonJS bundles, at ky's
  // sources in node_modules), neither of which is shipped, and they were 2.9 MB of the 4.6 MB unpacked.
  // The ESM build is one readable file per module under the source's own name, so a stack trace names
  // dist/webhooks/handler.js where the source is src/webhooks/handler.ts. scripts/check-publish.sh
  // fails if a shipped map points at a file that is not shipped.
  sourcemap: false,
  target: 'node22',
  platform: 'neutral',
  // msw is an optional peer used only by ./testing, @modelcontextprotocol/sdk one used only by ./mcp;
  // zod and ky are dependencies. ./redis imports neither ioredis nor redis, and ./postgres no pg (they
  // take the merchant's client), so they need no entry here.
  external: ['msw', 'msw/node', 'zod', 'ky', MCP_SDK],
};

/**
 * In CommonJS, the redis, webhooks and mcp entries require the main entry instead of carrying copies of
 * its modules, so a `ConfigurationError` they throw is `instanceof` the one `require('delivery-task-sdk')`
 * exports and a client passed to the webhook handler is recognised. (The ESM build is one file per
 * module, so every entry shares them already.)
 */
const sharedModulesFromMainEntry: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'shared-modules-from-main-entry',
  setup(build) {
    build.onResolve({ filter: /^(\.\.\/)+core\/errors\.js$/ }, (args) =>
      /\/src\/(mcp|redis|postgres)\//.test(args.importer) ? { path: './index.cjs', external: true } : undefined,
    );
    build.onResolve({ filter: /^\.\/webhooks\/index\.js$/ }, (args) =>
      args.importer.endsWith('/src/webhooks.ts') ? { path: './index.cjs', external: true } : undefined,
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

/**
 * The executable is three files: `dist/cli.js`, a few lines that pick the command; `dist/cli-main.js`,
 * every command but one; `dist/cli-mcp.js`, `delivery-task mcp`. An agent host starts `mcp` and waits
 * for its tool list, so that command loads (and compiles) nothing of the others, and they never load
 * the MCP SDK.
 */
const commandFiles: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'command-files',
  setup(build) {
    build.onResolve({ filter: /^\.\/(main|mcp)\.js$/ }, (args) =>
      /\/src\/cli\/(bin|main)\.ts$/.test(args.importer)
        ? { path: args.path === './main.js' ? './cli-main.js' : './cli-mcp.js', external: true }
        : undefined,
    );
  },
};

/** `require` for the CommonJS code bundled into an ES module (msw's `debug`, the MCP SDK's ajv). */
const REQUIRE_BANNER = "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);";

export default defineConfig([
  // ESM: one file per module (no bundling), so with `sideEffects: false` a bundler keeps only the
  // modules an app's imports reach: `import { kwd }` costs the kwd module alone.
  {
    ...shared,
    entry: ['src/**/*.ts', '!src/cli/**', '!src/openapi/**', '!src/testing/dashboard/**'],
    bundle: false,
    format: ['esm'],
    dts: { entry: declaredEntries },
    clean: true,
  },
  // CommonJS: bundled per entry. ky ships ESM only, so this build carries its own copy and `require`
  // works on every Node ≥ 22. The main entry is the Node one (zod's schema compiler installed).
  {
    ...shared,
    entry: { ...declaredEntries, index: 'src/index.node.ts' },
    format: ['cjs'],
    dts: { entry: declaredEntries },
    treeshake: true,
    external: ['msw', 'msw/node', 'zod', MCP_SDK],
    noExternal: ['ky'],
    esbuildPlugins: [sharedModulesFromMainEntry],
  },
  // The `delivery-task` executable (`commandFiles` above): ESM for Node, carrying msw (the sandbox serves
  // the mock) so `npx delivery-task` works in a project that has not installed the optional peer.
  {
    entry: { cli: 'src/cli/bin.ts', 'cli-main': 'src/cli/main.ts' },
    format: ['esm'],
    target: 'node22',
    platform: 'node',
    sourcemap: false,
    // esbuild's own tree shaking: tsup's rollup pass would rename the `require` the banner defines.
    treeshake: false,
    // CommonJS code msw still pulls in (@mswjs/interceptors → debug) calls require('tty'): an ES module
    // has no `require`, so the banner makes one (without it: "Dynamic require of "tty" is not supported").
    // No shared chunks: within a file, a command's modules (a dynamic import) are evaluated only when it runs.
    splitting: false,
    banner: { js: `#!/usr/bin/env node\n${REQUIRE_BANNER}` },
    external: ['zod', 'ky'],
    noExternal: ['msw'],
    esbuildPlugins: [mswNodeLeftOut, commandFiles],
  },
  // `delivery-task mcp`: one minified file with everything it runs (the client, zod, ky, the MCP SDK),
  // so an agent host gets its tool list fast (one file to load instead of some 300 modules) and the
  // executable works without the optional peer installed. ioredis and redis stay outside: `--redis`
  // loads whichever the project installed.
  {
    entry: { 'cli-mcp': 'src/cli/mcp.ts' },
    format: ['esm'],
    target: 'node22',
    platform: 'node',
    sourcemap: false,
    minify: true,
    splitting: false,
    treeshake: false,
    banner: { js: REQUIRE_BANNER },
    // tsup leaves dependencies and peer dependencies outside by default: these three come in.
    noExternal: ['zod', 'ky', MCP_SDK],
  },
]);
