/**
 * What the package costs an app: bundle sizes per import (esbuild, minified, gzip -9, dependencies
 * included; the figures `npm run check:bundle` holds to budgets), what the main entry's bundle is made
 * of, and the cold import time of the Node build against importing zod alone. Needs `npm run build`
 * first. Run alone with `npx tsx bench/bundle.ts`.
 * @module
 */
import { execFileSync } from 'node:child_process';
import { importSize, kb } from './support/bundle-size.js';
import { median, spread } from './support/stats.js';

/** Import statements measured, with the issue's goals where it sets one. */
const IMPORTS: readonly (readonly [statement: string, goal: string])[] = [
  ["import { DeliveryClient } from 'delivery-task-sdk'", 'goal ≤ 30 KB'],
  ["import { kwd } from 'delivery-task-sdk'", 'goal ≤ 3 KB'],
  ["import { kwd } from 'delivery-task-sdk/kwd'", 'goal ≤ 3 KB'],
  ["import { createWebhookHandler } from 'delivery-task-sdk/webhooks'", ''],
  ["import { createMockDeliveryService } from 'delivery-task-sdk/testing'", 'node platform, msw included'],
  ["import ky from 'ky'", 'anchor: ky alone, the transport the main entry sends with'],
  ["import { looseObject } from 'zod/mini'", 'anchor: the core every zod/mini schema needs'],
];

/** The package a bundled module comes from: `zod`, or `delivery-task-sdk` for the package's own `dist/`. */
function packageOf(module: string): string {
  return (
    /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(module)?.[1] ??
    (module.startsWith('dist/') ? 'delivery-task-sdk' : module)
  );
}

/**
 * What the main entry's bundle is made of: minified bytes per package and the largest modules. Shares of
 * the minified size; gzip compresses every part about alike (3 to 1).
 */
export async function printMainEntryModules(count = 16): Promise<void> {
  const { modules, minified, gzip } = await importSize("import { DeliveryClient } from 'delivery-task-sdk'");
  const byPackage = new Map<string, number>();
  for (const [module, bytes] of modules)
    byPackage.set(packageOf(module), (byPackage.get(packageOf(module)) ?? 0) + bytes);
  const share = (bytes: number) =>
    `${kb(bytes).padStart(8)} min (${((100 * bytes) / minified).toFixed(0).padStart(2)} %, ~${kb((bytes * gzip) / minified)} gzip)`;
  console.log(`import { DeliveryClient }: ${kb(gzip)} gzip, ${kb(minified)} min, by package:`);
  for (const [name, bytes] of [...byPackage].sort((a, b) => b[1] - a[1]))
    console.log(`  ${share(bytes)}  ${name}`);
  console.log(`its ${count} largest modules:`);
  for (const [module, bytes] of modules.slice(0, count)) console.log(`  ${share(bytes)}  ${module}`);
}

/** Prints the bundle sizes. */
export async function printBundleSizes(): Promise<void> {
  console.log('Bundle sizes (esbuild, minified, gzip -9, dependencies included):');
  for (const [statement, goal] of IMPORTS) {
    const size = await importSize(statement, statement.includes('/testing') ? 'node' : 'browser');
    console.log(
      `  ${kb(size.gzip).padStart(8)} gzip ${kb(size.minified).padStart(9)} min  ${statement}${goal ? `  (${goal})` : ''}`,
    );
  }
}

/** Milliseconds to `import()` the given specifiers in a fresh Node process (startup excluded). */
function coldImportMs(specifiers: readonly string[]): number {
  const script = `const t = performance.now(); for (const s of ${JSON.stringify(specifiers)}) await import(s); console.log(performance.now() - t);`;
  return Number(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim(),
  );
}

/** Prints cold import times, interleaved over `rounds` fresh processes each. */
export function printColdImport(rounds = 7): void {
  const variants = {
    sdk: ['delivery-task-sdk'],
    zodMini: ['zod/mini'],
    zod: ['zod'],
  } as const;
  const times: Record<keyof typeof variants, number[]> = { sdk: [], zodMini: [], zod: [] };
  for (let round = 0; round < rounds; round++) {
    for (const name of Object.keys(variants) as (keyof typeof variants)[])
      times[name].push(coldImportMs(variants[name]));
  }
  console.log(`Cold import in a fresh Node ${process.version} process, ms, median (min–max) of ${rounds}:`);
  console.log(`  delivery-task-sdk (Node build)   ${spread(times.sdk, 1)}`);
  console.log(`  zod/mini alone (its dependency)  ${spread(times.zodMini, 1)}`);
  console.log(`  zod (classic) alone              ${spread(times.zod, 1)}`);
  console.log(`  SDK / zod/mini = ${(median(times.sdk) / median(times.zodMini)).toFixed(2)}×`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await printBundleSizes();
  console.log();
  await printMainEntryModules();
  printColdImport();
}
