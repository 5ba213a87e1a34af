/**
 * What the package costs an app: bundle sizes per import (esbuild, minified, gzip -9, dependencies
 * included; the figures `npm run check:bundle` holds to budgets) and the cold import time of the Node
 * build against importing its two dependencies alone. Needs `npm run build` first. Run alone with
 * `npx tsx bench/bundle.ts`.
 * @module
 */
import { execFileSync } from 'node:child_process';
import { importSize, kb } from './support/bundle-size.js';
import { median, spread } from './support/stats.js';

/** Import statements measured, with the issue's goals where it sets one. */
const IMPORTS: readonly (readonly [statement: string, goal: string])[] = [
  ["import { DeliveryClient } from 'delivery-task-sdk'", 'goal ≤ 20 KB'],
  ["import { kwd } from 'delivery-task-sdk'", 'goal ≤ 3 KB'],
  ["import { kwd } from 'delivery-task-sdk/kwd'", 'goal ≤ 3 KB'],
  ["import { createWebhookHandler } from 'delivery-task-sdk/webhooks'", ''],
  ["import { createMockDeliveryService } from 'delivery-task-sdk/testing'", 'node platform, msw included'],
  ["import ky from 'ky'", 'anchor'],
  ["import { looseObject } from 'zod/mini'", 'anchor: the core every zod/mini schema needs'],
];

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
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim());
}

/** Prints cold import times, interleaved over `rounds` fresh processes each. */
export function printColdImport(rounds = 7): void {
  const variants = {
    sdk: ['delivery-task-sdk'],
    kyAndZodMini: ['ky', 'zod/mini'],
    kyAndZod: ['ky', 'zod'],
  } as const;
  const times: Record<keyof typeof variants, number[]> = { sdk: [], kyAndZodMini: [], kyAndZod: [] };
  for (let round = 0; round < rounds; round++) {
    for (const name of Object.keys(variants) as (keyof typeof variants)[])
      times[name].push(coldImportMs(variants[name]));
  }
  console.log(`Cold import in a fresh Node ${process.version} process, ms, median (min–max) of ${rounds}:`);
  console.log(`  delivery-task-sdk (Node build)   ${spread(times.sdk, 1)}`);
  console.log(`  ky + zod/mini alone              ${spread(times.kyAndZodMini, 1)}`);
  console.log(`  ky + zod (classic) alone         ${spread(times.kyAndZod, 1)}`);
  console.log(`  SDK / (ky + zod/mini) = ${(median(times.sdk) / median(times.kyAndZodMini)).toFixed(2)}×`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await printBundleSizes();
  printColdImport();
}
