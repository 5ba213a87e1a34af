import { defineConfig, type Options } from 'tsup';

const shared: Options = {
  entry: { index: 'src/index.ts', testing: 'src/testing/index.ts' },
  dts: true,
  sourcemap: true,
  target: 'node22',
  platform: 'neutral',
  treeshake: true,
  // msw is an optional peer used only by ./testing; zod and ky are dependencies.
  external: ['msw', 'msw/node', 'zod', 'ky'],
};

export default defineConfig([
  { ...shared, format: ['esm'], clean: true },
  // ky ships ESM only: the CommonJS build carries its own copy so `require` works on every Node ≥ 22.
  { ...shared, format: ['cjs'], external: ['msw', 'msw/node', 'zod'], noExternal: ['ky'] },
]);
