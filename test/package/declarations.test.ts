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

/**
 * Runs tsc on `file` (holding `source`) in a new project that depends on the SDK (a link to this folder),
 * with `compilerOptions`; `inspect` reads the project before it is removed. tsc's exit code and output.
 */
async function compileConsumer(
  file: string,
  source: string,
  packageJson: string,
  compilerOptions: Record<string, unknown>,
  inspect: (directory: string) => void = () => {},
): Promise<{ code: number; stdout: string }> {
  const directory = mkdtempSync(join(tmpdir(), 'dts-consumer-'));
  try {
    mkdirSync(join(directory, 'node_modules'));
    symlinkSync(ROOT, join(directory, 'node_modules', 'delivery-task-sdk'), 'dir');
    writeFileSync(join(directory, 'package.json'), packageJson);
    writeFileSync(
      join(directory, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: 'es2022',
          typeRoots: [join(ROOT, 'node_modules', '@types')],
          ...compilerOptions,
        },
        files: [file],
      }),
    );
    writeFileSync(join(directory, file), source);
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const run = await promisify(execFile)(process.execPath, [tsc, '-p', directory], {
      timeout: 120_000,
    }).then(
      () => ({ code: 0, stdout: '' }),
      (error: { code?: number; stdout?: string }) => ({ code: error.code ?? 1, stdout: error.stdout ?? '' }),
    );
    if (run.code === 0) inspect(directory);
    return run;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

it('lets an app emit declarations of values typed through the resources and their constructors', async () => {
  let emitted = '';
  const run = await compileConsumer(
    'shop.ts',
    CONSUMER,
    '{ "name": "consumer", "type": "module", "private": true }',
    {
      module: 'nodenext',
      moduleResolution: 'nodenext',
      declaration: true,
      emitDeclarationOnly: true,
      outDir: 'out',
      skipLibCheck: true,
      types: [],
    },
    (directory) => {
      emitted = readFileSync(join(directory, 'out', 'shop.d.ts'), 'utf8');
    },
  );
  expect(run.stdout).toBe('');
  expect(run.code).toBe(0);
  expect(emitted).toContain('ResourceHandle');
}, 150_000);

/** A CommonJS file that imports an export of each entry `require` reaches. */
const COMMONJS_CONSUMER = `import { DeliveryClient } from 'delivery-task-sdk';
import { createMockDeliveryService } from 'delivery-task-sdk/testing';
import { createWebhookHandler } from 'delivery-task-sdk/webhooks';
import { redisStore } from 'delivery-task-sdk/redis';
import { postgresStore } from 'delivery-task-sdk/postgres';
import { kwd } from 'delivery-task-sdk/kwd';
import { TASK_STATUSES } from 'delivery-task-sdk/schemas';
export const used = [DeliveryClient, createMockDeliveryService, createWebhookHandler, redisStore, postgresStore, kwd, TASK_STATUSES];
`;

it('type-checks every CommonJS entry in a node16 project with skipLibCheck off, the testing entry (ESM-only msw) included', async () => {
  const run = await compileConsumer(
    'shop.cts',
    COMMONJS_CONSUMER,
    '{ "name": "consumer", "private": true }',
    {
      noEmit: true,
      module: 'node16',
      moduleResolution: 'node16',
      skipLibCheck: false,
      types: ['node'],
    },
  );
  expect(run.stdout).toBe('');
  expect(run.code).toBe(0);
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
