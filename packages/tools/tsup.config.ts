import { defineConfig, type Options } from 'tsup';

/** The SDK and its subpaths: a dependency, never bundled (one copy in node_modules keeps `instanceof` shared). */
const SDK = /^delivery-task-sdk(\/|$)/;
/** `@modelcontextprotocol/sdk` and its subpaths. */
const MCP_SDK = /^@modelcontextprotocol\/sdk(\/|$)/;

/**
 * The executable is five files: `dist/cli.js`, a few lines that pick the command; `dist/cli-main.js`, the
 * operator commands, `--help` and `--version`; `dist/cli-sandbox.js` and `dist/cli-openapi.js`, loaded by
 * it for their command; `dist/cli-mcp.js`, `delivery-task mcp`, so an agent host waiting for the tool
 * list loads nothing of the other commands, and they never load the MCP SDK.
 */
const commandFiles: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'command-files',
  setup(build) {
    build.onResolve({ filter: /^\.\/(cli\/)?(main|mcp)\.js$/ }, (args) =>
      /\/src\/(cli|cli\/main)\.ts$/.test(args.importer)
        ? { path: args.path.endsWith('main.js') ? './cli-main.js' : './cli-mcp.js', external: true }
        : undefined,
    );
  },
};

/** `require` for the CommonJS code bundled into an ES module (the MCP SDK's ajv). */
const REQUIRE_BANNER =
  "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);";

const shared: Options = {
  format: ['esm'],
  target: 'node22',
  platform: 'node',
  sourcemap: false,
  external: [SDK],
  // Resolves the SDK through node_modules (its built types), not the sources tests use.
  tsconfig: 'tsconfig.build.json',
};

export default defineConfig([
  // The library entries `delivery-task-tools/sandbox` and `delivery-task-tools/mcp`.
  {
    ...shared,
    entry: { sandbox: 'src/sandbox.ts', mcp: 'src/mcp.ts' },
    dts: true,
  },
  {
    ...shared,
    entry: { cli: 'src/cli.ts', 'cli-main': 'src/cli/main.ts' },
    // esbuild's own tree shaking. Split: each command's dynamic import is a file of its own
    // (`cli-sandbox.js`, `cli-openapi.js`, beside `cli-main.js`, where the sandbox finds its dashboard)
    // that imports the packages it needs, so no command loads another's packages (msw, for the sandbox)
    // at start: in one file their imports would all be hoisted to its top. Names without a hash, so a
    // build replaces the last one's files (two chunks of one name fail the build).
    treeshake: false,
    splitting: true,
    banner: { js: '#!/usr/bin/env node' },
    esbuildPlugins: [commandFiles],
    esbuildOptions(options) {
      options.chunkNames = 'cli-[name]';
    },
  },
  // `delivery-task mcp`: one minified file with everything it runs (the SDK's client, zod, ky, the MCP SDK),
  // so an agent host gets its tool list fast (one file to load instead of some 300 modules). ioredis
  // and redis stay outside: `--redis` loads whichever the project installed.
  {
    ...shared,
    entry: { 'cli-mcp': 'src/cli/mcp.ts' },
    minify: true,
    splitting: false,
    treeshake: false,
    banner: { js: REQUIRE_BANNER },
    noExternal: [MCP_SDK, SDK, 'zod', 'ky'],
  },
]);
