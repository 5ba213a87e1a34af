/**
 * Checks the built API reference (`docs/site/`; run by `npm run docs` after typedoc): the pages of `Task`,
 * `TaskCreateParams`, `TaskListParams` and `WebhookTask` show every field of their schema with a description.
 * Exits 1 naming each field missing or undescribed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Task, TaskCreateParams, TaskListRequestParams, WebhookTask } from '../src/index.js';

const site = resolve(process.argv[2] ?? 'docs/site');
const pages = [
  { page: 'interfaces/delivery-task-sdk.Task.html', schema: Task },
  { page: 'types/delivery-task-sdk.TaskCreateParams.html', schema: TaskCreateParams },
  { page: 'types/delivery-task-sdk.TaskListParams.html', schema: TaskListRequestParams },
  { page: 'interfaces/delivery-task-sdk.WebhookTask.html', schema: WebhookTask },
];

const problems: string[] = [];
for (const { page, schema } of pages) {
  const path = join(site, page);
  if (!existsSync(path)) {
    problems.push(`${page}: no such page`);
    continue;
  }
  const html = readFileSync(path, 'utf8');
  for (const field of Object.keys(schema.def.shape)) {
    // typedoc writes a field's name, its type, then its comment before the next name (signatures list names too).
    const entries = html.split('tsd-kind-property">').filter((entry) => entry.startsWith(`${field}</span>`));
    if (entries.length === 0) problems.push(`${page}: field ${field} not listed`);
    else if (!entries.some((entry) => /<div class="tsd-comment tsd-typography"><p>\S/.test(entry))) {
      problems.push(`${page}: field ${field} undescribed`);
    }
  }
}

if (problems.length > 0) {
  console.error(`reference fields check: ${problems.length} problems\n${problems.join('\n')}`);
  process.exit(1);
}
console.log(`reference fields check: every field of ${pages.length} pages listed and described`);
