/**
 * Type-checks every ```ts block of README.md and of the guides in docs/ against the SDK's source
 * (`npm run check:readme`), so the documentation cannot drift from the API. Each block becomes its own
 * module, named after its file and line; names a snippet takes from its surroundings (an Express `app`,
 * your `orders` service, Bun, Deno…) are declared in a prelude. One `tsc` run checks them all.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';

const directory = '.readme-check';
const sources = [
  'README.md',
  'packages/tools/README.md',
  ...readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => join('docs', name)),
];
const blocks = sources.flatMap((source) => {
  const text = readFileSync(source, 'utf8');
  return [...text.matchAll(/^( *)```ts\n([\s\S]*?)^\1```/gm)].map((match) => {
    const indent = match[1] ?? '';
    const line = text.slice(0, match.index).split('\n').length;
    const code = (match[2] ?? '')
      .split('\n')
      .map((each) => (each.startsWith(indent) ? each.slice(indent.length) : each))
      .join('\n');
    return { source, line, code };
  });
});

const prelude = `
import type { DeliveryClient } from 'delivery-task-sdk';
import type { WebhookHandler } from 'delivery-task-sdk/webhooks';
declare global {
  const client: DeliveryClient;
  const handler: WebhookHandler;
  const orders: { setDeliveryStatus(taskId: string, status: string): Promise<void> };
  const log: { error(fields: Record<string, unknown>): void };
  const id: string;
  const signal: AbortSignal;
  const lastReconcile: string;
  const app: import('express').Express;
  const express: typeof import('express');
  const fastify: import('fastify').FastifyInstance;
  const hono: import('hono').Hono;
  function after(task: Promise<unknown>): void;
  const Bun: { serve(options: { fetch(request: Request): Response | Promise<Response> }): unknown };
  const Deno: { serve(handler: (request: Request) => Response | Promise<Response>): unknown };
  interface ExecutionContext { waitUntil(promise: Promise<unknown>): void }
}
export {};
`;

rmSync(directory, { recursive: true, force: true });
mkdirSync(directory);
writeFileSync(join(directory, 'prelude.d.ts'), prelude);
const files = blocks.map((block, index) => {
  const file = `block-${String(index + 1).padStart(3, '0')}-${basename(block.source, '.md')}-line-${block.line}.ts`;
  writeFileSync(join(directory, file), `${block.code}\nexport {};\n`);
  return file;
});
writeFileSync(
  join(directory, 'tsconfig.json'),
  JSON.stringify(
    {
      extends: '../tsconfig.json',
      compilerOptions: {
        noUnusedLocals: false,
        // every entry the guides import, the paths of ../tsconfig.json included
        paths: {
          'delivery-task-sdk': ['../src/index.ts'],
          'delivery-task-sdk/testing': ['../src/testing.ts'],
          'delivery-task-sdk/redis': ['../src/redis.ts'],
          'delivery-task-sdk/postgres': ['../src/postgres.ts'],
          'delivery-task-sdk/schemas': ['../src/schemas.ts'],
          'delivery-task-sdk/webhooks': ['../src/webhooks.ts'],
          'delivery-task-sdk/kwd': ['../src/kwd.ts'],
          'delivery-task-sdk/internal': ['../src/internal.ts'],
          'delivery-task-tools/mcp': ['../packages/tools/src/mcp.ts'],
          'delivery-task-tools/sandbox': ['../packages/tools/src/sandbox.ts'],
        },
      },
      include: ['*.ts'],
    },
    null,
    2,
  ),
);
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const result = spawnSync(process.execPath, [tsc, '-p', join(directory, 'tsconfig.json'), '--noEmit'], {
  stdio: 'inherit',
});
if (result.status !== 0) {
  console.error(
    `README check failed: see the errors above (files in ${directory}/ name the file and line of each block)`,
  );
  process.exit(1);
}
rmSync(directory, { recursive: true, force: true });
const counts = sources.map(
  (source) => `${source} ${blocks.filter((block) => block.source === source).length}`,
);
console.log(`README check passed: ${files.length} TypeScript blocks type-check (${counts.join(', ')})`);
