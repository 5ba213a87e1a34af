/**
 * The shipped declarations (`dist/*.d.ts`, built by `npm run build`): portable for an app that emits its
 * own declarations from types it infers through the SDK (no TS2742 / TS4023 naming a type the package
 * does not export), and citing README sections rather than source files, which do not ship.
 */
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, builtAfterSource, ensureBuilt } from '../support/build.js';
import { ROOT } from '../support/root.js';

beforeAll(async () => {
  await ensureBuilt(() => builtAfterSource('dist/index.d.ts') && builtAfterSource('dist/testing.d.ts'));
}, BUILD_TIMEOUT_MS);

/** A consumer whose exported values take their types from the SDK's resources, constructors included. */
const CONSUMER = `import { DeliveryClient, Tasks, Branches, Wallet } from 'delivery-task-sdk';
import { createMockDeliveryService } from 'delivery-task-sdk/testing';
export const client = new DeliveryClient({ apiKey: 'k', sellerId: 's', baseUrl: 'http://127.0.0.1:1' });
export const resources = { tasks: client.tasks, branches: client.branches, wallet: client.wallet };
export const listing = () => client.tasks.list();
export const balance = () => client.wallet.retrieveBalance().withResponse();
export const mock = createMockDeliveryService();
export const tasksHandle = (...args: ConstructorParameters<typeof Tasks>) => args[0];
export const branchesHandle = (...args: ConstructorParameters<typeof Branches>) => args[0];
export const walletHandle = (...args: ConstructorParameters<typeof Wallet>) => args[0];
`;

it('lets an app emit declarations of values typed through the resources and their constructors', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'dts-consumer-'));
  try {
    mkdirSync(join(directory, 'node_modules'));
    symlinkSync(ROOT, join(directory, 'node_modules', 'delivery-task-sdk'), 'dir');
    writeFileSync(
      join(directory, 'package.json'),
      '{ "name": "consumer", "type": "module", "private": true }',
    );
    writeFileSync(
      join(directory, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          declaration: true,
          emitDeclarationOnly: true,
          outDir: 'out',
          skipLibCheck: true,
          types: [],
          typeRoots: [join(ROOT, 'node_modules', '@types')],
        },
        include: ['shop.ts'],
      }),
    );
    writeFileSync(join(directory, 'shop.ts'), CONSUMER);
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const run = await promisify(execFile)(process.execPath, [tsc, '-p', directory], {
      timeout: 120_000,
    }).then(
      () => ({ code: 0, stdout: '' }),
      (error: { code?: number; stdout?: string }) => ({ code: error.code ?? 1, stdout: error.stdout ?? '' }),
    );
    expect(run.stdout).toBe('');
    expect(run.code).toBe(0);
    expect(readFileSync(join(directory, 'out', 'shop.d.ts'), 'utf8')).toContain('ResourceHandle');
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}, 150_000);

it('cites no source file in the shipped declarations', () => {
  const cited: string[] = [];
  for (const entry of readdirSync(join(ROOT, 'dist'), { withFileTypes: true, recursive: true })) {
    if (!/\.d\.c?ts$/.test(entry.name)) continue;
    const text = readFileSync(join(entry.parentPath, entry.name), 'utf8');
    for (const match of text.matchAll(/`(?:src\/)?[\w./-]+(?<!\.d)\.ts`/g))
      cited.push(`${entry.name}: ${match[0]}`);
  }
  expect(cited).toEqual([]);
});

/** Every string in `value` (the manifest's `exports` conditions, `typesVersions` lists), depth first. */
function manifestPaths(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(manifestPaths);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(manifestPaths);
  return [];
}

it('names in its manifest only files the build writes', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
  const named = [
    ...manifestPaths([manifest.main, manifest.module, manifest.types]),
    ...manifestPaths(manifest.exports),
    ...manifestPaths(manifest.typesVersions),
  ];
  // Every entry has an ESM and a CommonJS file of each kind, and typesVersions maps each subpath.
  expect(named.length).toBeGreaterThan(30);
  expect(named.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
});
